//! Pages to gray images, with poppler's `pdftoppm`.
//!
//! Chosen by measurement (`bench/results/ocr.md`): rendering a page at 300 dpi takes
//! poppler a few hundredths of a second, a hundredth of what Tesseract then spends on it, so
//! the renderer is not what OCR waits on; `pdftoppm` is a Debian package (`poppler-utils`)
//! next to `tesseract-ocr`, needs no library bound at build time, and a crash on a hostile
//! page costs that page only, in another process. It writes one page at a time to a pipe
//! as 8-bit gray PGM, so memory holds one page image per OCR worker (8.4 MB for a Letter
//! page at 300 dpi).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::tesseract::Gray;

/// The program.
const PDFTOPPM: &str = "pdftoppm";

/// The PDF's bytes where `pdftoppm` can open them by a path. On Linux that is a memory file
/// (`memfd_create`) that the children inherit, opened as `/dev/fd/N`: nothing is written to
/// disk, and it goes with the process however the process ends (a SIGTERM during OCR left
/// `strata-ocr-*.pdf` files behind). Elsewhere, or when no memory file can be made, a file
/// in the temporary folder, removed when dropped.
pub(crate) struct Source {
    path: PathBuf,
    /// The memory file, closed when dropped; `None` for a file in the temporary folder.
    memory: Option<std::fs::File>,
}

impl Source {
    /// Holds `bytes` for `pdftoppm`.
    pub fn write(bytes: &[u8]) -> std::io::Result<Source> {
        #[cfg(target_os = "linux")]
        if let Some(source) = Source::in_memory(bytes)? {
            return Ok(source);
        }
        Source::in_temp_folder(bytes)
    }

    /// `bytes` in a memory file without close-on-exec, so that `pdftoppm` inherits it;
    /// `None` when the kernel makes none (a sandbox that forbids `memfd_create`).
    #[cfg(target_os = "linux")]
    fn in_memory(bytes: &[u8]) -> std::io::Result<Option<Source>> {
        use std::os::fd::FromRawFd;
        // SAFETY: the name is a NUL-terminated string; a descriptor returned is ours alone.
        let fd = unsafe { libc::memfd_create(c"strata-ocr".as_ptr(), 0) };
        if fd < 0 {
            return Ok(None);
        }
        // SAFETY: `fd` was just created and is owned by nothing else.
        let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
        file.write_all(bytes)?;
        Ok(Some(Source { path: PathBuf::from(format!("/dev/fd/{fd}")), memory: Some(file) }))
    }

    /// `bytes` in a new file in the temporary folder.
    fn in_temp_folder(bytes: &[u8]) -> std::io::Result<Source> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name =
            format!("strata-ocr-{}-{n}-{}.pdf", std::process::id(), &blake3::hash(bytes).to_hex()[..16]);
        let path = std::env::temp_dir().join(name);
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path)?;
        let source = Source { path, memory: None };
        file.write_all(bytes)?;
        Ok(source)
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        if self.memory.is_none() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether `pdftoppm` runs here.
pub(crate) fn available() -> bool {
    Command::new(PDFTOPPM).arg("-v").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// Renders page `number` (1-based, in document order) of `pdf` at `dpi`, as displayed
/// (crop box, rotation), in 8-bit gray; the error says what went wrong. The image is read
/// from the pipe up to `max_pixels` (and its header), and `pdftoppm` is killed when it
/// writes more or takes longer than `deadline`.
pub(crate) fn page(
    pdf: &Path,
    number: u32,
    dpi: u32,
    max_pixels: u64,
    deadline: Duration,
) -> Result<Gray, String> {
    let n = number.to_string();
    let mut command = Command::new(PDFTOPPM);
    command
        .args(["-gray", "-r", &dpi.to_string(), "-f", &n, "-l", &n])
        .arg(pdf)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: `prctl` is async-signal-safe and touches nothing of the parent's.
        unsafe {
            // Killed with strata: a SIGTERM must not leave a renderer running on.
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    let mut child = command.spawn().map_err(|e| format!("pdftoppm could not run ({e})"))?;
    let cap = max_pixels.saturating_add(HEADER_BYTES);
    let stdout = child.stdout.take().map(|out| std::thread::spawn(move || read_up_to(out, cap)));
    let stderr = child.stderr.take().map(|err| std::thread::spawn(move || read_up_to(err, 4096)));
    let status = wait_until(&mut child, deadline);
    let image = stdout.and_then(|t| t.join().ok()).unwrap_or_default();
    let err = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    let status = status.map_err(|()| {
        format!("pdftoppm took more than {} s to render it ([ingest] ocr_render_seconds)", deadline.as_secs())
    })?;
    if image.len() as u64 > cap {
        return Err(format!(
            "pdftoppm wrote more than {max_pixels} pixels of it ([ingest] ocr_max_page_pixels)"
        ));
    }
    if !status.success() {
        let err = String::from_utf8_lossy(&err);
        return Err(format!("pdftoppm failed ({status}): {}", err.trim()));
    }
    pgm(image).ok_or_else(|| "pdftoppm wrote no image".to_string())
}

/// Room for a PGM header before the pixels.
const HEADER_BYTES: u64 = 1024;

/// Up to `cap + 1` bytes of `from` (one more than the cap says it was exceeded); stops
/// reading there, which closes the pipe.
fn read_up_to(from: impl Read, cap: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = from.take(cap.saturating_add(1)).read_to_end(&mut out);
    out
}

/// Waits for `child` until `deadline` has passed, then kills it: `Err` when it was killed.
fn wait_until(child: &mut Child, deadline: Duration) -> Result<ExitStatus, ()> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if started.elapsed() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(());
            }
        }
    }
}

/// Parses a binary 8-bit PGM (`P5`): its pixels are the buffer read, header cut off, not a
/// copy of it (a page image is up to `[ingest] ocr_max_page_pixels` bytes).
fn pgm(mut bytes: Vec<u8>) -> Option<Gray> {
    let (width, height, at) = pgm_header(&bytes)?;
    let size = width.checked_mul(height)?;
    if bytes.len() < at.checked_add(size)? {
        return None;
    }
    bytes.truncate(at + size);
    bytes.drain(..at);
    Some(Gray { width, height, pixels: bytes })
}

/// A `P5` header's width and height, 8 bits a pixel, and where its raster starts.
fn pgm_header(bytes: &[u8]) -> Option<(usize, usize, usize)> {
    let mut fields = Vec::with_capacity(4);
    let mut at = 0;
    while fields.len() < 4 {
        while bytes.get(at)?.is_ascii_whitespace() {
            at += 1;
        }
        if bytes[at] == b'#' {
            while *bytes.get(at)? != b'\n' {
                at += 1;
            }
            continue;
        }
        let start = at;
        while !bytes.get(at)?.is_ascii_whitespace() {
            at += 1;
        }
        fields.push(std::str::from_utf8(&bytes[start..at]).ok()?);
    }
    let (width, height): (usize, usize) = (fields[1].parse().ok()?, fields[2].parse().ok()?);
    // The raster starts after the single whitespace byte that ends the header.
    (fields[0] == "P5" && fields[3] == "255").then_some((width, height, at + 1))
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
        let source = Source::write(b"%PDF-1.4 not really").unwrap();
        assert!(source.path().starts_with("/dev/fd/"), "{}", source.path().display());
        assert_eq!(ours(), 0, "no file of this process in the temporary folder");
        assert_eq!(std::fs::read(source.path()).unwrap(), b"%PDF-1.4 not really");
        // A child process opens it by its path, as pdftoppm does.
        let out = Command::new("cat").arg(source.path()).output().unwrap();
        assert_eq!(out.stdout, b"%PDF-1.4 not really");
    }

    #[test]
    fn pgm_header_with_comment_is_read() {
        let g = pgm(b"P5\n# made here\n3 2\n255\n\x00\x01\x02\x03\x04\x05".to_vec()).unwrap();
        assert_eq!((g.width, g.height, g.pixels), (3, 2, vec![0, 1, 2, 3, 4, 5]));
        assert!(pgm(b"P5\n3 2\n255\n\x00\x01".to_vec()).is_none(), "a short raster is refused");
        assert!(pgm(b"P6\n1 1\n255\n\x00\x00\x00".to_vec()).is_none(), "colour is refused");
    }
}
