//! Opening a source file, for ingest and for serving it back.
//!
//! A path is a name, not a file: between a check of the path and its open, a symlink, a FIFO
//! or a device can take the file's place. So a file is opened once and everything is checked
//! on what was opened:
//! - the open never blocks (`O_NONBLOCK`: a FIFO opens at once instead of waiting for a
//!   writer);
//! - its type comes from `fstat` of the open file: only regular files pass;
//! - its real path is the canonical path whose file is the open one (same device and inode,
//!   checked after resolving), so a caller that confines reads to some folders
//!   ([`Roots`]) checks the file it holds, not the name it was given.

use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

/// A regular file, open at its start.
#[derive(Debug)]
pub struct Opened {
    /// The file.
    pub file: File,
    /// Its metadata, from the open file.
    pub meta: Metadata,
    /// Its canonical path: every symlink resolved, and the file there is the open one.
    pub real: PathBuf,
}

/// Why a file could not be opened as a source.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Nothing at the path.
    #[error("no such file")]
    Missing,
    /// A device, FIFO, socket or folder.
    #[error(
        "it is {0}, not a regular file; strata reads only regular files, so copy what it holds into one"
    )]
    NotRegular(&'static str),
    /// The path named another file once it was resolved: it was replaced while it was opened.
    #[error("it was replaced while it was opened (a rename or a symlink swapped in); try again")]
    Replaced,
    /// Anything else the system refused.
    #[error("cannot open: {0}")]
    Io(#[from] std::io::Error),
}

/// Opens `path` (symlinks followed) as a regular file, without blocking, and finds the real
/// path of the file opened.
pub fn open(path: &Path) -> Result<Opened, OpenError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| refused(path, e))?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(OpenError::NotRegular(kind_of(&meta.file_type())));
    }
    let real = std::fs::canonicalize(path).map_err(|_| OpenError::Replaced)?;
    let there = std::fs::metadata(&real).map_err(|_| OpenError::Replaced)?;
    if !same_file(&meta, &there) {
        return Err(OpenError::Replaced);
    }
    Ok(Opened { file, meta, real })
}

/// Why an open failed, in the terms of [`OpenError`]: a socket cannot be opened at all, so
/// its kind is told from the path.
fn refused(path: &Path, e: std::io::Error) -> OpenError {
    if e.kind() == std::io::ErrorKind::NotFound {
        return OpenError::Missing;
    }
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => OpenError::NotRegular(kind_of(&meta.file_type())),
        _ => OpenError::Io(e),
    }
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    (a.len(), a.modified().ok()) == (b.len(), b.modified().ok())
}

/// What a file that is not a regular one is, in words.
fn kind_of(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        } else if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        } else if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "neither a file nor a folder"
    }
}

/// The folders files may be read from (a server's `[serve] roots`), canonical.
#[derive(Debug, Clone, Default)]
pub struct Roots(Vec<PathBuf>);

impl Roots {
    /// Canonicalizes each of `roots`; the error names the one that cannot be.
    pub fn new(roots: &[PathBuf]) -> Result<Roots, (PathBuf, std::io::Error)> {
        roots
            .iter()
            .map(|root| std::fs::canonicalize(root).map_err(|e| (root.clone(), e)))
            .collect::<Result<_, _>>()
            .map(Roots)
    }

    /// The roots, canonical.
    pub fn list(&self) -> &[PathBuf] {
        &self.0
    }

    /// Whether the canonical path `real` lies under a root.
    pub fn contains(&self, real: &Path) -> bool {
        self.0.iter().any(|root| real.starts_with(root))
    }

    /// The roots, for a message.
    pub fn describe(&self) -> String {
        self.0.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn regular_files_open_with_their_real_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("a.md"), dir.path().join("link.md")).unwrap();
        let real = std::fs::canonicalize(dir.path().join("a.md")).unwrap();
        assert_eq!(open(&dir.path().join("a.md")).unwrap().real, real);
        assert_eq!(open(&dir.path().join("link.md")).unwrap().real, real, "symlinks are followed");
    }

    /// A FIFO opens without a writer (the open would block forever otherwise) and is refused;
    /// so are a device, a folder and a socket.
    #[test]
    fn fifos_devices_folders_and_sockets_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.md");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let socket = dir.path().join("sock.md");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        for (path, kind) in [
            (fifo, "a FIFO (named pipe)"),
            (PathBuf::from("/dev/zero"), "a device"),
            (dir.path().to_path_buf(), "a folder"),
            (socket, "a socket"),
        ] {
            match open(&path) {
                Err(OpenError::NotRegular(k)) => assert_eq!(k, kind, "{}", path.display()),
                other => panic!("{}: {other:?}", path.display()),
            }
        }
        assert!(matches!(open(&dir.path().join("missing.md")), Err(OpenError::Missing)));
    }

    #[test]
    fn roots_hold_what_lies_under_them() {
        let root = tempfile::tempdir().unwrap();
        let roots = Roots::new(&[root.path().to_path_buf()]).unwrap();
        let inside = std::fs::canonicalize(root.path()).unwrap().join("x.md");
        assert!(roots.contains(&inside));
        assert!(!roots.contains(Path::new("/etc/passwd")));
        assert!(Roots::new(&[root.path().join("missing")]).is_err());
    }
}
