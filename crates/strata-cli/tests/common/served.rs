//! `strata serve` as a child process on an ephemeral loopback port, its stderr kept, and
//! what the tests read of it: threads, memory, its exit on SIGTERM.

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `strata serve`.
pub struct Served {
    pub child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    stderr: Arc<Mutex<String>>,
}

/// Starts `strata --index INDEX serve --addr 127.0.0.1:0 ARGS…` with `STRATA_API_KEYS=key`
/// and `env`, and waits until it listens.
pub fn serve(index: &Path, args: &[&str], key: &str, env: &[(&str, &str)]) -> Served {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
    cmd.arg("--index").arg(index).args(["serve", "--addr", "127.0.0.1:0"]).args(args);
    cmd.env_remove("STRATA_INDEX").env_remove("STRATA_CONFIG").env("STRATA_API_KEYS", key);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.stderr(Stdio::piped()).stdout(Stdio::null()).spawn().expect("starting strata serve");
    let stderr = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::io::BufReader::new(child.stderr.take().unwrap());
    let log = stderr.clone();
    std::thread::spawn(move || {
        for line in reader.lines().map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("listening on http://") {
                let _ = tx.send(addr.to_string());
            }
            let mut log = log.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    let addr = rx.recv_timeout(Duration::from_secs(120)).unwrap_or_else(|_| {
        panic!("strata serve did not start: {}", stderr.lock().unwrap());
    });
    Served { child, addr, stderr }
}

impl Served {
    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// What it logged so far.
    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// A line of `/proc/PID/status` (`Threads`, `VmRSS`), as a number.
    fn status(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("no {field}"));
        line[field.len() + 1..].split_whitespace().next().unwrap().parse().unwrap()
    }

    /// Its threads now.
    pub fn threads(&self) -> u64 {
        self.status("Threads")
    }

    /// Its resident memory now, in MB.
    pub fn rss_mb(&self) -> u64 {
        self.status("VmRSS") / 1024
    }

    /// SIGTERM, then the exit status, how long it took, and everything it logged.
    pub fn stop(mut self) -> (ExitStatus, Duration, String) {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > Duration::from_secs(60) {
                let _ = self.child.kill();
                panic!("strata serve did not stop within 60 s of SIGTERM: {}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let took = started.elapsed();
        std::thread::sleep(Duration::from_millis(100));
        (status, took, self.log())
    }

    /// SIGKILL, as a crash would, and waits for the process to go.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}
