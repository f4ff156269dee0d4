//! What an ingest shows while it runs: strata's progress bar on standard error, and an
//! [`Observer`] told the same things, for a front-end that draws its own (the Python
//! package's bar in a notebook).

use std::fmt;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};

/// A function told files done, files in all, and what the ingest is doing now (a file's
/// path, or the embedding throughput).
pub type Observe = dyn Fn(usize, usize, &str) + Send + Sync;

/// Told how an ingest advances; called on the ingest's writing thread.
#[derive(Clone)]
pub struct Observer(pub Arc<Observe>);

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer")
    }
}

/// The bar (hidden unless asked for) and the observer of one ingest.
pub(crate) struct Progress<'a> {
    bar: ProgressBar,
    observer: Option<&'a Observer>,
    done: usize,
    total: usize,
}

impl<'a> Progress<'a> {
    /// Progress over `total` files: a bar on standard error when `shown` (indicatif hides it
    /// when that is not a terminal), and `observer` when there is one.
    pub(crate) fn new(shown: bool, total: usize, observer: Option<&'a Observer>) -> Progress<'a> {
        let bar = if shown { ProgressBar::new(total as u64) } else { ProgressBar::hidden() };
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {wide_msg}")
                .expect("valid template"),
        );
        let progress = Progress { bar, observer, done: 0, total };
        progress.tell("");
        progress
    }

    /// One more file done.
    pub(crate) fn inc(&mut self) {
        self.done += 1;
        self.bar.inc(1);
        self.tell("");
    }

    /// What the ingest is doing now.
    pub(crate) fn message(&self, message: String) {
        self.tell(&message);
        // File names come from the disk and may hold control characters; the bar is drawn
        // on the terminal (the observer gets the name as it is).
        self.bar.set_message(strata_core::terminal::printable(&message).into_owned());
    }

    /// The ingest is over: the bar is cleared.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn tell(&self, message: &str) {
        if let Some(Observer(observer)) = self.observer {
            observer(self.done, self.total, message);
        }
    }
}
