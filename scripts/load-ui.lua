-- wrk script: a browser loading the web page over and over, with brotli: the page, then each
-- of its files (pdf.js included) in turn. STRATA_UI_FILES is "/ui/VERSION/app.js /ui/…".
local paths = { "/" }
for p in string.gmatch(os.getenv("STRATA_UI_FILES") or "", "%S+") do
  paths[#paths + 1] = p
end
local i = 0

request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], { ["Accept-Encoding"] = "br, gzip" })
end

done = function(summary, latency, requests)
  io.write(string.format('{"ui_requests":%d,"ui_status_errors":%d,"ui_p50_ms":%.2f,"ui_p99_ms":%.2f}\n',
    summary.requests, summary.errors.status, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
