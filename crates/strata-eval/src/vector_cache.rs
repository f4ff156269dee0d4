//! `strata eval --vector-cache DIR`: vectors kept in a folder that several runs share.
//!
//! Each eval ingest builds a new index, so the index's own vector cache starts empty every
//! time; this folder outlives them. A second run of a set with the same chunking, contexts
//! and model embeds nothing, which makes a ranking-only change cheap to measure.
//!
//! The folder holds one append-only file, [`FILE`]: a header, then records of
//! `MARK | key (32 bytes) | truncated (1) | dim (u32 LE) | dim × f32 LE | check (8)`, where
//! `check` is the first 8 bytes of blake3 over the bytes before it. Entries are keyed by the
//! embedder and the exact text (`strata_embed::cache::key`), so an entry is never stale: a
//! different model, precision or text is another key. A record cut by a crash (kill -9) or
//! damaged fails its check and is skipped; reading resumes at the next mark, so records
//! appended after it are found. Each batch of records goes in one `write` of an `O_APPEND`
//! file, so runs that share the folder do not interleave inside a record.
//!
//! Only the keys and offsets are held in memory; a lookup reads its vectors from the file.
//! Nothing is ever removed: the folder grows by about 4 bytes per dimension per distinct
//! text (1.5 KB per chunk at 384 dimensions). Delete it to start over.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use strata_core::{CachedVector, Error, Result};
use strata_embed::cache::VectorCache;

/// The file inside the folder.
pub const FILE: &str = "vectors.bin";
const HEADER: &[u8; 8] = b"STRVEC01";
const MARK: &[u8; 4] = b"\xfe\xedVR";
/// Mark, key, flag and dimension.
const HEAD: usize = 4 + 32 + 1 + 4;
const CHECK: usize = 8;
/// Dimensions past this are a damaged record, not a model.
const MAX_DIM: u32 = 1 << 16;

/// Where an entry's vector lies in the file.
#[derive(Debug, Clone, Copy)]
struct Slot {
    offset: u64,
    dim: u32,
    truncated: bool,
}

/// The vectors of one folder, by key.
#[derive(Debug)]
pub struct FolderCache {
    path: PathBuf,
    file: File,
    slots: HashMap<[u8; 32], Slot>,
    /// Records that failed their check when the file was read.
    pub skipped: usize,
}

impl FolderCache {
    /// Opens (creating) the cache in `dir`.
    pub fn open(dir: &Path) -> Result<FolderCache> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("creating the vector cache {}", dir.display()), e))?;
        let path = dir.join(FILE);
        let io = |what: &'static str| {
            let path = path.clone();
            move |e| Error::io(format!("{what} the vector cache {}", path.display()), e)
        };
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io("opening"))?;
        if file.metadata().map_err(io("reading"))?.len() == 0 {
            file.write_all(HEADER).map_err(io("writing"))?;
        }
        let mut header = [0u8; HEADER.len()];
        let whole = file.read_exact_at(&mut header, 0).is_ok();
        if !whole || &header != HEADER {
            return Err(Error::user(format!(
                "{} is not a strata vector cache (its header is not {:?}); give --vector-cache a folder of its own",
                path.display(),
                std::str::from_utf8(HEADER).unwrap_or_default()
            )));
        }
        let (slots, skipped) = scan_file(&file).map_err(io("reading"))?;
        Ok(FolderCache { path, file, slots, skipped })
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Appends the entries it does not hold yet; returns how many.
    pub fn append(&mut self, entries: &[CachedVector]) -> Result<usize> {
        let mut out = Vec::new();
        let mut fresh = Vec::new();
        for entry in entries {
            let Some(key) = raw_key(&entry.key) else { continue };
            if self.slots.contains_key(&key) || fresh.iter().any(|(k, _)| *k == key) {
                continue;
            }
            let start = out.len();
            out.extend_from_slice(MARK);
            out.extend_from_slice(&key);
            out.push(u8::from(entry.truncated));
            out.extend_from_slice(&(entry.values.len() as u32).to_le_bytes());
            out.extend(entry.values.iter().flat_map(|v| v.to_le_bytes()));
            let check = blake3::hash(&out[start..]);
            out.extend_from_slice(&check.as_bytes()[..CHECK]);
            fresh.push((key, (start, entry.values.len() as u32, entry.truncated)));
        }
        if fresh.is_empty() {
            return Ok(0);
        }
        let end =
            self.file.metadata().map_err(|e| Error::io(format!("reading {}", self.path.display()), e))?.len();
        self.file
            .write_all(&out)
            .map_err(|e| Error::io(format!("writing the vector cache {}", self.path.display()), e))?;
        // Another run may have appended meanwhile: this batch starts where the file ends
        // now, which is where the append went unless a record slipped in between; the
        // offsets are checked by reading back.
        let n = fresh.len();
        for (key, (start, dim, truncated)) in fresh {
            let offset = end + (start + HEAD) as u64;
            self.slots.insert(key, Slot { offset, dim, truncated });
        }
        if !self.verify_tail(end, &out)? {
            (self.slots, self.skipped) = scan_file(&self.file)
                .map_err(|e| Error::io(format!("reading {}", self.path.display()), e))?;
        }
        Ok(n)
    }

    /// Whether `out` lies at `end` in the file (no other writer came between).
    fn verify_tail(&self, end: u64, out: &[u8]) -> Result<bool> {
        let mut back = vec![0u8; out.len()];
        match self.file.read_exact_at(&mut back, end) {
            Ok(()) => Ok(back == out),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(Error::io(format!("reading {}", self.path.display()), e)),
        }
    }
}

impl VectorCache for FolderCache {
    fn get(&self, keys: &[String]) -> Result<HashMap<String, CachedVector>> {
        let mut out = HashMap::new();
        for key in keys {
            let Some(slot) = raw_key(key).and_then(|k| self.slots.get(&k)) else { continue };
            let mut bytes = vec![0u8; slot.dim as usize * 4];
            self.file
                .read_exact_at(&mut bytes, slot.offset)
                .map_err(|e| Error::io(format!("reading the vector cache {}", self.path.display()), e))?;
            let values =
                bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            out.insert(key.clone(), CachedVector { key: key.clone(), values, truncated: slot.truncated });
        }
        Ok(out)
    }
}

/// The 32 bytes of a 64-hex-digit key.
fn raw_key(key: &str) -> Option<[u8; 32]> {
    let hex = key.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = [0u8; 32];
    for (i, pair) in hex.chunks_exact(2).enumerate() {
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

/// [`scan`] of the file as it is now, mapped rather than read, so that only the keys and
/// offsets are held.
fn scan_file(file: &File) -> std::io::Result<(HashMap<[u8; 32], Slot>, usize)> {
    // SAFETY: the file is only ever appended to (by this and other eval runs), never
    // truncated or rewritten, so the mapped bytes stay as they were when mapped.
    let map = unsafe { memmap2::Mmap::map(file)? };
    Ok(scan(&map))
}

/// The slots of every record that passes its check, and how many did not.
fn scan(bytes: &[u8]) -> (HashMap<[u8; 32], Slot>, usize) {
    let mut slots = HashMap::new();
    let (mut at, mut skipped) = (HEADER.len(), 0);
    while at + HEAD + CHECK <= bytes.len() {
        match record_at(bytes, at) {
            Some((key, slot, len)) => {
                slots.insert(key, slot);
                at += len;
            }
            None => {
                skipped += 1;
                // On to the next mark after this one.
                at = match bytes[at + 1..].windows(MARK.len()).position(|w| w == MARK) {
                    Some(p) => at + 1 + p,
                    None => bytes.len(),
                };
            }
        }
    }
    (slots, skipped)
}

/// The record at `at`, with its length, when it is whole and passes its check.
fn record_at(bytes: &[u8], at: usize) -> Option<([u8; 32], Slot, usize)> {
    let head = bytes.get(at..at + HEAD)?;
    if &head[..4] != MARK {
        return None;
    }
    let dim = u32::from_le_bytes(head[37..41].try_into().ok()?);
    let flag = head[36];
    if dim == 0 || dim > MAX_DIM || flag > 1 {
        return None;
    }
    let len = HEAD + dim as usize * 4 + CHECK;
    let record = bytes.get(at..at + len)?;
    let (body, check) = record.split_at(len - CHECK);
    if &blake3::hash(body).as_bytes()[..CHECK] != check {
        return None;
    }
    let key: [u8; 32] = head[4..36].try_into().ok()?;
    Some((key, Slot { offset: (at + HEAD) as u64, dim, truncated: flag == 1 }, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: u8, dim: usize) -> CachedVector {
        let key = strata_embed::cache::key("model", &format!("text {n}"));
        CachedVector {
            key,
            values: (0..dim).map(|i| i as f32 + f32::from(n) / 10.0).collect(),
            truncated: n % 2 == 1,
        }
    }

    fn keys(entries: &[CachedVector]) -> Vec<String> {
        entries.iter().map(|e| e.key.clone()).collect()
    }

    #[test]
    fn entries_outlive_the_process_that_wrote_them() {
        let dir = tempfile::tempdir().unwrap();
        let entries: Vec<CachedVector> = (0..5).map(|n| entry(n, 384)).collect();
        let mut cache = FolderCache::open(dir.path()).unwrap();
        assert_eq!(cache.append(&entries).unwrap(), 5);
        assert_eq!(cache.append(&entries[..2]).unwrap(), 0, "held entries are not written twice");
        drop(cache);
        let cache = FolderCache::open(dir.path()).unwrap();
        let got = cache.get(&keys(&entries)).unwrap();
        assert_eq!(got.len(), 5);
        for e in &entries {
            assert_eq!(&got[&e.key], e);
        }
        assert!(cache.get(&[strata_embed::cache::key("other model", "text 1")]).unwrap().is_empty());
    }

    /// kill -9 in the middle of an append leaves a cut record; the records before it are
    /// served, and those a later run appends after it are found again.
    #[test]
    fn a_cut_record_is_skipped_and_later_records_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let entries: Vec<CachedVector> = (0..4).map(|n| entry(n, 8)).collect();
        let mut cache = FolderCache::open(dir.path()).unwrap();
        cache.append(&entries[..2]).unwrap();
        drop(cache);
        let path = dir.path().join(FILE);
        let len = std::fs::metadata(&path).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(len - 5).unwrap();
        let mut cache = FolderCache::open(dir.path()).unwrap();
        assert_eq!((cache.len(), cache.skipped), (1, 1));
        cache.append(&entries[1..]).unwrap();
        drop(cache);
        let cache = FolderCache::open(dir.path()).unwrap();
        assert_eq!((cache.len(), cache.skipped), (4, 1));
        assert_eq!(cache.get(&keys(&entries)).unwrap().len(), 4);
    }

    #[test]
    fn a_damaged_vector_is_never_served() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = FolderCache::open(dir.path()).unwrap();
        cache.append(&[entry(1, 8), entry(2, 8)]).unwrap();
        drop(cache);
        let path = dir.path().join(FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER.len() + HEAD + 3] ^= 0x40;
        std::fs::write(&path, bytes).unwrap();
        let cache = FolderCache::open(dir.path()).unwrap();
        assert_eq!((cache.len(), cache.skipped), (1, 1));
        assert!(cache.get(&[entry(1, 8).key]).unwrap().is_empty());
        assert_eq!(cache.get(&[entry(2, 8).key]).unwrap().len(), 1);
    }

    #[test]
    fn a_file_of_something_else_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), b"not a cache").unwrap();
        let err = FolderCache::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is not a strata vector cache") && err.contains(FILE), "{err}");
    }
}
