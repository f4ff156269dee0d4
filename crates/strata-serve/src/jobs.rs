//! Ingest jobs: `POST /v1/documents` answers at once with a job; the job runs on the blocking
//! pool through the engine's single writer, and `GET /v1/jobs/{id}` tells how it went.
//!
//! At most `[serve] max_ingest_jobs` jobs are queued or running; more are refused with 429,
//! so a client cannot pile up unbounded work. The last `[serve] keep_jobs` finished jobs keep
//! their status.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use serde::Serialize;
use strata_engine::ingest::{Roots, Summary};
use strata_engine::{Engine, IngestOptions};

use crate::error::ApiError;

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
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
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Job {
    /// Job id.
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished: Option<u64>,
    /// The ingest summary (`strata ingest --json`), when done.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<strata_engine::ingest::Summary>)]
    pub summary: Option<Arc<serde_json::Value>>,
    /// Why the ingest could not run, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The job table.
pub struct Jobs {
    table: Mutex<Table>,
    max_active: usize,
    keep: usize,
    /// Set at shutdown: the running ingest takes no further file, and queued jobs none.
    stop: Arc<AtomicBool>,
}

struct Table {
    next: u64,
    jobs: VecDeque<Job>,
}

fn active(table: &Table) -> usize {
    table.jobs.iter().filter(|j| matches!(j.state, JobState::Queued | JobState::Running)).count()
}

fn room(active: usize, max: usize) -> Result<(), ApiError> {
    if active < max {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_jobs",
        format!(
            "{active} ingest jobs are queued or running, the most this server takes ([serve] max_ingest_jobs); \
             retry when one finishes (GET /v1/jobs)"
        ),
    ))
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

impl Jobs {
    pub fn new(max_active: usize, keep: usize) -> Jobs {
        Jobs {
            table: Mutex::new(Table { next: 1, jobs: VecDeque::new() }),
            max_active,
            keep,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Jobs queued or running.
    pub fn active(&self) -> usize {
        active(&self.table())
    }

    /// Asks the running ingest to stop after the file it is on, and the queued jobs not to
    /// start: what was read is committed, the rest is reported not read (a shutdown).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Refuses with 429 when no job can be accepted now (checked before an upload is
    /// written, and again when the job is submitted).
    pub fn check_room(&self) -> Result<(), ApiError> {
        room(active(&self.table()), self.max_active)
    }

    /// One job.
    pub fn get(&self, id: &str) -> Option<Job> {
        self.table().jobs.iter().find(|j| j.id == id).cloned()
    }

    /// Every job kept, newest first.
    pub fn list(&self) -> Vec<Job> {
        self.table().jobs.iter().rev().cloned().collect()
    }

    fn update(&self, id: &str, f: impl FnOnce(&mut Job)) {
        if let Some(job) = self.table().jobs.iter_mut().find(|j| j.id == id) {
            f(job);
        }
    }

    /// Queues an ingest of `inputs` and starts it on the blocking pool. Each input is one
    /// file, read only if the file opened lies under `within`. `upload` is the staged file of
    /// an upload (its only input), deleted if the job is refused or the file is not ingested.
    pub fn submit(
        self: &Arc<Self>,
        engine: Arc<Engine>,
        inputs: Vec<String>,
        force: bool,
        within: Arc<Roots>,
        upload: Option<PathBuf>,
    ) -> Result<Job, ApiError> {
        let job = {
            let mut table = self.table();
            room(active(&table), self.max_active).inspect_err(|_| upload.iter().for_each(|u| discard(u)))?;
            let job = Job {
                id: format!("job-{}", table.next),
                state: JobState::Queued,
                inputs: inputs.clone(),
                force,
                submitted: now(),
                finished: None,
                summary: None,
                error: None,
            };
            table.next += 1;
            table.jobs.push_back(job.clone());
            // Forget the oldest finished jobs beyond `keep`.
            while table.jobs.len() > self.keep + self.max_active {
                match table.jobs.iter().position(|j| matches!(j.state, JobState::Done | JobState::Failed)) {
                    Some(i) => {
                        table.jobs.remove(i);
                    }
                    None => break,
                }
            }
            job
        };
        let (jobs, id) = (self.clone(), job.id.clone());
        tokio::task::spawn_blocking(move || {
            jobs.update(&id, |j| j.state = JobState::Running);
            tracing::info!(job = %id, inputs = ?inputs, "ingest started");
            let options = IngestOptions {
                force,
                within: Some(within),
                stop: Some(jobs.stop.clone()),
                ..IngestOptions::default()
            };
            let outcome = ingest(&engine, &inputs, &options, upload.as_deref());
            jobs.update(&id, |j| {
                j.finished = Some(now());
                match outcome {
                    Ok(summary) => {
                        tracing::info!(
                            job = %j.id, ingested = summary.ingested, unchanged = summary.unchanged,
                            failed = summary.failed, "ingest done"
                        );
                        j.state = JobState::Done;
                        j.summary = serde_json::to_value(&summary).ok().map(Arc::new);
                    }
                    Err(e) => {
                        tracing::error!(job = %j.id, "ingest failed: {e:#}");
                        j.state = JobState::Failed;
                        j.error = Some(format!("{e:#}"));
                    }
                }
            });
        });
        Ok(job)
    }
}

/// Runs one job's ingest. A panic fails the job instead of leaving it running forever (and
/// holding one of the job slots). An upload that did not make it into the index is deleted,
/// so failed uploads do not pile up in `INDEX/uploads`.
fn ingest(
    engine: &Engine,
    inputs: &[String],
    options: &IngestOptions,
    upload: Option<&Path>,
) -> strata_core::Result<Summary> {
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.ingest_with(inputs, options)))
            .unwrap_or_else(|_| {
                Err(strata_core::Error::Internal("the ingest panicked; see the server log".into()))
            });
    let indexed = matches!(&outcome, Ok(s) if s.ingested + s.unchanged > 0);
    if let Some(upload) = upload.filter(|_| !indexed) {
        discard(upload);
    }
    outcome
}

/// Deletes the staged file of an upload that will not be ingested.
fn discard(upload: &Path) {
    match std::fs::remove_file(upload) {
        Ok(()) => tracing::info!(path = %upload.display(), "removed a failed upload"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!("removing the failed upload {}: {e}", upload.display()),
    }
}
