//! Matrix and graph files: round trips, and every kind of bad file is a `Format` error that
//! says what it found, never a panic.

use std::path::Path;

use strata_vector::rng::random_unit_vectors;
use strata_vector::{flat, write_matrix, Hnsw, HnswParams, Matrix, MemMatrix, MmapMatrix, VectorError};

fn assert_format(r: Result<impl std::fmt::Debug, VectorError>, needle: &str) {
    match r {
        Err(VectorError::Format { reason, .. }) => {
            assert!(reason.contains(needle), "{reason:?} lacks {needle:?}")
        }
        other => panic!("expected a Format error containing {needle:?}, got {other:?}"),
    }
}

fn patch(path: &Path, at: usize, bytes: &[u8]) {
    let mut all = std::fs::read(path).unwrap();
    all[at..at + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, all).unwrap();
}

fn truncate(path: &Path, by: u64) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let len = f.metadata().unwrap().len();
    f.set_len(len - by).unwrap();
}

#[test]
fn matrix_round_trip_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.vec");
    let mem = MemMatrix::from_vec(7, random_unit_vectors(33, 7, 1)).unwrap();
    mem.save(&path).unwrap();
    let mapped = MmapMatrix::open(&path).unwrap();
    assert_eq!((mapped.dim(), mapped.rows()), (7, 33));
    assert_eq!(mapped.as_slice(), mem.as_slice());
    assert_eq!(mapped.row(32), mem.row(32));
    assert_eq!(mapped.to_mem(), mem);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 64 + 33 * 7 * 4);

    // Empty matrix.
    let empty = dir.path().join("empty.vec");
    write_matrix(&empty, 3, &[]).unwrap();
    let e = MmapMatrix::open(&empty).unwrap();
    assert_eq!((e.rows(), e.dim()), (0, 3));
    assert!(flat::search(&e, &[1.0, 0.0, 0.0], 5, None).unwrap().is_empty());

    // Truncated data, truncated header, wrong version, wrong magic.
    let t = dir.path().join("t.vec");
    std::fs::copy(&path, &t).unwrap();
    truncate(&t, 4);
    assert_format(MmapMatrix::open(&t), "needs 988");
    std::fs::write(&t, b"STRATVEC").unwrap();
    assert_format(MmapMatrix::open(&t), "shorter than the 64-byte header");
    std::fs::copy(&path, &t).unwrap();
    patch(&t, 8, &2u32.to_le_bytes());
    assert_format(MmapMatrix::open(&t), "version 2, this build reads version 1");
    std::fs::copy(&path, &t).unwrap();
    patch(&t, 0, b"NOTAVECF");
    assert_format(MmapMatrix::open(&t), "not a strata vector file");
    let err = MmapMatrix::open(&t).unwrap_err().to_string();
    assert!(err.contains("re-ingest") && err.contains("t.vec"), "{err}");

    // Missing file is Io with the path.
    match MmapMatrix::open(&dir.path().join("missing.vec")) {
        Err(VectorError::Io { path, .. }) => assert!(path.ends_with("missing.vec")),
        other => panic!("{other:?}"),
    }
    // Writing rows of the wrong width.
    assert!(matches!(write_matrix(&t, 3, &[0.0; 4]), Err(VectorError::DimMismatch { .. })));
}

#[test]
fn graph_round_trip_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let dim = 24;
    let m = MemMatrix::from_vec(dim, random_unit_vectors(3_000, dim, 5)).unwrap();
    let params = HnswParams { ef_construction: 64, threads: 2, ..HnswParams::default() };
    let g = Hnsw::build(&m, params.clone()).unwrap();
    let path = dir.path().join("g.hnsw");
    g.save(&path).unwrap();
    let loaded = Hnsw::load(&path, &m).unwrap();
    assert_eq!(loaded.params().m, params.m);
    assert_eq!(loaded.params().ef_construction, params.ef_construction);
    for q in m.as_slice().chunks(dim).take(50) {
        assert_eq!(g.search(&m, q, 10, None).unwrap(), loaded.search(&m, q, 10, None).unwrap());
    }
    // Saving the loaded graph gives the same bytes.
    let again = dir.path().join("again.hnsw");
    loaded.save(&again).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&again).unwrap());

    let t = dir.path().join("t.hnsw");
    for cut in [1u64, 100, 3_000] {
        std::fs::copy(&path, &t).unwrap();
        truncate(&t, cut);
        assert_format(Hnsw::load(&t, &m), "truncated");
    }
    std::fs::write(&t, b"STRA").unwrap();
    assert_format(Hnsw::load(&t, &m), "not a strata graph file");
    std::fs::copy(&path, &t).unwrap();
    patch(&t, 8, &7u32.to_le_bytes());
    assert_format(Hnsw::load(&t, &m), "version 7, this build reads version 1");
    std::fs::copy(&path, &t).unwrap();
    let mut bytes = std::fs::read(&t).unwrap();
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    std::fs::write(&t, bytes).unwrap();
    assert_format(Hnsw::load(&t, &m), "unexpected bytes");

    // A graph used with another matrix.
    let smaller = MemMatrix::from_vec(dim, random_unit_vectors(2_999, dim, 5)).unwrap();
    assert_format(Hnsw::load(&path, &smaller), "graph covers 3000 rows × 24 dims");
    let wider = MemMatrix::from_vec(dim + 1, random_unit_vectors(3_000, dim + 1, 5)).unwrap();
    assert_format(Hnsw::load(&path, &wider), "3000 rows × 25 dims");
    assert!(matches!(g.search(&smaller, m.row(0), 1, None), Err(VectorError::RowsMismatch { .. })));
    assert!(matches!(g.search(&m, &[0.0; 3], 1, None), Err(VectorError::DimMismatch { .. })));
}

#[test]
fn empty_graph_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let m = MemMatrix::new(8).unwrap();
    let g = Hnsw::build(&m, HnswParams::default()).unwrap();
    assert!(g.search(&m, &[0.0; 8], 3, None).unwrap().is_empty());
    let path = dir.path().join("e.hnsw");
    g.save(&path).unwrap();
    assert!(Hnsw::load(&path, &m).unwrap().search(&m, &[0.0; 8], 3, None).unwrap().is_empty());
}
