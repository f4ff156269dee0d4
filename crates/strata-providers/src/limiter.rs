//! How many requests may be in flight: at most the configured concurrency, halved when the
//! provider answers 429, regained one at a time.
//!
//! The rule is TCP's: multiplicative decrease on a rate limit, additive increase after a
//! run of successes as long as the current limit. Several 429s that were in flight together
//! count as one signal: the limit is cut at most once per [`COOLDOWN`]. One limiter is shared
//! by every thread of an ingest, so the bound holds across documents.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Least time between two cuts.
pub const COOLDOWN: Duration = Duration::from_secs(1);

#[derive(Debug)]
struct State {
    limit: usize,
    in_flight: usize,
    successes: usize,
    last_cut: Option<Instant>,
    peak: usize,
}

/// A concurrency bound that adapts to rate limits.
#[derive(Debug)]
pub struct Limiter {
    max: usize,
    state: Mutex<State>,
    freed: Condvar,
}

/// A slot held for one request; dropping it frees the slot.
#[derive(Debug)]
pub struct Permit<'a> {
    limiter: &'a Limiter,
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut s = self.limiter.lock();
        s.in_flight -= 1;
        drop(s);
        self.limiter.freed.notify_all();
    }
}

impl Limiter {
    /// A limiter allowing `max` requests at once (at least 1).
    pub fn new(max: usize) -> Limiter {
        let max = max.max(1);
        Limiter {
            max,
            state: Mutex::new(State { limit: max, in_flight: 0, successes: 0, last_cut: None, peak: 0 }),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits for a slot.
    pub fn acquire(&self) -> Permit<'_> {
        let mut s = self.lock();
        while s.in_flight >= s.limit {
            s = self.freed.wait(s).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        s.in_flight += 1;
        s.peak = s.peak.max(s.in_flight);
        Permit { limiter: self }
    }

    /// A request succeeded: after `limit` successes in a row the limit grows by one.
    pub fn succeeded(&self) {
        let mut s = self.lock();
        s.successes += 1;
        if s.successes >= s.limit && s.limit < self.max {
            s.limit += 1;
            s.successes = 0;
            tracing::debug!(limit = s.limit, "concurrency regained");
            drop(s);
            self.freed.notify_all();
        }
    }

    /// The provider said 429: halve the limit, unless it was cut within [`COOLDOWN`].
    pub fn rate_limited(&self) {
        let mut s = self.lock();
        s.successes = 0;
        if s.last_cut.is_some_and(|at| at.elapsed() < COOLDOWN) {
            return;
        }
        let before = s.limit;
        s.limit = (s.limit / 2).max(1);
        s.last_cut = Some(Instant::now());
        if before != s.limit {
            tracing::warn!(from = before, to = s.limit, "rate limited (429): halving concurrency");
        }
    }

    /// The current limit.
    pub fn limit(&self) -> usize {
        self.lock().limit
    }

    /// Most requests that were ever in flight at once.
    pub fn peak(&self) -> usize {
        self.lock().peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_once_per_burst_and_regains_one_per_window() {
        let l = Limiter::new(10);
        l.rate_limited();
        l.rate_limited();
        assert_eq!(l.limit(), 5, "two 429s of one burst cut once");
        for _ in 0..4 {
            l.succeeded();
        }
        assert_eq!(l.limit(), 5);
        l.succeeded();
        assert_eq!(l.limit(), 6, "five successes at limit 5 add one");
        for _ in 0..100 {
            l.succeeded();
        }
        assert_eq!(l.limit(), 10, "never above the configured maximum");
    }

    #[test]
    fn never_below_one_and_bounds_the_threads() {
        let l = Limiter::new(1);
        l.rate_limited();
        assert_eq!(l.limit(), 1);
        let l = Limiter::new(3);
        std::thread::scope(|s| {
            for _ in 0..12 {
                s.spawn(|| {
                    let _p = l.acquire();
                    std::thread::sleep(Duration::from_millis(5));
                });
            }
        });
        assert!(l.peak() <= 3 && l.peak() >= 1, "peak {}", l.peak());
    }
}
