//! Bytes a child opens by a path: the PDF that `pdftoppm` renders, the page image that
//! `tesseract` reads.
//!
//! On Linux that is a memory file (`memfd_create`), opened as `/dev/fd/N` by the one child it
//! is shared with: nothing is written to disk, and it goes with the process however the
//! process ends (a SIGTERM during OCR left `strata-ocr-*.pdf` files behind). Elsewhere, or
//! when no memory file can be made, a file in the temporary folder, removed when dropped.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bytes held where a child can open them by [`Source::path`].
pub(crate) struct Source {
    path: PathBuf,
    /// The memory file, closed when dropped; `None` for a file in the temporary folder.
    memory: Option<std::fs::File>,
}

impl Source {
    /// Holds `parts`, one after the other; `extension` names a temporary file's kind.
    pub fn write(parts: &[&[u8]], extension: &str) -> std::io::Result<Source> {
        #[cfg(target_os = "linux")]
        if let Some(source) = Source::in_memory(parts)? {
            return Ok(source);
        }
        Source::in_temp_folder(parts, extension)
    }

    /// `parts` in a memory file, closed on exec except in a child it is shared with; `None`
    /// when the kernel makes none (a sandbox that forbids `memfd_create`).
    #[cfg(target_os = "linux")]
    fn in_memory(parts: &[&[u8]]) -> std::io::Result<Option<Source>> {
        use std::os::fd::FromRawFd;
        // SAFETY: the name is a NUL-terminated string; a descriptor returned is ours alone.
        let fd = unsafe { libc::memfd_create(c"strata-ocr".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Ok(None);
        }
        // SAFETY: `fd` was just created and is owned by nothing else.
        let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
        for part in parts {
            file.write_all(part)?;
        }
        Ok(Some(Source { path: PathBuf::from(format!("/dev/fd/{fd}")), memory: Some(file) }))
    }

    /// `parts` in a new file in the temporary folder.
    fn in_temp_folder(parts: &[&[u8]], extension: &str) -> std::io::Result<Source> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("strata-ocr-{}-{n}.{extension}", std::process::id());
        let path = std::env::temp_dir().join(name);
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path)?;
        let source = Source { path, memory: None };
        for part in parts {
            file.write_all(part)?;
        }
        Ok(source)
    }

    /// Its path, for the child that `command` starts once [`Source::share_with`] it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lets the child that `command` starts open the memory file: it alone inherits it, so
    /// another worker's child does not hold it open.
    pub fn share_with(&self, command: &mut Command) {
        #[cfg(target_os = "linux")]
        if let Some(file) = &self.memory {
            use std::os::fd::AsRawFd;
            use std::os::unix::process::CommandExt;
            let fd = file.as_raw_fd();
            // SAFETY: `fcntl` is async-signal-safe; it changes the child's descriptor table only.
            unsafe {
                command.pre_exec(move || {
                    if libc::fcntl(fd, libc::F_SETFD, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = command;
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        if self.memory.is_none() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 53: a SIGTERM during an OCR ingest left `/tmp/strata-ocr-PID-*.pdf` behind. On
    /// Linux the PDF is held in a memory file: nothing is written to the temporary folder, so
    /// nothing is left there however the process ends.
    #[cfg(target_os = "linux")]
    #[test]
    fn regression_the_pdf_for_ocr_is_a_memory_file_not_a_temp_file() {
        let ours = || {
            std::fs::read_dir(std::env::temp_dir())
                .unwrap()
                .filter_map(|e| e.ok())
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(&format!("strata-ocr-{}-", std::process::id()))
                })
                .count()
        };
        let source = Source::write(&[b"%PDF-1.4 ", b"not really"], "pdf").unwrap();
        assert!(source.path().starts_with("/dev/fd/"), "{}", source.path().display());
        assert_eq!(ours(), 0, "no file of this process in the temporary folder");
        assert_eq!(std::fs::read(source.path()).unwrap(), b"%PDF-1.4 not really");
        // The child it is shared with opens it by its path, as pdftoppm does; another does not.
        let mut cat = Command::new("cat");
        cat.arg(source.path());
        source.share_with(&mut cat);
        assert_eq!(cat.output().unwrap().stdout, b"%PDF-1.4 not really");
        let other = Command::new("cat").arg(source.path()).output().unwrap();
        assert!(!other.status.success() && other.stdout.is_empty(), "not inherited unshared");
    }
}
