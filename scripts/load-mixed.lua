-- wrk script for scripts/load-test.sh: POST /v1/search with the search modes and queries in
-- rotation (keyword, exact, hybrid, hierarchical, dense), the bearer key from STRATA_KEY.
-- Any answer but 200 counts as an error; done() prints one JSON line with the counts and the
-- latency percentiles (wrk measures from each request's send to its full response).

local modes = { "keyword", "exact", "hybrid", "hierarchical", "dense" }
local queries = {
  "confidentiality of census information",
  "section 9",
  "\"Bureau\" means",
  "penalties for refusing to answer census questions",
  "how does a client learn which methods a resource supports",
  "Accept-Language",
  "section 6.5.1",
  "\"safe methods\"",
  "content negotiation",
  "retry after a 503 response",
  "parameter expansion",
  "how do I redirect standard error to a file",
  "\"command substitution\"",
  "what does the discriminator object do",
  "security scheme object oauth2 flows",
  "servers and server variables",
}
local key = os.getenv("STRATA_KEY") or ""
-- Globals, so that done() can read each thread's count through thread:get.
counter = 0
errors = 0
local threads = {}

local function json_string(s)
  return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"') .. '"'
end

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  counter = id or 0
end

function request()
  counter = counter + 1
  local mode = modes[(counter % #modes) + 1]
  local query = queries[(math.floor(counter / #modes) % #queries) + 1]
  local body = '{"query":' .. json_string(query) .. ',"mode":"' .. mode .. '","k":10}'
  return wrk.format("POST", "/v1/search", {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. key,
  }, body)
end

function response(status, headers, body)
  if status ~= 200 then
    errors = errors + 1
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("errors") or 0)
  end
  local socket = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    '{"requests":%d,"seconds":%.1f,"rps":%.1f,"non_200":%d,"socket_errors":%d,' ..
    '"p50_ms":%.1f,"p90_ms":%.1f,"p99_ms":%.1f,"max_ms":%.1f,"mean_ms":%.1f}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6), failed, socket,
    latency:percentile(50) / 1e3, latency:percentile(90) / 1e3, latency:percentile(99) / 1e3,
    latency.max / 1e3, latency.mean / 1e3))
end
