//! The OCR programs (`pdftoppm`, `tesseract`) run as children under a deadline.
//!
//! A hostile page can make either run for minutes or take gigabytes. In a child process
//! that costs the page only: its output is read up to a cap, and at the deadline it is
//! killed, whatever it is doing (Tesseract's own deadline does not reach its layout
//! analysis). A child dies with strata too (`PR_SET_PDEATHSIG`), so a SIGTERM leaves no
//! renderer or recognizer running on.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a child that ended in time wrote.
pub(crate) struct Finished {
    pub status: ExitStatus,
    /// Its standard output, up to one byte more than the cap (which says it wrote more).
    pub stdout: Vec<u8>,
    /// The start of its standard error.
    pub stderr: Vec<u8>,
}

/// Why a child gave no [`Finished`].
#[derive(Debug)]
pub(crate) enum Failed {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It ran past the deadline and was killed.
    Deadline,
}

impl Failed {
    /// What went wrong, for the page's warning: `program` could not run, or took longer
    /// than `deadline` to do `task`, which `[ingest] setting` raises.
    pub fn message(&self, program: &str, task: &str, setting: &str, deadline: Duration) -> String {
        match self {
            Failed::Spawn(e) => format!("{program} could not run ({e})"),
            Failed::Deadline => {
                format!("{program} took more than {} s to {task} ([ingest] {setting})", deadline.as_secs())
            }
        }
    }
}

/// Runs `command` with no standard input, reads up to `stdout_cap` bytes of its output,
/// and kills it at `deadline`.
pub(crate) fn run(mut command: Command, stdout_cap: u64, deadline: Duration) -> Result<Finished, Failed> {
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    dies_with_parent(&mut command);
    let mut child = command.spawn().map_err(Failed::Spawn)?;
    let stdout = child.stdout.take().map(|out| std::thread::spawn(move || read_up_to(out, stdout_cap)));
    let stderr = child.stderr.take().map(|err| std::thread::spawn(move || read_up_to(err, 4096)));
    let status = wait_until(&mut child, deadline);
    let stdout = stdout.and_then(|t| t.join().ok()).unwrap_or_default();
    let stderr = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    Ok(Finished { status: status.ok_or(Failed::Deadline)?, stdout, stderr })
}

/// Has the child killed when strata ends (Linux; elsewhere a no-op).
fn dies_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: `prctl` is async-signal-safe and touches nothing of the parent's.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Up to `cap + 1` bytes of `from` (one more than the cap says it was exceeded); stops
/// reading there, which closes the pipe.
fn read_up_to(from: impl Read, cap: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = from.take(cap.saturating_add(1)).read_to_end(&mut out);
    out
}

/// Waits for `child` until `deadline` has passed, then kills it: `None` when it was killed.
fn wait_until(child: &mut Child, deadline: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if started.elapsed() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_past_its_deadline_is_killed() {
        let mut sleep = Command::new("sleep");
        sleep.arg("30");
        let started = Instant::now();
        assert!(matches!(run(sleep, 16, Duration::from_millis(50)), Err(Failed::Deadline)));
        assert!(started.elapsed() < Duration::from_secs(10), "killed, not waited for");
    }

    #[test]
    fn output_is_read_up_to_one_byte_past_its_cap() {
        let mut yes = Command::new("yes");
        yes.arg("strata");
        let done = run(yes, 100, Duration::from_secs(30)).unwrap();
        // `yes` ends on the closed pipe once 101 bytes are read.
        assert_eq!(done.stdout.len(), 101);
    }
}
