// The search view: the form, results grouped by document, definitions and the context block.

import { api } from "./api.js";
import { h, clear, placeLabel } from "./dom.js";

const $ = (id) => document.getElementById(id);

// What the last search attached, for the read view (definitions on hover).
export const lastSearch = { definitions: [] };

// The form's values as the JSON of POST /v1/search.
function options() {
  const body = { query: $("q").value.trim() };
  const mode = $("mode").value;
  if (mode) body.mode = mode;
  const k = parseInt($("k").value, 10);
  if (k > 0) body.k = k;
  if ($("doc").value) body.doc = $("doc").value;
  if ($("kind").value) body.kind = $("kind").value;
  if ($("page-range").value.trim()) body.page_range = $("page-range").value.trim();
  const where = {};
  for (const pair of $("where").value.split(",")) {
    const [name, ...rest] = pair.split("=");
    if (name.trim() && rest.length) where[name.trim()] = rest.join("=").trim();
  }
  if (Object.keys(where).length) body.where = where;
  return body;
}

// The form's values in the address (#/search?q=…), so a search can be linked and reloaded.
export function searchHash() {
  const o = options();
  const p = new URLSearchParams({ q: o.query });
  for (const name of ["mode", "k", "doc", "kind", "page_range"]) if (o[name]) p.set(name, o[name]);
  if (o.where) p.set("where", $("where").value);
  return `#/search?${p}`;
}

export function fillForm(params) {
  $("q").value = params.get("q") ?? "";
  $("mode").value = params.get("mode") ?? "";
  $("k").value = params.get("k") ?? "";
  $("doc").value = params.get("doc") ?? "";
  $("kind").value = params.get("kind") ?? "";
  $("page-range").value = params.get("page_range") ?? "";
  $("where").value = params.get("where") ?? "";
}

export async function runSearch() {
  const body = options();
  if (!body.query) return;
  const status = $("search-status");
  status.textContent = "Searching…";
  status.classList.remove("error");
  try {
    const response = await api("/v1/search", { method: "POST", json: body });
    render(response);
    const n = response.hits.length;
    status.textContent = `${n} result${n === 1 ? "" : "s"} in ${response.took_ms.toFixed(0)} ms (${response.mode})`;
    for (const w of response.warnings ?? []) status.append(h("span", { class: "warning" }, ` ${w}`));
  } catch (e) {
    clear($("results"));
    status.textContent = e.message;
    status.classList.add("error");
  }
}

function render(response) {
  lastSearch.definitions = response.definitions ?? [];
  const groups = new Map();
  response.hits.forEach((hit, index) => {
    if (!groups.has(hit.doc_id)) groups.set(hit.doc_id, []);
    groups.get(hit.doc_id).push({ hit, index });
  });
  const results = clear($("results"));
  for (const [, hits] of groups) {
    results.append(
      h("section", { class: "doc-group" },
        h("h2", { class: "doc-title" }, hits[0].hit.doc_title,
          h("span", { class: "muted path" }, hits[0].hit.source_path)),
        hits.map(({ hit, index }) => hitCard(hit, index, response.plan))),
    );
  }
  renderDefinitions(response.definitions ?? [], response.more_definitions ?? []);
  renderContext(response.context);
}

// The read view's address for a hit: its section, the highlights (or the hit) to mark.
export function readHash(hit, plan) {
  const spans = hit.highlights?.length ? hit.highlights.map((x) => x.span) : [hit.span];
  const p = new URLSearchParams({ doc: hit.doc_id, node: hit.node_id });
  p.set("hl", spans.map((s) => `${s.start}-${s.end}`).join(","));
  if (hit.pages) p.set("page", String(hit.pages.first));
  const sub = subsectionOf(hit, plan);
  if (sub) p.set("sub", sub);
  return `#/read?${p}`;
}

// The part of a section number the query named below the hit's section: "(b)" when the
// query says "section 102(b)" and the hit is § 102.
function subsectionOf(hit, plan) {
  const number = hit.section_number;
  if (!number) return null;
  for (const id of plan?.identifiers ?? []) {
    if (id.key.startsWith(number) && id.key[number.length] === "(") return id.key.slice(number.length);
  }
  return null;
}

function hitCard(hit, index, plan) {
  const open = () => (location.hash = readHash(hit, plan));
  const crumbs = hit.heading_path.map((x) => h("li", {}, x));
  // A heading the path does not end with (whole pages, a document's title) gets its own line.
  const apart = hit.heading && hit.heading !== hit.heading_path.at(-1) && hit.heading !== hit.doc_title;
  const heading = apart ? h("p", { class: "heading" }, hit.heading) : null;
  const sentences = hit.highlights?.length
    ? h("ul", { class: "highlights" }, hit.highlights.map((x) => h("li", {}, h("mark", {}, x.text))))
    : h("p", { class: "snippet" }, hit.text.length > 400 ? `${hit.text.slice(0, 400)}…` : hit.text);
  return h("article", {
      class: "result", tabindex: "0", dataset: { index: String(index), doc: hit.doc_id, node: hit.node_id },
      onclick: (e) => { if (!e.target.closest("a, summary, details")) open(); },
      onkeydown: (e) => { if (e.key === "Enter" && e.target === e.currentTarget) open(); },
    },
    h("ol", { class: "crumbs", "aria-label": "Heading path" }, crumbs),
    h("div", { class: "meta" },
      h("a", { class: "cite", href: readHash(hit, plan), title: hit.citation }, hit.heading_path.at(-1) ?? hit.doc_title),
      h("span", { class: "page" }, placeLabel(hit.pages, hit.lines)),
      h("span", { class: `kind kind-${hit.kind}` }, hit.kind),
      hit.unit && hit.unit !== "chunk" ? h("span", { class: "kind" }, hit.unit) : null),
    heading,
    sentences,
    legs(hit));
}

function legs(hit) {
  const rows = Object.entries(hit.legs ?? {}).map(([leg, r]) =>
    h("tr", {}, h("th", {}, leg), h("td", {}, `#${r.rank}`), h("td", {}, r.score.toFixed(4))));
  return h("details", { class: "legs", open: $("show-legs").checked },
    h("summary", {}, `score ${hit.score.toFixed(4)}`),
    h("table", {},
      h("tr", {}, h("th", {}, "leg"), h("th", {}, "rank"), h("th", {}, "score")),
      rows,
      hit.document_rank != null ? h("tr", {}, h("th", {}, "document"), h("td", {}, `#${hit.document_rank}`), h("td")) : null,
      hit.section_rank != null ? h("tr", {}, h("th", {}, "section"), h("td", {}, `#${hit.section_rank}`), h("td")) : null));
}

// The definitions the hits need; the terms left out past the bound link to the sections
// that define them.
function renderDefinitions(definitions, more) {
  const box = $("definitions");
  box.hidden = definitions.length === 0 && more.length === 0;
  const rest = box.querySelector(".more");
  rest.hidden = more.length === 0;
  const link = (d) => h("a", { href: `#/read?${new URLSearchParams({ doc: d.doc_id, node: d.node_id })}` }, d.term);
  clear(rest, more.length ? ["Also defined: ", ...more.flatMap((d, i) => (i ? [", ", link(d)] : [link(d)]))] : []);
  clear(box.querySelector("dl"),
    definitions.map((d) => [
      h("dt", {}, d.term, d.conflict ? h("span", { class: "warning" }, " (conflicting)") : null),
      h("dd", {}, d.text, h("div", { class: "muted" }, d.citation.replace(/^\[|\]$/g, ""))),
    ]));
}

function renderContext(context) {
  const box = $("context");
  box.hidden = !context;
  if (!context) return;
  $("context-info").textContent = `${context.tokens} of ${context.budget} tokens (${context.tokenizer})`;
  $("context-text").textContent = context.text;
}

export async function copyContext() {
  const text = $("context-text").textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("context-text"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    document.execCommand("copy");
  }
  $("copy-context").textContent = "Copied";
  setTimeout(() => ($("copy-context").textContent = "Copy"), 1500);
}

// Arrow keys move between results; Enter opens one (on the card itself).
export function moveFocus(step) {
  const hits = [...document.querySelectorAll("#results .result")];
  if (!hits.length) return;
  const at = hits.indexOf(document.activeElement);
  const next = at < 0 ? 0 : Math.max(0, Math.min(hits.length - 1, at + step));
  hits[next].focus();
  hits[next].scrollIntoView({ block: "nearest" });
}
