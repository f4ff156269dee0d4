// The documents view: the list with metadata and counts, uploads with their jobs, removal.

import { api, enc } from "./api.js";
import { h, clear } from "./dom.js";

const $ = (id) => document.getElementById(id);
let listing = null; // Promise of GET /v1/documents, shared until something changes

export function documents() {
  if (!listing) {
    listing = api("/v1/documents");
    listing.catch(() => (listing = null));
  }
  return listing;
}

const changed = new Set();
// Listeners told when documents were added or removed.
export function whenChanged(listener) {
  changed.add(listener);
}
function refresh() {
  listing = null;
  changed.forEach((f) => f());
}

export async function showDocs() {
  const status = $("docs-status");
  try {
    const docs = await documents();
    status.textContent = `${docs.length} document${docs.length === 1 ? "" : "s"}`;
    status.classList.remove("error");
    clear($("docs-table").tBodies[0], docs.map(row));
  } catch (e) {
    status.textContent = e.message;
    status.classList.add("error");
  }
}

function row(d) {
  const meta = Object.entries(d.metadata ?? {}).map(([k, v]) =>
    h("span", { class: "chip" }, `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`));
  return h("tr", { dataset: { doc: d.id } },
    h("td", {}, h("a", { href: `#/read?doc=${enc(d.id)}` }, d.title || d.path), h("div", { class: "muted path" }, d.path)),
    h("td", {}, d.format), h("td", { class: "num" }, d.pages ?? "—"), h("td", { class: "num" }, d.nodes),
    h("td", { class: "num" }, d.chunks), h("td", { class: "num" }, d.definitions), h("td", { class: "num" }, d.references),
    h("td", {}, meta),
    h("td", {}, h("button", { type: "button", class: "small danger", onclick: () => remove(d) }, "Remove")));
}

async function remove(d) {
  if (!confirm(`Remove “${d.title || d.path}” from the index?`)) return;
  try {
    await api(`/v1/documents/${enc(d.id)}`, { method: "DELETE" });
    refresh();
    await showDocs();
  } catch (e) {
    $("docs-status").textContent = e.message;
    $("docs-status").classList.add("error");
  }
}

// Uploads `files`, one job each, and follows the jobs until they end.
export async function upload(files) {
  for (const file of files) {
    const item = h("li", {}, h("strong", {}, file.name), " ", h("span", { class: "job-state" }, "uploading…"));
    $("jobs").prepend(item);
    const state = item.querySelector(".job-state");
    try {
      const type = file.type && file.type !== "text/plain" ? file.type : "application/octet-stream";
      const accepted = await api(`/v1/documents?filename=${enc(file.name)}`, {
        method: "POST", body: file, headers: { "Content-Type": type },
      });
      await follow(accepted.job.id, state, item);
    } catch (e) {
      state.textContent = e.message;
      item.classList.add("error");
    }
  }
}

async function follow(id, state, item) {
  item.dataset.job = id;
  for (;;) {
    const job = await api(`/v1/jobs/${enc(id)}`);
    item.dataset.state = job.state;
    state.textContent = job.state === "failed" ? `failed: ${job.error}` : job.state;
    if (job.state === "done") {
      const failed = (job.summary?.outcomes ?? []).filter((f) => f.status === "failed");
      if (failed.length) {
        state.textContent = `failed: ${failed.flatMap((f) => f.messages).join("; ")}`;
        item.dataset.state = "failed";
      } else {
        state.textContent = `done: ${job.summary?.chunks ?? 0} chunks, searchable`;
      }
      refresh();
      await showDocs();
      return;
    }
    if (job.state === "failed") return;
    await new Promise((r) => setTimeout(r, 400));
  }
}

export function setupDropzone() {
  const zone = $("dropzone");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    upload([...e.dataTransfer.files]);
  });
  zone.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") $("file-input").click(); });
  $("file-input").addEventListener("change", (e) => {
    upload([...e.target.files]);
    e.target.value = "";
  });
}
