//! Re-ingest, change, remove, incompatible settings, and a kill -9 in the middle of an ingest.

mod common;

use std::fs;
use std::time::{Duration, Instant};

use common::{corpus, json, strata, strata_env};

fn hits(index: &std::path::Path, query: &str) -> usize {
    json(index, &["search", query, "--mode", "keyword"])["hits"].as_array().unwrap().len()
}

#[test]
fn reingest_skips_unchanged_replaces_changed_and_remove_deletes_everything() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let file = dir.path().join("policy.md");
    fs::write(&file, "# Policy\n\n## 1. Definitions\n\n\"Gizmo\" means an old device.\n\n## 2. Rules\n\nA gizmo shall be blue. See Section 1.\n").unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(json(&index, &["ingest", f])["ingested"], 1);
    assert_eq!(json(&index, &["ingest", f])["unchanged"], 1);
    assert_eq!(hits(&index, "blue"), 1);

    fs::write(&file, "# Policy\n\n## 1. Definitions\n\n\"Sprocket\" means a new device.\n\n## 2. Rules\n\nA sprocket shall be green.\n").unwrap();
    assert_eq!(json(&index, &["ingest", f])["ingested"], 1);
    assert_eq!(hits(&index, "blue"), 0, "stale chunks survived a re-ingest");
    assert_eq!(hits(&index, "green"), 1);
    assert_eq!(json(&index, &["define", "sprocket"]).as_array().unwrap().len(), 1);
    let out = strata(&index, &["define", "gizmo"]);
    assert!(!out.status.success(), "stale definition survived a re-ingest");
    let refs = json(&index, &["refs", "policy"]);
    assert!(refs["outgoing"].as_array().unwrap().is_empty(), "stale reference survived: {refs:#}");

    json(&index, &["remove", "policy"]);
    assert!(json(&index, &["docs"]).as_array().unwrap().is_empty());
    assert_eq!(hits(&index, "green"), 0);
    assert!(!strata(&index, &["define", "sprocket"]).status.success());
}

#[test]
fn opening_with_other_chunk_settings_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let file = dir.path().join("a.md");
    fs::write(&file, "# A\n\ntext\n").unwrap();
    json(&index, &["ingest", file.to_str().unwrap()]);
    let out = strata_env(&index, &["ingest", file.to_str().unwrap()], &[("STRATA_CHUNK_MAX_TOKENS", "256")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("chunk.max_tokens = 512 (config: 256)"), "{err}");
}

/// `kill -9` during an ingest leaves the last commit readable, and re-running the ingest
/// completes the job.
#[test]
fn kill_9_mid_ingest_leaves_the_last_commit_readable() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir(&docs).unwrap();
    // Many documents, so that the kill lands between commits.
    let sources: Vec<_> = [
        "html/usc-title09-arbitration.htm",
        "markdown/uslm-user-guide.md",
        "txt/rfc7231-http11-semantics.txt",
    ]
    .iter()
    .map(|p| corpus.join(p))
    .collect();
    let mut n = 0;
    for round in 0..12 {
        for s in &sources {
            let name = format!("{round:02}-{}", s.file_name().unwrap().to_str().unwrap());
            fs::copy(s, docs.join(name)).unwrap();
            n += 1;
        }
    }
    let index = dir.path().join("index");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("--index")
        .arg(&index)
        .args(["ingest", "--quiet", docs.to_str().unwrap()])
        .env("STRATA_INGEST_COMMIT_EVERY", "2")
        .env("STRATA_DENSE_ENABLED", "false")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first commit, then kill without warning.
    let started = Instant::now();
    loop {
        let out = strata(&index, &["--json", "docs"]);
        if out.status.success() {
            let docs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            if !docs.as_array().unwrap().is_empty() {
                break;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no commit within 120 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    let committed = json(&index, &["docs"]).as_array().unwrap().len();
    eprintln!("killed ({status}) with {committed} of {n} documents committed");
    assert!(committed >= 1);
    // Searching the committed state works.
    assert!(hits(&index, "arbitration") + hits(&index, "legislative") + hits(&index, "request") > 0);
    // Re-running completes the job.
    let summary = json(&index, &["ingest", "--quiet", docs.to_str().unwrap()]);
    assert_eq!(summary["failed"], 0);
    assert_eq!(json(&index, &["docs"]).as_array().unwrap().len(), n);
}

/// Regression: `strata ingest dir dir/a.md` named one file twice and ingested it twice.
#[test]
fn regression_same_file_named_twice_is_ingested_once() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir(&docs).unwrap();
    fs::write(docs.join("a.md"), "# A\n\ntext\n").unwrap();
    fs::write(docs.join("skipped.png"), b"\x89PNG").unwrap();
    let index = dir.path().join("index");
    let a = docs.join("a.md");
    let summary = json(&index, &["ingest", docs.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(summary["files"], 1, "{summary:#}");
    assert_eq!(summary["ingested"], 1);
}

/// Two files with the same name in different folders get different ids and both stay.
#[test]
fn same_file_name_in_two_folders_keeps_both() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["one", "two"] {
        fs::create_dir(dir.path().join(sub)).unwrap();
        fs::write(dir.path().join(sub).join("README.md"), format!("# {sub}\n\ntext {sub}\n")).unwrap();
    }
    let index = dir.path().join("index");
    json(
        &index,
        &["ingest", dir.path().join("one").to_str().unwrap(), dir.path().join("two").to_str().unwrap()],
    );
    assert_eq!(json(&index, &["docs"]).as_array().unwrap().len(), 2);
}

/// Issue 23: flipped bytes in a segment's term dictionary made a search panic inside
/// tantivy's FST reader (a backtrace in the CLI, a 500 "task panicked" from the server), and
/// nothing could tell a damaged index from a sound one. `strata check` names the damaged
/// file and the repair, and a search fails with an error that names the check, never a panic.
#[test]
fn corrupted_term_dictionary_is_named_by_check_and_never_panics_a_search() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let file = dir.path().join("policy.md");
    let rules: String = (0..300)
        .map(|i| {
            format!("## {i}. Rule\n\nThe widget{i} shall be inspected by inspector{i} every {i} days.\n\n")
        })
        .collect();
    fs::write(&file, format!("# Policy\n\n{rules}")).unwrap();
    json(&index, &["ingest", file.to_str().unwrap()]);
    let sound = strata(&index, &["check"]);
    let stdout = String::from_utf8_lossy(&sound.stdout);
    assert!(sound.status.success() && stdout.contains("sound"), "{stdout}");

    let mut flipped = 0;
    for entry in fs::read_dir(index.join("tantivy")).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "term") {
            let mut bytes = fs::read(&path).unwrap();
            let (from, to) = (bytes.len() / 4, (bytes.len() / 4 + 256).min(bytes.len() - 16));
            bytes[from..to].iter_mut().for_each(|b| *b ^= 0xA5);
            fs::write(&path, bytes).unwrap();
            flipped += 1;
        }
    }
    assert!(flipped > 0, "no term dictionary in {}", index.display());

    let damaged = strata(&index, &["check"]);
    let stdout = String::from_utf8_lossy(&damaged.stdout);
    assert_eq!(damaged.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(".term: checksum mismatch") && stdout.contains("repair:"), "{stdout}");
    for query in ["widget17", "inspector", "widget shall be inspected"] {
        let out = strata(&index, &["search", query, "--mode", "keyword"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "a search panicked: {stderr}");
        assert!(out.status.success() || stderr.contains("strata check"), "{stderr}");
    }
}

/// Issue 23, finding 6: an ingest that filled the disk failed with a clear error and kept the
/// last commit readable, but the segment files of its failed commit (5.1 MB on a 6 MB volume)
/// stayed behind, so every later ingest or removal failed with ENOSPC until the disk grew. A
/// failed commit now rolls back and removes them: the free space comes back, and the next
/// ingest and removal on the same volume succeed.
#[test]
fn regression_disk_full_ingest_leaves_no_orphaned_segments_and_the_next_ingest_succeeds() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let Some(volume) = Tmpfs::mount(&dir.path().join("volume"), "6m") else { return };
    let index = volume.path.join("index");
    let file = |p: &str| corpus.join(p).to_str().unwrap().to_string();
    let small =
        [file("markdown/rust-book-ch19-03-pattern-syntax.md"), file("markdown/uslm-2.0-review-guide.md")];
    let summary = json(&index, &["ingest", &small[0], &small[1]]);
    assert_eq!(summary["ingested"], 2, "{summary:#}");
    let before = free_bytes(&volume.path);

    // 4 MB of sources, whose records need about 7 MB, in one commit.
    let large = [
        "html/usc-title35-patents.htm",
        "txt/rfc3261-sip.txt",
        "html/bash-reference-manual.html",
        "html/rfc9110-http-semantics.html",
    ];
    let mut args = vec!["ingest".to_string()];
    args.extend(large.iter().map(|p| file(p)));
    let out = strata(&index, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the ingest fit on the volume: {stderr}");
    assert!(stderr.contains(index.to_str().unwrap()), "the error names the index: {stderr}");
    assert!(
        stderr.to_lowercase().contains("no space left on device"),
        "the error says the disk is full: {stderr}"
    );
    assert!(stderr.contains("free space"), "the error names the fix: {stderr}");

    // The last commit is intact, and the failed one left no files behind.
    let ids = |index: &std::path::Path| -> Vec<String> {
        let docs = json(index, &["docs"]);
        docs.as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(ids(&index).len(), 2, "{:?}", ids(&index));
    assert!(hits(&index, "pattern") > 0);
    let after = free_bytes(&volume.path);
    assert!(
        after + 64 * 1024 >= before,
        "the failed ingest left {} KiB behind ({} KiB free before it, {} KiB after)",
        (before - after) / 1024,
        before / 1024,
        after / 1024
    );

    // Later writes on the same volume succeed.
    let summary = json(&index, &["ingest", &file("markdown/uslm-user-guide.md")]);
    assert_eq!(summary["ingested"], 1, "{summary:#}");
    let first = ids(&index).into_iter().find(|id| id.starts_with("rust-book")).unwrap();
    let out = strata(&index, &["remove", &first]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(ids(&index).len(), 2);
}

/// A disk that something else filled fails an ingest at its first document (tantivy reports
/// only that its indexing thread stopped), with the same error that names the full disk and
/// the fix; once space is freed, the same ingest succeeds.
#[test]
fn an_ingest_on_a_disk_filled_by_another_file_names_the_full_disk_and_recovers_once_freed() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let Some(volume) = Tmpfs::mount(&dir.path().join("volume"), "6m") else { return };
    let index = volume.path.join("index");
    let first = corpus.join("markdown/rust-book-ch19-03-pattern-syntax.md");
    assert_eq!(json(&index, &["ingest", first.to_str().unwrap()])["ingested"], 1);
    let filler = volume.path.join("filler");
    let zeros = vec![0u8; 64 * 1024];
    let mut f = fs::File::create(&filler).unwrap();
    while std::io::Write::write_all(&mut f, &zeros).is_ok() {}
    drop(f);

    let second = corpus.join("markdown/uslm-2.0-review-guide.md");
    let out = strata(&index, &["ingest", second.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("no space left on device") && stderr.contains("free space"), "{stderr}");
    assert_eq!(json(&index, &["docs"]).as_array().unwrap().len(), 1);

    fs::remove_file(&filler).unwrap();
    assert_eq!(json(&index, &["ingest", second.to_str().unwrap()])["ingested"], 1);
    assert_eq!(json(&index, &["docs"]).as_array().unwrap().len(), 2);
}

/// A tmpfs mounted for one test and unmounted when dropped, also when the test fails.
struct Tmpfs {
    path: std::path::PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`mount`'s syntax, e.g. `6m`) at `path`; `None`, with the
    /// reason printed, where this is not possible (not Linux, not root).
    fn mount(path: &std::path::Path, size: &str) -> Option<Tmpfs> {
        if !cfg!(target_os = "linux") {
            eprintln!("skipping: mounting a small tmpfs needs Linux");
            return None;
        }
        fs::create_dir_all(path).unwrap();
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(path)
            .output();
        match out {
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

/// Bytes an unprivileged user may still write on the volume that holds `path`.
#[cfg(unix)]
fn free_bytes(path: &std::path::Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path and `stat` a writable statvfs that outlives the call.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut stat) }, 0, "statvfs {}", path.display());
    stat.f_bavail as u64 * stat.f_frsize as u64
}

#[cfg(not(unix))]
fn free_bytes(_: &std::path::Path) -> u64 {
    unreachable!("Tmpfs::mount skips the test off Linux")
}
