// A PDF page rendered by pdf.js, with the passages strata cited marked on its text layer.
//
// pdf.js is loaded on first use, from the copy embedded in the server; the document's bytes
// come from GET /v1/documents/{id}/source (with the API key), once per document.

import { api, enc } from "./api.js";
import { h, clear } from "./dom.js";

let pdfjs;
async function library() {
  if (!pdfjs) {
    pdfjs = await import("./vendor/pdfjs/pdf.min.mjs");
    pdfjs.GlobalWorkerOptions.workerSrc = new URL("./vendor/pdfjs/pdf.worker.min.mjs", import.meta.url).href;
  }
  return pdfjs;
}

const opened = new Map(); // doc id -> Promise<PDFDocumentProxy>
function open(docId) {
  if (!opened.has(docId)) {
    const loading = (async () => {
      const lib = await library();
      const response = await api(`/v1/documents/${enc(docId)}/source`, { raw: true });
      const data = new Uint8Array(await response.arrayBuffer());
      return lib.getDocument({ data, isEvalSupported: false }).promise;
    })();
    loading.catch(() => opened.delete(docId));
    opened.set(docId, loading);
  }
  return opened.get(docId);
}

// The lower-case words of a text, ligatures and accents folded (NFKC), each with `at`.
function words(text, at) {
  return [...text.normalize("NFKC").toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ w: m[0], at }));
}

// The text-layer spans that hold the longest run of `passage`'s words found on the page.
function spansOf(passage, pageWords) {
  const want = words(passage, -1).map((x) => x.w);
  for (let len = Math.min(want.length, 12); len >= Math.min(3, want.length); len--) {
    for (let s = 0; s + len <= want.length; s++) {
      for (let p = 0; p + len <= pageWords.length; p++) {
        let n = 0;
        while (n < len && pageWords[p + n].w === want[s + n]) n++;
        if (n < len) continue;
        let [a, b] = [p, p + len]; // extend the match both ways
        for (let i = s - 1; i >= 0 && a > 0 && pageWords[a - 1].w === want[i]; i--) a--;
        for (let i = s + len; i < want.length && b < pageWords.length && pageWords[b].w === want[i]; i++) b++;
        return new Set(pageWords.slice(a, b).map((x) => x.at));
      }
    }
  }
  return new Set();
}

// Renders page `number` of `docId` into `container`, marking `passages` (strings); returns
// the number of text spans marked.
export async function showPage(container, docId, number, passages, onPage) {
  const doc = await open(docId);
  const pageNumber = Math.max(1, Math.min(number, doc.numPages));
  const page = await doc.getPage(pageNumber);
  const lib = await library();
  const base = page.getViewport({ scale: 1 });
  const width = Math.max(240, container.clientWidth - 16);
  const viewport = page.getViewport({ scale: Math.min(2, width / base.width) });
  const ratio = window.devicePixelRatio || 1;
  const canvas = h("canvas", { "aria-label": `Page ${pageNumber}, as rendered` });
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  const layer = h("div", { class: "textLayer" });
  const box = h("div", { class: "pdf-page", dataset: { page: String(pageNumber) } }, canvas, layer);
  box.style.width = `${Math.floor(viewport.width)}px`;
  box.style.height = `${Math.floor(viewport.height)}px`;
  box.style.setProperty("--scale-factor", String(viewport.scale));
  box.style.setProperty("--total-scale-factor", String(viewport.scale));
  box.style.setProperty("--user-unit", "1");
  const nav = h("div", { class: "pdf-nav" },
    h("button", { type: "button", class: "small", disabled: pageNumber <= 1, onclick: () => onPage(pageNumber - 1) }, "‹ Prev"),
    h("span", {}, `Page ${pageNumber} of ${doc.numPages}`),
    h("button", { type: "button", class: "small", disabled: pageNumber >= doc.numPages, onclick: () => onPage(pageNumber + 1) }, "Next ›"));
  clear(container, nav, box);
  await page.render({ canvas, canvasContext: canvas.getContext("2d"), viewport, transform: ratio === 1 ? null : [ratio, 0, 0, ratio, 0, 0] }).promise;
  const text = await page.getTextContent();
  const textLayer = new lib.TextLayer({ textContentSource: text, container: layer, viewport });
  await textLayer.render();
  const pageWords = textLayer.textContentItemsStr.flatMap((s, i) => words(s, i));
  let marked = 0;
  for (const passage of passages) {
    for (const i of spansOf(passage, pageWords)) {
      const span = textLayer.textDivs[i];
      if (span && !span.classList.contains("passage")) {
        span.classList.add("passage");
        marked++;
      }
    }
  }
  box.dataset.marked = String(marked);
  box.querySelector(".passage")?.scrollIntoView({ block: "center" });
  return marked;
}
