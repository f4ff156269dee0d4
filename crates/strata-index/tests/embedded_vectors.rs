//! What only the embedded store's vectors have: files that persist, segments that merge, an
//! HNSW graph above the threshold, and files of an unfinished commit that never show.

use std::collections::BTreeSet;

use strata_core::{ChunkId, DocumentRecord};
use strata_index::conformance::fixture::{self, unit_vector, with_vectors};
use strata_index::{EmbeddedStore, Filter, Manifest, StoreRead, StoreWrite};
use tempfile::TempDir;

fn create(dir: &std::path::Path) -> EmbeddedStore {
    EmbeddedStore::open_or_create(dir, Manifest::new("cl100k_base", 512, 64)).unwrap()
}

fn docs(n: usize) -> Vec<DocumentRecord> {
    (0..n).map(|i| with_vectors(fixture::widget_act(&format!("widget-{i:04}")))).collect()
}

/// The chunk vector segments' files (`vectors/sections/` holds the section vectors).
fn segment_files(dir: &std::path::Path) -> BTreeSet<String> {
    std::fs::read_dir(dir.join("vectors"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// tantivy's files, locks and its own bookkeeping (`.managed.json`) left out.
fn tantivy_files(dir: &std::path::Path) -> BTreeSet<String> {
    std::fs::read_dir(dir.join("tantivy"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect()
}

fn brute(records: &[DocumentRecord], q: &[f32], k: usize) -> Vec<ChunkId> {
    let mut all: Vec<(f32, ChunkId)> = records
        .iter()
        .flat_map(|r| &r.chunks)
        .map(|c| (unit_vector(c.id.as_str()).iter().zip(q).map(|(a, b)| a * b).sum(), c.id.clone()))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    all.into_iter().take(k).map(|x| x.1).collect()
}

#[test]
fn vectors_persist_and_the_manifest_names_the_model() {
    let dir = TempDir::new().unwrap();
    let records = docs(3);
    {
        let mut store = create(dir.path());
        for r in &records {
            store.put(r).unwrap();
        }
        store.commit().unwrap();
    }
    let store = EmbeddedStore::open(dir.path()).unwrap();
    let dense = store.manifest().dense.clone().expect("manifest records the model");
    assert_eq!((dense.model.as_str(), dense.dim), (fixture::VECTOR_MODEL, fixture::VECTOR_DIM));
    let q = unit_vector("persisted");
    let hits: Vec<ChunkId> =
        store.dense(&q, &Filter::default(), 10).unwrap().into_iter().map(|h| h.chunk).collect();
    assert_eq!(hits, brute(&records, &q, 10));
    assert_eq!(store.vector_count(), records.iter().map(|r| r.chunks.len()).sum::<usize>());
}

/// Many small commits merge into few segments; replaced documents' rows are dropped by the
/// merge; files of merged-away segments are deleted.
#[test]
fn small_commits_merge_and_dead_rows_go() {
    let dir = TempDir::new().unwrap();
    let mut store = create(dir.path());
    let mut records = docs(40);
    for r in &records {
        store.put(r).unwrap();
        store.commit().unwrap();
    }
    // Replace half of them.
    for r in records.iter_mut().take(20) {
        *r = with_vectors(fixture::widget_act_amended(r.document.id.as_str()));
        store.put(r).unwrap();
        store.commit().unwrap();
    }
    let files = segment_files(dir.path());
    let segments = files.iter().filter(|f| f.ends_with(".vec")).count();
    assert!(segments <= 16, "{segments} segments: {files:?}");
    assert_eq!(store.vector_count(), records.iter().map(|r| r.chunks.len()).sum::<usize>());
    let q = unit_vector("merged");
    let hits: Vec<ChunkId> =
        store.dense(&q, &Filter::default(), 20).unwrap().into_iter().map(|h| h.chunk).collect();
    assert_eq!(hits, brute(&records, &q, 20));
}

/// Above the threshold a commit builds an HNSW graph, calibrated on its rows; where it beats
/// the exact scan it is kept and reloaded on open, and its answers match exact search closely.
#[test]
fn above_the_threshold_a_graph_is_built_and_persisted() {
    let dir = TempDir::new().unwrap();
    let records = docs(1500); // 1500 × 15 = 22,500 rows
    {
        let mut store = create(dir.path());
        store.set_ann_threshold(20_000);
        for r in &records {
            store.put(r).unwrap();
        }
        store.commit().unwrap();
    }
    assert!(segment_files(dir.path()).iter().any(|f| f.ends_with(".hnsw")), "graph file written");
    let store = EmbeddedStore::open(dir.path()).unwrap();
    let (mut found, mut wanted) = (0, 0);
    for i in 0..50 {
        let q = unit_vector(&format!("probe {i}"));
        let exact: BTreeSet<ChunkId> = brute(&records, &q, 10).into_iter().collect();
        let got: BTreeSet<ChunkId> =
            store.dense(&q, &Filter::default(), 10).unwrap().into_iter().map(|h| h.chunk).collect();
        found += exact.intersection(&got).count();
        wanted += exact.len();
    }
    let recall = found as f64 / wanted as f64;
    assert!(recall >= 0.9, "recall@10 {recall}");
}

/// Where a graph would be slower than scanning (a few hundred rows), none is kept, and dense
/// search stays exact.
#[test]
fn a_graph_that_does_not_pay_off_is_not_kept() {
    let dir = TempDir::new().unwrap();
    let records = docs(60);
    let mut store = create(dir.path());
    store.set_ann_threshold(100);
    for r in &records {
        store.put(r).unwrap();
    }
    store.commit().unwrap();
    assert!(!segment_files(dir.path()).iter().any(|f| f.ends_with(".hnsw")), "no graph for 900 rows");
    let q = unit_vector("exact");
    let got: Vec<ChunkId> =
        store.dense(&q, &Filter::default(), 10).unwrap().into_iter().map(|h| h.chunk).collect();
    assert_eq!(got, brute(&records, &q, 10));
    // A small commit after it adds a segment; it does not merge and try the graph again.
    let vec_files =
        || -> Vec<String> { segment_files(dir.path()).into_iter().filter(|f| f.ends_with(".vec")).collect() };
    let before = vec_files();
    store.put(&with_vectors(fixture::gadget_rules("gadget-0001"))).unwrap();
    store.commit().unwrap();
    let after = vec_files();
    assert_eq!(after.len(), before.len() + 1, "{before:?} -> {after:?}");
    assert!(after.contains(&before[0]), "the checked segment stays: {after:?}");
}

/// A large segment without a graph gets int8 codes; they are reloaded on open, and the
/// rescored scan returns the exact answer with exact scores, filtered or not.
/// Writes `records` in one commit, as one segment without a graph.
fn write_one_segment(dir: &std::path::Path, records: &[DocumentRecord]) {
    let mut store = create(dir);
    store.set_ann_threshold(usize::MAX);
    for r in records {
        store.put(r).unwrap();
    }
    store.commit().unwrap();
}

#[test]
fn a_large_segment_without_a_graph_is_scanned_through_int8_codes() {
    let dir = TempDir::new().unwrap();
    let records = docs(strata_index::QUANT_MIN_ROWS.div_ceil(15));
    write_one_segment(dir.path(), &records);
    let files = segment_files(dir.path());
    assert!(files.iter().any(|f| f.ends_with(".q8")), "codes written: {files:?}");
    assert!(!files.iter().any(|f| f.ends_with(".hnsw")), "no graph: {files:?}");
    let store = EmbeddedStore::open(dir.path()).unwrap();
    let (mut found, mut wanted) = (0, 0);
    for i in 0..20 {
        let q = unit_vector(&format!("probe {i}"));
        let exact = brute(&records, &q, 10);
        let got = store.dense(&q, &Filter::default(), 10).unwrap();
        for h in &got {
            let want: f32 = unit_vector(h.chunk.as_str()).iter().zip(&q).map(|(a, b)| a * b).sum();
            assert!((h.score - want).abs() < 1e-5, "{}: score {} is not exact ({want})", h.chunk, h.score);
        }
        found += got.iter().filter(|h| exact.contains(&h.chunk)).count();
        wanted += exact.len();
    }
    assert!(found as f64 >= 0.99 * wanted as f64, "{found} of {wanted} exact hits");
    let doc = records[7].document.id.clone();
    let q = unit_vector("filtered");
    let got: Vec<ChunkId> = store
        .dense(&q, &Filter { doc: Some(doc.clone()), ..Filter::default() }, 5)
        .unwrap()
        .into_iter()
        .map(|h| h.chunk)
        .collect();
    assert_eq!(got, brute(&records[7..8], &q, 5));
}

/// A writer that wrote vector files but never committed leaves nothing visible, and the next
/// commit deletes the orphaned files.
#[test]
fn uncommitted_vector_files_are_invisible_and_collected() {
    let dir = TempDir::new().unwrap();
    let records = docs(2);
    {
        let mut store = create(dir.path());
        store.put(&records[0]).unwrap();
        store.commit().unwrap();
    }
    let committed = segment_files(dir.path());
    // Simulate a crash between writing a segment and publishing it.
    for f in &committed {
        let from = dir.path().join("vectors").join(f);
        let to = dir.path().join("vectors").join(f.replace("seg-000000", "seg-000099"));
        std::fs::copy(from, to).unwrap();
    }
    let mut store = create(dir.path());
    assert_eq!(store.vector_count(), records[0].chunks.len());
    store.put(&records[1]).unwrap();
    store.commit().unwrap();
    let files = segment_files(dir.path());
    assert!(!files.iter().any(|f| f.contains("seg-000099")), "orphans collected: {files:?}");
    assert_eq!(store.vector_count(), records[0].chunks.len() + records[1].chunks.len());
}

/// Issue 23, finding 6: a writer that died before its commit point (killed, or on a full
/// disk) left tantivy segment files and vector segments that no commit references, holding
/// their space until some later commit succeeded. Opening for writing removes them, and the
/// last commit stays whole.
#[test]
fn opening_for_writing_removes_the_files_of_a_commit_that_never_happened() {
    let dir = TempDir::new().unwrap();
    let records = docs(3);
    {
        let mut store = create(dir.path());
        store.put(&records[0]).unwrap();
        store.commit().unwrap();
    }
    let committed = (tantivy_files(dir.path()), segment_files(dir.path()));
    {
        // Puts that never commit, as a process killed before its commit leaves them.
        let mut store = create(dir.path());
        for r in &records[1..] {
            store.put(r).unwrap();
        }
    }
    for f in &committed.1 {
        let vectors = dir.path().join("vectors");
        std::fs::copy(vectors.join(f), vectors.join(f.replace("seg-000000", "seg-000099"))).unwrap();
    }
    let left = (tantivy_files(dir.path()), segment_files(dir.path()));
    assert!(left.0.len() > committed.0.len(), "the puts wrote no segment files: {left:?}");
    assert!(left.1.len() > committed.1.len());

    let store = create(dir.path());
    assert_eq!((tantivy_files(dir.path()), segment_files(dir.path())), committed);
    assert_eq!(store.documents().unwrap().len(), 1);
    assert_eq!(store.vector_count(), records[0].chunks.len());
}

/// A commit on a disk too full for it fails with an error that names the full disk and the
/// fix, and leaves only the last commit's files: the vector segment it wrote first and the
/// tantivy segments it was flushing are removed at once, and once space is freed the next
/// commit on the same volume succeeds.
#[test]
fn a_commit_that_fills_the_disk_removes_its_segment_and_vector_files() {
    let dir = TempDir::new().unwrap();
    let Some(volume) = Tmpfs::mount(&dir.path().join("volume"), "2m") else { return };
    let index = volume.path.join("index");
    let records = docs(202);
    let mut store = create(&index);
    store.put(&records[0]).unwrap();
    store.commit().unwrap();
    let committed = (tantivy_files(&index), segment_files(&index));

    for r in &records[1..201] {
        store.put(r).unwrap();
    }
    // Room for the commit's vector segments (430 KB), not for its tantivy segments (370 KB more).
    let filler = fill_but(&volume.path, 512 * 1024);
    let e = store.commit().expect_err("the commit fit in 512 KiB").to_string();
    assert!(e.contains(index.to_str().unwrap()) && e.contains("no space left on device"), "{e}");
    assert!(e.contains("the last commit is intact") && e.contains("free space"), "{e}");
    assert_eq!((tantivy_files(&index), segment_files(&index)), committed);
    assert_eq!(store.documents().unwrap().len(), 1);

    std::fs::remove_file(filler).unwrap();
    store.put(&records[201]).unwrap();
    store.commit().unwrap();
    drop(store);
    let store = EmbeddedStore::open(&index).unwrap();
    assert_eq!(store.documents().unwrap().len(), 2);
    assert_eq!(store.vector_count(), records[0].chunks.len() + records[201].chunks.len());
}

/// A put that runs out of disk space (tantivy writes stored fields as documents arrive)
/// undoes every put since the last commit; the store then refuses writes, and its next
/// commit reports the same error rather than publishing a part of what was put. After that
/// report, writes succeed again.
#[test]
fn a_put_that_fills_the_disk_undoes_the_staged_puts_and_the_commit_reports_it() {
    let dir = TempDir::new().unwrap();
    let Some(volume) = Tmpfs::mount(&dir.path().join("volume"), "1m") else { return };
    let index = volume.path.join("index");
    let records = docs(3001);
    let mut store = create(&index);
    store.put(&records[0]).unwrap();
    store.commit().unwrap();
    let committed = (tantivy_files(&index), segment_files(&index));

    let failed = records[1..3000].iter().position(|r| store.put(r).is_err());
    let failed = failed.expect("3,000 documents fit in 1 MB");
    assert!(failed > 0, "the first put failed: nothing staged was undone");
    let put = store.put(&records[3000]).unwrap_err().to_string();
    let commit = store.commit().unwrap_err().to_string();
    assert!(commit.contains("no space left on device") && commit.contains("free space"), "{commit}");
    assert_eq!(put, commit);
    assert_eq!((tantivy_files(&index), segment_files(&index)), committed);
    assert_eq!(store.documents().unwrap().len(), 1);

    store.put(&records[3000]).unwrap();
    store.commit().unwrap();
    assert_eq!(store.documents().unwrap().len(), 2);
}

/// Fills the volume of `dir` with one file until `room` bytes are left, and returns it.
fn fill_but(dir: &std::path::Path, room: u64) -> std::path::PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    let mut file = std::fs::File::create(&path).unwrap();
    let block = vec![0u8; 64 * 1024];
    while file.write_all(&block).is_ok() {}
    let len = file.metadata().unwrap().len();
    file.set_len(len.saturating_sub(room)).unwrap();
    path
}

/// A tmpfs mounted for one test and unmounted when dropped, also when the test fails.
struct Tmpfs {
    path: std::path::PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`mount`'s syntax) at `path`; `None`, with the reason
    /// printed, where this is not possible (not Linux, not root).
    fn mount(path: &std::path::Path, size: &str) -> Option<Tmpfs> {
        if !cfg!(target_os = "linux") {
            eprintln!("skipping: mounting a small tmpfs needs Linux");
            return None;
        }
        std::fs::create_dir_all(path).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(path)
            .output();
        match mounted {
            Ok(out) if out.status.success() => Some(Tmpfs { path: path.to_path_buf() }),
            Ok(out) => {
                let why = String::from_utf8_lossy(&out.stderr);
                eprintln!(
                    "skipping: cannot mount a tmpfs at {} (run as root): {}",
                    path.display(),
                    why.trim()
                );
                None
            }
            Err(e) => {
                eprintln!("skipping: cannot run mount ({e}); the test needs root on Linux");
                None
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let unmounted = std::process::Command::new("umount").arg(&self.path).status();
        if !unmounted.is_ok_and(|s| s.success()) {
            // Something still holds a file there: detach it now, free it when released.
            let _ = std::process::Command::new("umount").arg("-l").arg(&self.path).status();
        }
    }
}

/// A large segment whose rows form clusters of near-copies (as the million-chunk bench's do)
/// gets calibrated one-bit codes beside its int8 codes; reopened, its scan returns the exact
/// answer with exact scores, and a search inside one document scores that document's rows.
#[test]
fn a_large_clustered_segment_is_scanned_through_one_bit_codes() {
    let dim = 384;
    let n = strata_index::QUANT_MIN_ROWS.div_ceil(15);
    let (bases, copies) = strata_vector::rng::near_copies(500, 120, dim, 21);
    let mut records = docs(n);
    let mut next = 0;
    let mut vectors: std::collections::HashMap<ChunkId, Vec<f32>> = Default::default();
    for r in &mut records {
        let mut values = Vec::new();
        for c in &r.chunks {
            let v = copies[(next % (copies.len() / dim)) * dim..][..dim].to_vec();
            next += 1;
            values.extend_from_slice(&v);
            vectors.insert(c.id.clone(), v);
        }
        r.vectors = Some(strata_core::ChunkVectors { model: "clustered-384".into(), dim, values });
        r.section_vectors = None;
    }
    let exact = |q: &[f32], keep: &dyn Fn(&ChunkId) -> bool, k: usize| -> Vec<(ChunkId, f32)> {
        let mut all: Vec<(ChunkId, f32)> = vectors
            .iter()
            .filter(|(id, _)| keep(id))
            .map(|(id, v)| (id.clone(), v.iter().zip(q).map(|(a, b)| a * b).sum()))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(k);
        all
    };
    let dir = TempDir::new().unwrap();
    write_one_segment(dir.path(), &records);
    let files = segment_files(dir.path());
    assert!(files.iter().any(|f| f.ends_with(".b1")), "one-bit codes written: {files:?}");
    let store = EmbeddedStore::open(dir.path()).unwrap();
    let (mut found, mut wanted) = (0, 0);
    for b in (0..500).step_by(25) {
        let q = &bases[b * dim..(b + 1) * dim];
        let want = exact(q, &|_| true, 100);
        let got = store.dense(q, &Filter::default(), 100).unwrap();
        for h in &got {
            let score: f32 = vectors[&h.chunk].iter().zip(q).map(|(a, b)| a * b).sum();
            assert!((h.score - score).abs() < 1e-5, "{}: score {} is not exact ({score})", h.chunk, h.score);
        }
        found += got.iter().filter(|h| want.iter().any(|w| w.0 == h.chunk)).count();
        wanted += want.len();
    }
    assert!(found as f64 >= 0.99 * wanted as f64, "{found} of {wanted} exact hits");
    let doc = records[7].document.id.clone();
    let in_doc: BTreeSet<ChunkId> = records[7].chunks.iter().map(|c| c.id.clone()).collect();
    let q = &bases[3 * dim..4 * dim];
    let got: Vec<ChunkId> = store
        .dense(q, &Filter { doc: Some(doc), ..Filter::default() }, 5)
        .unwrap()
        .into_iter()
        .map(|h| h.chunk)
        .collect();
    let want: Vec<ChunkId> = exact(q, &|id| in_doc.contains(id), 5).into_iter().map(|x| x.0).collect();
    assert_eq!(got, want);
}
