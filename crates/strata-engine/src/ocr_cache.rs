//! The index as the OCR stage's page cache: pages OCR'd before are read from the last
//! commit, pages OCR'd in this ingest are staged as each document is recorded and committed
//! with it.
//!
//! The entries share the store's cache with the model-written contexts (keys never collide:
//! each is blake3 of its own parts, see `strata_ingest::read::pdf::ocr`), so they outlive
//! their document as contexts do. The last commit is opened only when a page needs OCR, so an
//! ingest without scans never opens it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use serde::Serialize;

use strata_core::Result;
use strata_index::{StoreRead, StoreWrite};
use strata_ingest::read::pdf::ocr::PageCache;

use crate::Location;

/// How an ingest's scanned pages were read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OcrTally {
    /// Pages OCR'd.
    pub read: usize,
    /// Pages OCR'd before, read from the index.
    pub cached: usize,
}

impl OcrTally {
    /// No page was OCR'd or read from the cache.
    pub fn is_empty(&self) -> bool {
        *self == OcrTally::default()
    }
}

/// Pages OCR'd before (in the index) and in this ingest (until they are staged).
pub(crate) struct OcrCache {
    location: Location,
    committed: OnceLock<Option<Box<dyn StoreRead>>>,
    fresh: Mutex<HashMap<String, String>>,
    read: AtomicUsize,
    cached: AtomicUsize,
}

impl OcrCache {
    /// The cache of the index at `location`.
    pub(crate) fn new(location: &Location) -> OcrCache {
        OcrCache {
            location: location.clone(),
            committed: OnceLock::new(),
            fresh: Mutex::new(HashMap::new()),
            read: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
        }
    }

    /// How many pages were OCR'd and how many read from the cache so far.
    pub(crate) fn tally(&self) -> OcrTally {
        OcrTally { read: self.read.load(Ordering::Relaxed), cached: self.cached.load(Ordering::Relaxed) }
    }

    /// Stages the pages OCR'd since the last call in `store`, for its next commit (the
    /// ingest driver calls it after each document it records).
    ///
    /// Once staged they are no longer held here, and this ingest's reader of the index
    /// predates them: a page that appears again in a later file of the same ingest is OCR'd
    /// again (the next ingest finds it). That keeps what an ingest of many scans holds in
    /// memory to the pages of the documents in flight.
    pub(crate) fn stage(&self, store: &mut dyn StoreWrite) -> Result<()> {
        let fresh = std::mem::take(&mut *self.fresh.lock().unwrap_or_else(|e| e.into_inner()));
        if fresh.is_empty() {
            return Ok(());
        }
        tracing::debug!(pages = fresh.len(), "OCR'd pages cached");
        store.cache_contexts(&fresh.into_iter().collect::<Vec<_>>())
    }

    fn committed(&self) -> Option<&dyn StoreRead> {
        self.committed
            .get_or_init(|| match self.location.open() {
                Ok(store) => Some(store),
                Err(e) => {
                    tracing::warn!(error = %e, "the index could not be opened for OCR'd pages; pages are OCR'd again");
                    None
                }
            })
            .as_deref()
    }
}

impl PageCache for OcrCache {
    fn get(&self, keys: &[String]) -> HashMap<String, String> {
        let mut found: HashMap<String, String> = {
            let fresh = self.fresh.lock().unwrap_or_else(|e| e.into_inner());
            keys.iter().filter_map(|k| fresh.get(k).map(|v| (k.clone(), v.clone()))).collect()
        };
        let missing: Vec<String> = keys.iter().filter(|k| !found.contains_key(*k)).cloned().collect();
        if !missing.is_empty() {
            match self.committed().map(|store| store.cached_contexts(&missing)) {
                Some(Ok(cached)) => found.extend(cached),
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "OCR'd pages could not be read from the index; pages are OCR'd again")
                }
                None => {}
            }
        }
        // Each page read from the cache counts, also the pages of one document that look
        // alike and share a key.
        self.cached.fetch_add(keys.iter().filter(|k| found.contains_key(*k)).count(), Ordering::Relaxed);
        found
    }

    fn put(&self, key: String, value: String) {
        self.read.fetch_add(1, Ordering::Relaxed);
        self.fresh.lock().unwrap_or_else(|e| e.into_inner()).insert(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 53: a re-ingest of 20 identical scanned pages reported "1 read from the index's
    /// OCR cache": the pages share one key, and the keys found were counted, not the pages.
    #[test]
    fn regression_pages_that_share_a_key_each_count_as_read_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let cache = OcrCache::new(&Location::Embedded(dir.path().join("index")));
        cache.put("page".into(), "words".into());
        let keys = vec!["page".to_string(); 20];
        assert_eq!(cache.get(&keys).len(), 1);
        assert_eq!(cache.tally(), OcrTally { read: 1, cached: 20 });
    }
}
