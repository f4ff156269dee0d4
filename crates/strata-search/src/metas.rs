//! Documents' metadata (tree, pages, definitions, references) decoded once per commit and
//! shared by the searches that cite them.
//!
//! Every search that returns a hit needs its document's tree and pages (citations, page
//! labels, the section stage's heading terms). Decoding them per search made a document with
//! a quarter of a million headings cost a third of a second on every search that touched it.
//! [`Metas`] keeps what it decoded until the next commit, within a bound on the tree nodes,
//! pages, definitions and references it holds ([`DEFAULT_BUDGET`]); past it, the documents
//! read longest ago are dropped, and a document larger than the whole bound is decoded for
//! each search that needs it and never held.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use strata_core::{DocId, Result};
use strata_index::{StoreRead, StoredDocument};

/// Items (tree nodes, pages, definitions, references) held at most: about 100 MB of decoded
/// metadata, the trees of hundreds of long filings.
pub const DEFAULT_BUDGET: usize = 500_000;

/// The decoded metadata of the documents searches touched since the last commit.
#[derive(Debug)]
pub struct Metas {
    budget: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    docs: HashMap<DocId, Option<Arc<StoredDocument>>>,
    /// Documents in the order they were read, the oldest first.
    order: VecDeque<DocId>,
    items: usize,
}

impl Default for Metas {
    fn default() -> Metas {
        Metas::new(DEFAULT_BUDGET)
    }
}

impl Metas {
    /// An empty cache that holds at most `budget` items.
    pub fn new(budget: usize) -> Metas {
        Metas { budget, held: Mutex::default() }
    }

    /// The metadata of `doc` (its `document.text` is empty), `None` when the store does not
    /// hold it.
    pub fn get(&self, store: &dyn StoreRead, doc: &DocId) -> Result<Option<Arc<StoredDocument>>> {
        if let Some(known) = self.lock().docs.get(doc) {
            return Ok(known.clone());
        }
        // Read outside the lock: another search may read the same document meanwhile, and
        // both arrive at the same value.
        let read = store.document_meta(doc)?.map(Arc::new);
        let weight = read.as_deref().map_or(1, items);
        if weight <= self.budget {
            let mut held = self.lock();
            if held.docs.insert(doc.clone(), read.clone()).is_none() {
                held.order.push_back(doc.clone());
                held.items += weight;
            }
            while held.items > self.budget {
                let Some(oldest) = held.order.pop_front() else { break };
                let gone = held.docs.remove(&oldest).flatten();
                held.items -= gone.as_deref().map_or(1, items);
            }
        }
        Ok(read)
    }

    /// Items held now.
    pub fn items(&self) -> usize {
        self.lock().items
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        // A panic elsewhere while holding the lock leaves a map that is still whole.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a document's metadata weighs against the budget.
fn items(m: &StoredDocument) -> usize {
    1 + m.document.tree.len() + m.document.pages.len() + m.definitions.len() + m.references.len()
}
