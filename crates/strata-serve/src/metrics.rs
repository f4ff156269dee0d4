//! `/metrics` in the Prometheus text format: requests by route and status, their latency
//! as a histogram, searches by mode, ingest jobs, documents and index snapshots.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
struct Inner {
    /// (method, route, status) → count.
    requests: BTreeMap<(String, String, u16), u64>,
    /// route → latency.
    latency: BTreeMap<String, Histogram>,
    /// mode → searches.
    searches: BTreeMap<String, u64>,
}

/// The counters.
#[derive(Default)]
pub struct Metrics(Mutex<Inner>);

impl Metrics {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let mut inner = self.inner();
        *inner.requests.entry((method.to_string(), route.to_string(), status)).or_default() += 1;
        let h = inner.latency.entry(route.to_string()).or_default();
        for (bound, count) in BUCKETS.iter().zip(h.counts.iter_mut()) {
            if seconds <= *bound {
                *count += 1;
            }
        }
        h.count += 1;
        h.sum += seconds;
    }

    /// Counts a search by its mode.
    pub fn search(&self, mode: &str) {
        *self.inner().searches.entry(mode.to_string()).or_default() += 1;
    }

    /// The text exposition; `gauges` are (name, help, value) read at scrape time.
    pub fn render(&self, gauges: &[(&str, &str, f64)]) -> String {
        let inner = self.inner();
        let mut out = String::new();
        out.push_str(
            "# HELP strata_http_requests_total HTTP requests answered, by method, route and status.\n",
        );
        out.push_str("# TYPE strata_http_requests_total counter\n");
        for ((method, route, status), n) in &inner.requests {
            let _ = writeln!(
                out,
                "strata_http_requests_total{{method=\"{method}\",route=\"{}\",status=\"{status}\"}} {n}",
                escape(route)
            );
        }
        out.push_str("# HELP strata_http_request_duration_seconds Time to answer, by route.\n");
        out.push_str("# TYPE strata_http_request_duration_seconds histogram\n");
        for (route, h) in &inner.latency {
            let route = escape(route);
            for (bound, count) in BUCKETS.iter().zip(h.counts.iter()) {
                let _ = writeln!(
                    out,
                    "strata_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {count}"
                );
            }
            let _ = writeln!(
                out,
                "strata_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(out, "strata_http_request_duration_seconds_sum{{route=\"{route}\"}} {}", h.sum);
            let _ =
                writeln!(out, "strata_http_request_duration_seconds_count{{route=\"{route}\"}} {}", h.count);
        }
        out.push_str("# HELP strata_searches_total Searches run, by mode.\n");
        out.push_str("# TYPE strata_searches_total counter\n");
        for (mode, n) in &inner.searches {
            let _ = writeln!(out, "strata_searches_total{{mode=\"{}\"}} {n}", escape(mode));
        }
        for (name, help, value) in gauges {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}");
        }
        out
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// Middleware: counts every request under its route pattern (`/v1/documents/{id}/tree`),
/// never its concrete path, so ids do not explode the label set.
pub async fn track(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".into());
    // Only the standard methods become labels: anyone can send `FOO /x`, and a label per made-up
    // method would grow the table without end.
    let method = match request.method().as_str() {
        m @ ("GET" | "POST" | "PUT" | "DELETE" | "HEAD" | "OPTIONS" | "PATCH") => m.to_string(),
        _ => "other".to_string(),
    };
    let started = Instant::now();
    let response = next.run(request).await;
    metrics.observe(&method, &route, response.status().as_u16(), started.elapsed().as_secs_f64());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposition_has_counters_buckets_and_gauges() {
        let m = Metrics::default();
        m.observe("POST", "/v1/search", 200, 0.003);
        m.observe("POST", "/v1/search", 200, 0.2);
        m.search("hybrid");
        let text = m.render(&[("strata_documents", "Documents in the index.", 3.0)]);
        assert!(
            text.contains(r#"strata_http_requests_total{method="POST",route="/v1/search",status="200"} 2"#)
        );
        assert!(
            text.contains(r#"strata_http_request_duration_seconds_bucket{route="/v1/search",le="0.005"} 1"#)
        );
        assert!(
            text.contains(r#"strata_http_request_duration_seconds_bucket{route="/v1/search",le="+Inf"} 2"#)
        );
        assert!(text.contains(r#"strata_searches_total{mode="hybrid"} 1"#));
        assert!(text.contains("strata_documents 3"));
    }
}
