// Calls to the server's /v1 API, with the API key from this tab's session storage.

const KEY = "strata-api-key";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const key = {
  get: () => sessionStorage.getItem(KEY),
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

// Listeners told when the server asks for a key (401).
const onUnauthorized = new Set();
export function whenUnauthorized(listener) {
  onUnauthorized.add(listener);
}

// A request to the API; JSON bodies are sent as application/json. Resolves to the parsed JSON,
// or the Response when `raw` is set; rejects with an ApiError carrying the server's message.
export async function api(path, { method = "GET", json, body, headers = {}, raw = false } = {}) {
  const h = { ...headers };
  const k = key.get();
  if (k) h["Authorization"] = `Bearer ${k}`;
  if (json !== undefined) {
    h["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  }
  const response = await fetch(path, { method, headers: h, body, credentials: "omit" });
  if (!response.ok) {
    let code = "error";
    let message = `${response.status} ${response.statusText}`;
    try {
      const e = await response.json();
      code = e.error?.code ?? e.code ?? code;
      message = e.error?.message ?? e.message ?? message;
    } catch {
      // not JSON: keep the status line
    }
    const error = new ApiError(response.status, code, message);
    if (response.status === 401) onUnauthorized.forEach((f) => f(error));
    throw error;
  }
  if (raw) return response;
  return response.status === 204 ? null : response.json();
}

export const enc = encodeURIComponent;
