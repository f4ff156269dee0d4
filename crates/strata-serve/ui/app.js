// The page's entry: views by the address's hash (#/search?q=…, #/read?doc=…&node=…, #/docs),
// the API key dialog, and the keyboard.

import { key, whenUnauthorized } from "./api.js";
import { h, clear } from "./dom.js";
import { runSearch, fillForm, searchHash, copyContext, moveFocus } from "./search.js";
import { showRead, forgetOutlines } from "./read.js";
import { documents, showDocs, setupDropzone, whenChanged } from "./manage.js";

const $ = (id) => document.getElementById(id);
let retry = null; // what to redo once a key is given

function route() {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query);
  const view = { "/read": "read", "/docs": "docs" }[path] ?? "search";
  for (const v of ["search", "read", "docs"]) $(`view-${v}`).hidden = v !== view;
  document.querySelectorAll("nav a[data-view]").forEach((a) =>
    a.toggleAttribute("aria-current", a.dataset.view === view));
  retry = route;
  if (view === "read") return showRead(params);
  if (view === "docs") return showDocs();
  if (!params.get("q")) lastQuery = null;
  if (params.get("q") && params.toString() !== lastQuery) {
    lastQuery = params.toString();
    fillForm(params);
    return runSearch();
  }
}
let lastQuery = null;

async function fillDocuments() {
  try {
    const docs = await documents();
    const select = $("doc");
    const chosen = select.value;
    clear(select, h("option", { value: "" }, "all documents"),
      docs.map((d) => h("option", { value: d.id }, d.title || d.path)));
    select.value = chosen;
  } catch {
    // asked for a key, or shown in the view
  }
}

function askKey(error) {
  const dialog = $("key-dialog");
  $("key-error").textContent = key.get() ? `The key was refused: ${error.message}` : "";
  $("key-button").hidden = false;
  if (!dialog.open) dialog.showModal();
  $("key-input").focus();
}

function setupKey() {
  whenUnauthorized(askKey);
  $("key-form").addEventListener("submit", () => {
    key.set($("key-input").value.trim());
    $("key-input").value = "";
    lastQuery = null;
    fillDocuments();
    retry?.();
  });
  $("key-button").addEventListener("click", () => askKey({ message: "" }));
}

function setupKeyboard() {
  document.addEventListener("keydown", (e) => {
    const typing = e.target.closest("input, textarea, select, [contenteditable]");
    if (e.key === "/" && !typing && !$("key-dialog").open) {
      e.preventDefault();
      location.hash.startsWith("#/search") || (location.hash = "#/search");
      $("q").focus();
      $("q").select();
    } else if ((e.key === "ArrowDown" || e.key === "ArrowUp") && !$("view-search").hidden) {
      if (typing && e.target.id !== "q") return;
      e.preventDefault();
      moveFocus(e.key === "ArrowDown" ? 1 : -1);
    } else if (e.key === "Escape" && !$("view-read").hidden && !typing) {
      history.back();
    }
  });
}

function setup() {
  setupKey();
  setupKeyboard();
  setupDropzone();
  whenChanged(() => { forgetOutlines(); fillDocuments(); });
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const hash = searchHash();
    if (location.hash === hash) { lastQuery = null; route(); } else location.hash = hash;
  });
  $("show-legs").addEventListener("change", (e) =>
    document.querySelectorAll("#results .legs").forEach((d) => (d.open = e.target.checked)));
  $("copy-context").addEventListener("click", copyContext);
  window.addEventListener("hashchange", route);
  fillDocuments();
  route();
}

setup();
