//! Ingest jobs: `POST /v1/documents` answers at once with a job; the job runs on the blocking
//! pool through the engine's single writer, and `GET /v1/jobs/{id}` tells how it went.
//!
//! At most `[serve] max_ingest_jobs` jobs are queued or running; more are refused with 429,
//! so a client cannot pile up unbounded work. The last `[serve] keep_jobs` finished jobs keep
//! their status.
//!
//! The table is kept in `INDEX/jobs.json` ([`Journal`]) at every change, and job ids are
//! random, so no id is given twice, across restarts too. At start ([`Jobs::resume`]) a job
//! that a crash cut short is taken up again when it is an upload (its file waits in
//! `INDEX/uploads`) and reported failed, with the reason, when it names paths; then the
//! uploads folder is swept of every file that neither a document nor a job holds.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use strata_engine::ingest::{Roots, Summary};
use strata_engine::{Engine, IngestOptions};

use crate::error::ApiError;
use crate::journal::{Entry, Job, JobState, Journal};

/// The job table.
pub struct Jobs {
    table: Mutex<VecDeque<Entry>>,
    journal: Journal,
    max_active: usize,
    keep: usize,
    /// Set at shutdown: the running ingest takes no further file, and queued jobs none.
    stop: Arc<AtomicBool>,
}

fn active(table: &VecDeque<Entry>) -> usize {
    table.iter().filter(|e| matches!(e.job.state, JobState::Queued | JobState::Running)).count()
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

/// A new job id: never one given before, on this server or another.
fn new_id() -> String {
    format!("job-{}", &uuid::Uuid::new_v4().simple().to_string()[..16])
}

/// What the task of a job does with it.
struct Run {
    id: String,
    inputs: Vec<String>,
    force: bool,
    within: Arc<Roots>,
    upload: Option<PathBuf>,
}

impl Jobs {
    /// The jobs kept in `journal` (as the last run left them; [`Jobs::resume`] takes up the
    /// unfinished ones).
    pub fn open(journal: PathBuf, max_active: usize, keep: usize) -> Jobs {
        let journal = Journal::new(journal);
        let table = journal.load().into();
        Jobs { table: Mutex::new(table), journal, max_active, keep, stop: Arc::new(AtomicBool::new(false)) }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, VecDeque<Entry>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Jobs queued or running.
    pub fn active(&self) -> usize {
        active(&self.table())
    }

    /// Asks the running ingest to stop after the file it is on, and the queued jobs not to
    /// start: what was read is committed, the rest is reported not read (a shutdown); an
    /// upload not started stays queued, to be taken up at the next start.
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
        self.table().iter().find(|e| e.job.id == id).map(|e| e.job.clone())
    }

    /// Every job kept, newest first.
    pub fn list(&self) -> Vec<Job> {
        self.table().iter().rev().map(|e| e.job.clone()).collect()
    }

    /// Changes job `id` and writes the journal.
    fn update(&self, id: &str, f: impl FnOnce(&mut Job)) {
        let mut table = self.table();
        if let Some(entry) = table.iter_mut().find(|e| e.job.id == id) {
            f(&mut entry.job);
        }
        self.journal.save(table.iter());
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
                id: new_id(),
                state: JobState::Queued,
                inputs: inputs.clone(),
                force,
                submitted: now(),
                finished: None,
                summary: None,
                error: None,
                note: None,
            };
            table.push_back(Entry { job: job.clone(), upload: upload.clone() });
            // Forget the oldest finished jobs beyond `keep`.
            while table.len() > self.keep + self.max_active {
                match table.iter().position(|e| matches!(e.job.state, JobState::Done | JobState::Failed)) {
                    Some(i) => drop(table.remove(i)),
                    None => break,
                }
            }
            self.journal.save(table.iter());
            job
        };
        self.start(engine, Run { id: job.id.clone(), inputs, force, within, upload });
        Ok(job)
    }

    /// Runs a queued job on the blocking pool.
    fn start(self: &Arc<Self>, engine: Arc<Engine>, run: Run) {
        let jobs = self.clone();
        tokio::task::spawn_blocking(move || {
            let Run { id, inputs, force, within, upload } = run;
            if jobs.stop.load(Ordering::Relaxed) && upload.is_some() {
                return; // queued still: taken up at the next start
            }
            jobs.update(&id, |j| j.state = JobState::Running);
            tracing::info!(job = %id, inputs = ?inputs, "ingest started");
            let options = IngestOptions {
                force,
                within: Some(within),
                stop: Some(jobs.stop.clone()),
                ..IngestOptions::default()
            };
            let Some(outcome) = ingest(&engine, &inputs, &options, upload.as_deref()) else {
                // An upload stopped before its file: queued still, taken up at the next start.
                jobs.update(&id, |j| j.state = JobState::Queued);
                return;
            };
            jobs.update(&id, |j| finish(j, outcome));
        });
    }

    /// Takes up the jobs a crash or kill cut short (the journal still has them queued or
    /// running): an upload whose file is still staged runs again; a path job, or an upload
    /// whose file is gone, fails with the reason. Then removes from `uploads` every file that
    /// no document and no job holds (uploads of jobs that never wrote the journal, half-written
    /// temporary files).
    pub fn resume(self: &Arc<Self>, engine: &Arc<Engine>, uploads: &Path) {
        let (runs, held) = self.take_up();
        for run in runs {
            tracing::info!(job = %run.id, "taking up an upload the last run of the server did not finish");
            self.start(engine.clone(), run);
        }
        let mut keep: HashSet<String> = held.iter().map(|p| source_path(p)).collect();
        match engine.documents() {
            Ok(docs) => keep.extend(docs.into_iter().map(|d| d.path)),
            Err(e) => {
                tracing::error!(
                    "listing the documents to sweep {}: {e}; the folder is left as it is",
                    uploads.display()
                );
                return;
            }
        }
        crate::uploads::sweep(uploads, &keep);
    }

    /// Marks the unfinished jobs: the uploads to run again, the rest failed. Returns the
    /// runs, and the staged files that jobs still hold.
    fn take_up(&self) -> (Vec<Run>, Vec<PathBuf>) {
        let mut table = self.table();
        let (mut runs, mut held) = (Vec::new(), Vec::new());
        for entry in table.iter_mut() {
            held.extend(entry.upload.iter().cloned());
            if !matches!(entry.job.state, JobState::Queued | JobState::Running) {
                continue;
            }
            let job = &mut entry.job;
            match entry.upload.as_ref().filter(|u| u.is_file()) {
                Some(upload) => {
                    job.state = JobState::Queued;
                    job.note = Some("taken up again after the server restarted".into());
                    match crate::uploads::confine(upload) {
                        Ok(within) => runs.push(Run {
                            id: job.id.clone(),
                            inputs: job.inputs.clone(),
                            force: job.force,
                            within,
                            upload: Some(upload.clone()),
                        }),
                        Err(why) => fail(job, why),
                    }
                }
                None if entry.upload.is_some() => {
                    fail(job, "the server stopped before this upload was ingested, and its file is gone; upload it again".into())
                }
                None => fail(
                    job,
                    "the server stopped (a crash or a kill) before this job finished; what it committed is \
                     in the index (GET /v1/documents), the rest is not: submit the paths again"
                        .into(),
                ),
            }
        }
        self.journal.save(table.iter());
        (runs, held)
    }
}

/// Marks `job` failed at once, for `why`.
fn fail(job: &mut Job, why: String) {
    job.state = JobState::Failed;
    job.finished = Some(now());
    job.error = Some(why);
}

/// Records how a job's ingest went.
fn finish(job: &mut Job, outcome: strata_core::Result<Summary>) {
    job.finished = Some(now());
    match outcome {
        Ok(summary) => {
            tracing::info!(
                job = %job.id, ingested = summary.ingested, unchanged = summary.unchanged,
                failed = summary.failed, "ingest done"
            );
            job.state = JobState::Done;
            job.summary = serde_json::to_value(&summary).ok().map(Arc::new);
        }
        Err(e) => {
            tracing::error!(job = %job.id, "ingest failed: {e:#}");
            job.state = JobState::Failed;
            job.error = Some(format!("{e:#}"));
        }
    }
}

/// The source path of a staged upload, as its document would record it.
fn source_path(upload: &Path) -> String {
    let real = std::fs::canonicalize(upload).unwrap_or_else(|_| upload.to_path_buf());
    strata_core::Source::path_of(&real)
}

/// Runs one job's ingest. A panic fails the job instead of leaving it running forever (and
/// holding one of the job slots). An upload that did not make it into the index is deleted,
/// so failed uploads do not pile up in `INDEX/uploads`; unless the server was stopping, when
/// its file is kept and `None` says so.
fn ingest(
    engine: &Engine,
    inputs: &[String],
    options: &IngestOptions,
    upload: Option<&Path>,
) -> Option<strata_core::Result<Summary>> {
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.ingest_with(inputs, options)))
            .unwrap_or_else(|_| {
                Err(strata_core::Error::Internal("the ingest panicked; see the server log".into()))
            });
    let indexed = matches!(&outcome, Ok(s) if s.ingested + s.unchanged > 0);
    let stopping = options.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
    match upload.filter(|_| !indexed) {
        Some(_) if stopping => return None,
        Some(upload) => discard(upload),
        None => {}
    }
    Some(outcome)
}

/// Deletes the staged file of an upload that will not be ingested.
fn discard(upload: &Path) {
    match std::fs::remove_file(upload) {
        Ok(()) => tracing::info!(path = %upload.display(), "removed a failed upload"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!("removing the failed upload {}: {e}", upload.display()),
    }
}
