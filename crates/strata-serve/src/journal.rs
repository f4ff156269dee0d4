//! A job as clients see it ([`Job`]), and the job table on disk, `INDEX/jobs.json`: the jobs
//! a server accepted outlive it, so an upload accepted before a crash is resumed at the next
//! start, and a client polling a job is never told about another one.
//!
//! The whole table is written at every change of a job's state: to a temporary file in the
//! same folder, synced, then renamed over the old one, so a crash leaves either table whole.
//! It holds `[serve] keep_jobs` finished jobs at most, a few kilobytes each.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Accepted, not started yet.
    Queued,
    /// Started: ingesting, or waiting for the writer while another job or a removal writes.
    Running,
    /// Finished; `summary` tells file by file (some files may have failed).
    Done,
    /// The ingest could not run at all; `error` says why.
    Failed,
}

/// An ingest job.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Job {
    /// Job id: `job-` and 16 random hex digits, never given twice.
    pub id: String,
    /// Where it is.
    pub state: JobState,
    /// What it ingests.
    pub inputs: Vec<String>,
    /// Re-index unchanged files too.
    pub force: bool,
    /// Unix seconds.
    pub submitted: u64,
    /// Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished: Option<u64>,
    /// The ingest summary (`strata ingest --json`), when done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<strata_engine::ingest::Summary>)]
    pub summary: Option<Arc<serde_json::Value>>,
    /// Why the ingest could not run, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What happened to the job besides its ingest: taken up again after a restart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A job as the journal keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The job as clients see it.
    pub job: Job,
    /// The staged file of an upload, its only input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload: Option<PathBuf>,
}

#[derive(Serialize, Deserialize)]
struct Saved {
    /// The format's version.
    version: u32,
    jobs: Vec<Entry>,
}

const VERSION: u32 = 1;

/// The journal at `path`.
pub struct Journal {
    path: PathBuf,
}

impl Journal {
    pub fn new(path: PathBuf) -> Journal {
        Journal { path }
    }

    /// The jobs saved, oldest first. A journal that cannot be read is set aside (renamed
    /// `jobs.json.unreadable`, so nothing is lost) and the server starts with none.
    pub fn load(&self) -> Vec<Entry> {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                tracing::error!("reading the job journal {}: {e}; starting without it", self.path.display());
                return Vec::new();
            }
        };
        match serde_json::from_slice::<Saved>(&bytes) {
            Ok(saved) if saved.version == VERSION => saved.jobs,
            Ok(saved) => {
                self.set_aside(&format!("it is version {}, this build reads {VERSION}", saved.version));
                Vec::new()
            }
            Err(e) => {
                self.set_aside(&e.to_string());
                Vec::new()
            }
        }
    }

    fn set_aside(&self, why: &str) {
        let aside = self.path.with_extension("json.unreadable");
        let moved = std::fs::rename(&self.path, &aside);
        tracing::error!(
            "the job journal {} cannot be read ({why}); {}, and the server starts without its jobs",
            self.path.display(),
            match moved {
                Ok(()) => format!("it was moved to {}", aside.display()),
                Err(e) => format!("moving it aside failed too ({e})"),
            }
        );
    }

    /// Writes `jobs` in place of the journal; an error is logged (the jobs go on in memory).
    pub fn save<'a>(&self, jobs: impl Iterator<Item = &'a Entry>) {
        let saved = Saved { version: VERSION, jobs: jobs.cloned().collect() };
        if let Err(e) = write_whole(&self.path, &saved) {
            tracing::error!(
                "writing the job journal {}: {e}; jobs accepted now may not survive a crash",
                self.path.display()
            );
        }
    }
}

fn write_whole(path: &Path, saved: &Saved) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    serde_json::to_writer(std::io::BufWriter::new(&mut tmp), saved)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str) -> Job {
        Job {
            id: id.into(),
            state: JobState::Queued,
            inputs: vec!["a.md".into()],
            force: false,
            submitted: 1,
            finished: None,
            summary: None,
            error: None,
            note: None,
        }
    }

    #[test]
    fn jobs_read_back_and_a_damaged_journal_is_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::new(dir.path().join("jobs.json"));
        assert!(journal.load().is_empty());
        let entries = [Entry { job: job("job-a"), upload: Some("/i/uploads/a.md".into()) }];
        journal.save(entries.iter());
        let back = journal.load();
        assert_eq!(back.len(), 1);
        assert_eq!(
            (back[0].job.id.as_str(), back[0].upload.as_deref()),
            ("job-a", Some(Path::new("/i/uploads/a.md")))
        );
        std::fs::write(dir.path().join("jobs.json"), "{\"version\": 1, \"jobs\": [").unwrap();
        assert!(journal.load().is_empty());
        assert!(dir.path().join("jobs.json.unreadable").exists());
    }
}
