// Small DOM helpers: element building, and text marked at byte spans.

// h("a", {href: "#"}, "text", child) builds an element; `on*` attributes become listeners,
// `class` and `dataset` are set as such, and null/false children are skipped.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name in el && typeof value !== "string") el[name] = value;
    else el.setAttribute(name, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// The UTF-16 index of each UTF-8 byte offset of `text` (the server's spans are byte offsets).
export function byteIndex(text) {
  const bytes = new TextEncoder().encode(text).length;
  const map = new Int32Array(bytes + 1);
  let b = 0;
  let i = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let k = 0; k < n; k++) map[b + k] = i;
    b += n;
    i += ch.length;
  }
  map[bytes] = text.length;
  return (offset) => map[Math.max(0, Math.min(offset, bytes))];
}

// `text` (which starts at byte `base` of its document) as nodes, with each annotation
// {start, end (document bytes), make(inner) -> element} wrapped around the stretch it covers.
// Overlapping annotations nest, the earlier in the list outermost.
export function annotate(text, base, annotations) {
  const at = byteIndex(text);
  const marks = annotations
    .map((a, order) => ({ ...a, order, from: at(a.start - base), to: at(a.end - base) }))
    .filter((a) => a.to > a.from);
  const cuts = new Set([0, text.length]);
  for (const m of marks) cuts.add(m.from).add(m.to);
  const points = [...cuts].sort((x, y) => x - y);
  const nodes = [];
  for (let p = 0; p + 1 < points.length; p++) {
    const [from, to] = [points[p], points[p + 1]];
    let node = document.createTextNode(text.slice(from, to));
    const covering = marks.filter((m) => m.from <= from && m.to >= to).sort((x, y) => y.order - x.order);
    for (const m of covering) node = m.make(node, from === m.from);
    nodes.push(node);
  }
  return nodes;
}

// Where a passage is: its pages in a document with pages, else its source lines (Markdown,
// plain text), else nothing (HTML: the heading path says it).
export function placeLabel(pages, lines) {
  if (pages) return pages.first === pages.last ? `p. ${pages.first}` : `pp. ${pages.first}–${pages.last}`;
  if (lines) return lines.first === lines.last ? `line ${lines.first}` : `lines ${lines.first}–${lines.last}`;
  return "";
}
