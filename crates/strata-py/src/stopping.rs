//! How a long call stops early in Python: on Ctrl-C, or on an exception in the caller's
//! callback (issue 55: Ctrl-C was ignored until the ingest ended, and a callback's exception
//! was printed and swallowed).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;
use strata_engine::progress::Observer;

/// How a long call (an ingest) stops early: on Ctrl-C, or on an exception in the caller's
/// callback. Either sets the engine's stop flag, so the ingest takes no further file and
/// embeds no further slice, commits what it has read, and returns; the call then raises the
/// exception, with its traceback.
#[derive(Default)]
pub(crate) struct Stopping {
    /// The engine's stop flag ([`strata_engine::IngestOptions::stop`]).
    pub stop: Arc<AtomicBool>,
    /// The first exception: the callback's, or `KeyboardInterrupt`.
    raised: Arc<Mutex<Option<PyErr>>>,
}

/// How often a running call looks for a signal (Ctrl-C).
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

impl Stopping {
    /// `callback(done, total, message)` as the engine's observer: called on the GIL; an
    /// exception it raises stops the call, and it is not called again.
    pub fn observer(&self, callback: Py<PyAny>) -> Observer {
        let (stop, raised) = (self.stop.clone(), self.raised.clone());
        Observer(Arc::new(move |done, total, message: &str| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            Python::attach(|py| {
                if let Err(e) = callback.call1(py, (done, total, message)) {
                    raise(&stop, &raised, e);
                }
            })
        }))
    }

    /// Runs `call` (without the GIL) on a thread of its own, while this one looks for
    /// signals every [`SIGNAL_CHECK`]: Python runs its handlers only on the main thread, and
    /// only when asked.
    pub fn run<T: Send>(&self, call: impl FnOnce() -> T + Send) -> T {
        std::thread::scope(|scope| {
            let running = scope.spawn(call);
            while !running.is_finished() {
                std::thread::sleep(SIGNAL_CHECK);
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    raise(&self.stop, &self.raised, e);
                }
            }
            running.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// The exception that stopped the call, if one did.
    pub fn raised(&self) -> Option<PyErr> {
        self.raised.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Keeps the first exception `e` and sets the stop flag.
fn raise(stop: &AtomicBool, raised: &Mutex<Option<PyErr>>, e: PyErr) {
    raised.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
    stop.store(true, Ordering::Relaxed);
}
