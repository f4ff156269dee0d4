//! Fresh databases on a real PostgreSQL server for each test.
//!
//! `STRATA_TEST_POSTGRES_URL` names a server with pgvector (`scripts/postgres.sh start`
//! prints one); each test creates its own database there and drops it afterwards. Without the
//! variable the tests skip with a message, unless `STRATA_REQUIRE_POSTGRES=1` (CI sets it), in
//! which case they fail.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};

use postgres::{Client, NoTls};

/// A database that is dropped with this value.
pub struct TestDb {
    pub url: String,
    admin: String,
    name: String,
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Ok(mut c) = Client::connect(&self.admin, NoTls) {
            let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}

/// The server URL from the environment, or `None` (skip) with a message.
pub fn server(test: &str, var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("STRATA_REQUIRE_POSTGRES").as_deref() == Ok("1") => {
            panic!("{test}: {var} is not set but STRATA_REQUIRE_POSTGRES=1; start a server with scripts/postgres.sh")
        }
        _ => {
            eprintln!("skipping {test}: set {var} to a PostgreSQL server with pgvector (scripts/postgres.sh start NAME PORT)");
            None
        }
    }
}

/// `url` with its database replaced by `name`.
pub fn with_db(url: &str, name: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a URL ending in /DATABASE");
    format!("{base}/{name}")
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A new, empty database on the server at `url`.
pub fn fresh(url: &str, prefix: &str) -> TestDb {
    let name = format!("{prefix}_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let admin = with_db(url, "postgres");
    let mut c = Client::connect(&admin, NoTls).expect("connecting to the test server");
    // One statement per call: multi-statement strings run as one transaction block.
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .expect("dropping a test database");
    c.batch_execute(&format!("CREATE DATABASE {name}")).expect("creating a test database");
    TestDb { url: with_db(url, &name), admin, name }
}
