// The read view: a document's outline as a tree, a section with the hit marked, its
// cross-references as links and defined terms explained on hover, and for a PDF the page
// itself beside it.

import { api, enc } from "./api.js";
import { h, clear, annotate, placeLabel } from "./dom.js";
import { lastSearch } from "./search.js";
import { showPage } from "./pdfpage.js";
import { documents } from "./manage.js";

const $ = (id) => document.getElementById(id);
const outlines = new Map(); // doc id -> Promise<Outline>

export function readLink(doc, node, extra = {}) {
  const p = new URLSearchParams({ doc, ...(node ? { node } : {}), ...extra });
  return `#/read?${p}`;
}

// Shows what `params` (doc, node, hl = "start-end,…", page) name.
export async function showRead(params) {
  const doc = params.get("doc");
  if (!doc) {
    clear($("outline"));
    clear($("section"), h("p", { class: "muted" }, "Open a search result, or a document from Documents."));
    $("pdf-pane").hidden = true;
    return;
  }
  const node = params.get("node");
  const sub = params.get("sub");
  const spans = (params.get("hl") ?? "").split(",").filter(Boolean).map((s) => {
    const [start, end] = s.split("-").map(Number);
    return { start, end };
  });
  try {
    const [outline, docs] = await Promise.all([outlineOf(doc), documents()]);
    renderOutline(outline, node);
    const summary = docs.find((d) => d.id === outline.doc_id);
    if (!node) {
      clear($("section"), h("h1", {}, outline.doc_title), h("p", { class: "muted" }, "Pick a section in the outline."));
      $("pdf-pane").hidden = true;
      return;
    }
    const [section, refs] = await Promise.all([
      api(`/v1/documents/${enc(doc)}/sections/${enc(node)}`),
      api(`/v1/references?doc=${enc(doc)}&node=${enc(node)}`),
    ]);
    renderSection(section, refs, spans, sub);
    await renderPdf(summary, section, spans, Number(params.get("page")) || section.pages?.first || 1);
  } catch (e) {
    clear($("section"), h("p", { class: "error" }, e.message));
  }
}

function outlineOf(doc) {
  if (!outlines.has(doc)) {
    const loading = api(`/v1/documents/${enc(doc)}/tree`);
    loading.catch(() => outlines.delete(doc));
    outlines.set(doc, loading);
  }
  return outlines.get(doc);
}

// Drops cached outlines (after an upload or a removal).
export function forgetOutlines() {
  outlines.clear();
}

function renderOutline(outline, current) {
  const item = (n) => {
    const label = numbered(n.number, n.title);
    const link = h("a", {
      href: readLink(outline.doc_id, n.id), class: n.id === current ? "current" : null,
      title: placeLabel(n.pages, n.lines), dataset: { node: n.id },
    }, label || "(untitled)");
    if (!n.children.length) return h("li", {}, link);
    const open = n.id === current || contains(n, current);
    return h("li", {}, h("details", { open }, h("summary", {}, link), h("ul", {}, n.children.map(item))));
  };
  clear($("outline"),
    h("h2", {}, h("a", { href: readLink(outline.doc_id, null) }, outline.doc_title)),
    h("ul", { class: "tree" }, (outline.root ?? outline).children.map(item)));
  $("outline").querySelector("a.current")?.scrollIntoView({ block: "nearest" });
}

// A heading with its number in front, unless the heading says it already (§102. …).
function numbered(number, title) {
  if (!number || (title ?? "").includes(number.replace(/^Title /, ""))) return title;
  return `${number} ${title ?? ""}`;
}

function contains(n, id) {
  return n.children.some((c) => c.id === id || contains(c, id));
}

function renderSection(section, refs, spans, sub) {
  const annotations = [];
  const target = sub ? subsection(section, sub) : null;
  if (target) {
    annotations.push({ ...target, make: (inner, first) => h("mark", { class: first ? "target first" : "target" }, inner) });
  }
  for (const r of refs.outgoing) {
    if (!r.to_node_id || r.to_node_id === section.node_id) continue;
    const s = r.span;
    annotations.push({ start: s.start, end: s.end, make: (inner) =>
      h("a", { class: "xref", href: readLink(section.doc_id, r.to_node_id), title: r.to_title ?? "" }, inner) });
  }
  for (const s of spans) {
    annotations.push({ start: s.start, end: s.end, make: (inner, first) =>
      h("mark", { class: first ? "hit first" : "hit" }, inner) });
  }
  annotations.push(...termAnnotations(section));
  const text = h("div", { class: "section-text" }, annotate(section.text, section.span.start, annotations));
  clear($("section"),
    h("ol", { class: "crumbs" }, section.heading_path.map((x) => h("li", {}, x))),
    h("h1", {}, numbered(section.number, section.heading_path.at(-1) ?? section.doc_title)),
    h("p", { class: "muted" }, [section.doc_title, placeLabel(section.pages, section.lines)].filter(Boolean).join(", ")),
    text,
    refs.incoming.length ? h("details", { class: "incoming" },
      h("summary", {}, `Referred to from ${refs.incoming.length} place${refs.incoming.length === 1 ? "" : "s"}`),
      h("ul", {}, refs.incoming.map((r) => h("li", {},
        h("a", { href: readLink(section.doc_id, r.from_node_id) }, r.from_title), ` (“${r.raw}”)`)))) : null);
  const first = $("section").querySelector("mark.target") ?? $("section").querySelector("mark.hit");
  if (first) first.scrollIntoView({ block: "start" });
  else $("section").scrollTop = 0;
}

// The byte span of subsection `sub` ("(b)", "(b)(1)") in the section's text: from the line
// that starts with its label to the next line starting with a label of the same kind (the
// query named "section 102(b)" and the hit is § 102).
export function subsection(section, sub) {
  const labels = sub.match(/\([^)]+\)/g) ?? [];
  const text = section.text;
  let [from, to] = [0, text.length];
  for (const label of labels) {
    const start = lineStarting(text, label, from, to);
    if (start < 0) return null;
    const kind = labelKind(label);
    let end = to;
    const next = /(^|\n)[ \t]*(\([^)\s]{1,6}\))/g;
    next.lastIndex = start + label.length;
    for (let m; (m = next.exec(text)) && m.index < to;) {
      if (labelKind(m[2]) === kind) { end = m.index; break; }
    }
    [from, to] = [start, end];
  }
  const bytes = (i) => new TextEncoder().encode(text.slice(0, i)).length;
  return { start: section.span.start + bytes(from), end: section.span.start + bytes(to) };
}

function lineStarting(text, label, from, to) {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`(^|\n)[ \t]*${escaped}`, "g");
  re.lastIndex = from;
  const m = re.exec(text);
  if (!m || m.index >= to) return -1;
  return m.index + m[0].indexOf(label);
}

function labelKind(label) {
  const inner = label.slice(1, -1);
  if (/^\d+$/.test(inner)) return "digit";
  if (/^[a-z]+$/.test(inner) && inner.length === 1) return "lower";
  if (/^[A-Z]$/.test(inner)) return "upper";
  if (/^[ivxl]+$/.test(inner)) return "roman";
  return "other";
}

// The terms the last search found definitions for, wherever they occur in the section.
function termAnnotations(section) {
  const out = [];
  const bytes = new TextEncoder();
  for (const d of lastSearch.definitions) {
    if (d.doc_id !== section.doc_id || d.term.length < 2) continue;
    const pattern = new RegExp(`\\b${d.term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "gi");
    for (const m of section.text.matchAll(pattern)) {
      const start = section.span.start + bytes.encode(section.text.slice(0, m.index)).length;
      const end = start + bytes.encode(m[0]).length;
      out.push({ start, end, make: (inner) => h("dfn", { class: "term", title: `${d.term}: ${d.text}`, tabindex: "0" }, inner) });
    }
  }
  return out;
}

async function renderPdf(summary, section, spans, page) {
  const pane = $("pdf-pane");
  if (summary?.format !== "pdf") {
    pane.hidden = true;
    return;
  }
  pane.hidden = false;
  const passages = spans.map((s) => sliceBytes(section, s)).filter((t) => t.trim());
  if (spans.length) page = await pageOf(summary.id, section.pages, spans[0], page);
  const show = async (n) => {
    try {
      await showPage(pane, summary.id, n, passages, show);
    } catch (e) {
      clear(pane, h("p", { class: "error" }, `The PDF could not be shown: ${e.message}`));
    }
  };
  await show(page);
}

// The page that holds byte `span.start`, among the section's pages (the first highlight's
// page, which may not be the hit's first), or `fallback`.
async function pageOf(doc, pages, span, fallback) {
  if (!pages || pages.last <= pages.first) return fallback;
  const last = Math.min(pages.last, pages.first + 19);
  try {
    const read = await api(`/v1/documents/${enc(doc)}/pages?from=${pages.first}&to=${last}`);
    const hit = read.pages.find((p) => p.span.start <= span.start && span.start < p.span.end);
    return hit?.number ?? fallback;
  } catch {
    return fallback;
  }
}

// The text of document byte span `s` within the section.
function sliceBytes(section, s) {
  const all = new TextEncoder().encode(section.text);
  const from = Math.max(0, s.start - section.span.start);
  const to = Math.min(all.length, s.end - section.span.start);
  return to > from ? new TextDecoder().decode(all.slice(from, to)) : "";
}
