//! The Milvus client: the async SDK on a runtime of its own, behind the blocking calls the
//! store makes, with errors that name the server and the fix.

use std::collections::BTreeSet;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use milvus::v2::prelude::*;
use milvus::v2::{self as sdk};
use strata_core::Error;

use crate::rows::{field, Row, MAX_KEY, MAX_LIMIT};
use crate::MilvusOptions;

/// Rows per upsert call.
const BATCH: usize = 1000;

/// The most bytes of rows one query reads back: the gRPC client refuses messages over 4 MiB.
const READ_BYTES: usize = 2 << 20;

/// A connection to one Milvus server.
pub(crate) struct Engine {
    /// `None` only while dropping (see `Drop`).
    runtime: Option<tokio::runtime::Runtime>,
    client: ClientV2,
    url: String,
    /// What errors are reported against: the side index's folder.
    dir: PathBuf,
}

impl Engine {
    /// Connects to the server of `options`.
    pub fn connect(options: &MilvusOptions, dir: &Path) -> strata_core::Result<Engine> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("strata-milvus")
            .enable_all()
            .build()
            .map_err(|e| Error::io("starting the Milvus client's runtime", e))?;
        let mut config = ConnectConfig::new()
            .uri(&options.url)
            .connect_timeout(Duration::from_secs(5))
            .rpc_timeout(options.timeout)
            // A server that is down fails the call within seconds, not after minutes of
            // retries (the SDK's default is 75 attempts); a slow call has `timeout` in all.
            .retry(RetryConfig::new().max_attempts(4).max_retry_timeout(options.timeout))
            .telemetry(TelemetryConfig::new().enabled(false));
        if let Some(token) = &options.token {
            config = config.token(token);
        }
        let url = crate::options::redact(&options.url);
        let client = runtime
            .block_on(ClientV2::new(&config))
            .map_err(|e| Self::error_at(dir, &url, "connecting", e))?;
        Ok(Engine { runtime: Some(runtime), client, url, dir: dir.to_path_buf() })
    }

    fn block<F: Future>(&self, f: F) -> F::Output {
        self.runtime.as_ref().expect("runtime lives until drop").block_on(f)
    }

    /// Whether `e` means the server is gone (down, unreachable, not answering), not that it
    /// refused the request.
    fn is_lost(e: &sdk::error::Error) -> bool {
        match e {
            sdk::error::Error::Grpc(status) => matches!(
                status.code(),
                tonic::Code::Unavailable | tonic::Code::Cancelled | tonic::Code::DeadlineExceeded
            ),
            sdk::error::Error::Timeout(_) => true,
            sdk::error::Error::RetryExhausted { source, .. } => Self::is_lost(source),
            _ => false,
        }
    }

    /// Whether `e` is the server refusing who we are.
    fn is_denied(e: &sdk::error::Error) -> bool {
        match e {
            sdk::error::Error::Grpc(status) => {
                matches!(status.code(), tonic::Code::Unauthenticated | tonic::Code::PermissionDenied)
            }
            sdk::error::Error::RetryExhausted { source, .. } => Self::is_denied(source),
            _ => false,
        }
    }

    fn error_at(dir: &Path, url: &str, what: &str, e: sdk::error::Error) -> Error {
        let reason = if Self::is_lost(&e) {
            format!(
                "{what}: lost the connection to Milvus at {url} ({e}); nothing uncommitted was \
                 published. Start the server and run the same command again"
            )
        } else if Self::is_denied(&e) {
            format!(
                "{what}: Milvus at {url} refused the credentials ({e}); set STRATA_STORE_TOKEN to \
                 USER:PASSWORD or an API key the server accepts"
            )
        } else {
            format!("{what} (Milvus at {url}): {e}")
        };
        Error::Index { path: dir.to_path_buf(), reason }
    }

    fn err<'a>(&'a self, what: &'a str) -> impl Fn(sdk::error::Error) -> Error + 'a {
        move |e| Self::error_at(&self.dir, &self.url, what, e)
    }

    /// Whether collection `name` exists.
    pub fn exists(&self, name: &str) -> strata_core::Result<bool> {
        let what = format!("checking whether collection {name} exists");
        let request =
            HasCollectionRequest::builder().collection_name(name).build().map_err(self.err(&what))?;
        let response = self.block(self.client.has_collection(request)).map_err(self.err(&what))?;
        Ok(response.exists())
    }

    /// Creates collection `name` for vectors of `dim` dimensions, with an exact (FLAT) inner
    /// product index, and loads it.
    pub fn create(&self, name: &str, dim: usize) -> strata_core::Result<()> {
        let text = |n: &str| {
            sdk::FieldSchema::new().name(n).data_type(sdk::DataType::VarChar).max_length(MAX_KEY as u32)
        };
        let int = |n: &str| sdk::FieldSchema::new().name(n).data_type(sdk::DataType::Int64);
        let schema = sdk::CollectionSchema::new()
            .add_field(text(field::ID).primary_key(true))
            .add_field(text(field::RECORD))
            .add_field(text(field::DOC))
            .add_field(int(field::NODE))
            .add_field(text(field::KIND))
            .add_field(int(field::PAGE_FIRST))
            .add_field(int(field::PAGE_LAST))
            .add_field(int(field::GEN_FROM))
            .add_field(int(field::GEN_TO))
            .add_field(
                sdk::FieldSchema::new()
                    .name(field::VECTOR)
                    .data_type(sdk::DataType::FloatVector)
                    .dimension(dim as u32),
            );
        let what = format!("creating collection {name}");
        let request = CreateCollectionRequest::builder()
            .collection_name(name)
            .schema(schema)
            .consistency_level(sdk::ConsistencyLevel::Strong)
            // Creating the index with the collection also loads it, without the index-state
            // polling Milvus Lite does not serve.
            .index_param(
                IndexParam::new()
                    .field_name(field::VECTOR)
                    .index_type(IndexType::Flat)
                    .metric_type(MetricType::Ip),
            )
            .build()
            .map_err(self.err(&what))?;
        self.block(self.client.create_collection(request)).map_err(self.err(&what))?;
        Ok(())
    }

    /// Loads collection `name` into memory for search (after a server restart Milvus holds
    /// every collection unloaded).
    pub fn load(&self, name: &str) -> strata_core::Result<()> {
        let what = format!("loading collection {name}");
        let request =
            LoadCollectionRequest::builder().collection_name(name).build().map_err(self.err(&what))?;
        self.block(self.client.load_collection(request)).map_err(self.err(&what))?;
        Ok(())
    }

    /// Drops collection `name` when it exists.
    pub fn drop_collection(&self, name: &str) -> strata_core::Result<()> {
        if !self.exists(name)? {
            return Ok(());
        }
        let what = format!("dropping collection {name}");
        let request =
            DropCollectionRequest::builder().collection_name(name).build().map_err(self.err(&what))?;
        self.block(self.client.drop_collection(request)).map_err(self.err(&what))?;
        Ok(())
    }

    fn columns(rows: &[Row]) -> Vec<FieldData> {
        let text = |f: fn(&Row) -> String| rows.iter().map(f).collect::<Vec<_>>();
        let int = |f: fn(&Row) -> i64| rows.iter().map(f).collect::<Vec<_>>();
        vec![
            FieldData::varchar(field::ID, text(Row::id)),
            FieldData::varchar(field::RECORD, text(|r| r.record.clone())),
            FieldData::varchar(field::DOC, text(|r| r.doc.clone())),
            FieldData::int64(field::NODE, int(|r| r.node)),
            FieldData::varchar(field::KIND, text(|r| r.kind.clone())),
            FieldData::int64(field::PAGE_FIRST, int(|r| r.page_first)),
            FieldData::int64(field::PAGE_LAST, int(|r| r.page_last)),
            FieldData::int64(field::GEN_FROM, int(|r| r.gen_from)),
            FieldData::int64(field::GEN_TO, int(|r| r.gen_to)),
            FieldData::float_vector(field::VECTOR, rows.iter().map(|r| r.vector.clone()).collect()),
        ]
    }

    /// Writes `rows` over the rows of the same ids in `name`, or as new rows, a batch per
    /// call (whole rows: a Milvus without partial updates gets every field).
    pub fn upsert(&self, name: &str, rows: &[Row]) -> strata_core::Result<()> {
        let what = format!("updating vectors in {name}");
        for batch in rows.chunks(BATCH) {
            let insert = InsertRequest::builder().collection_name(name).columns(Self::columns(batch));
            let request = UpsertRequest::builder()
                .insert(insert.build().map_err(self.err(&what))?)
                .build()
                .map_err(self.err(&what))?;
            self.block(self.client.upsert(request)).map_err(self.err(&what))?;
        }
        Ok(())
    }

    /// Deletes the rows of `name` that match `expr`.
    pub fn delete(&self, name: &str, expr: &str) -> strata_core::Result<()> {
        let what = format!("deleting vectors from {name}");
        let request =
            DeleteRequest::builder().collection_name(name).filter(expr).build().map_err(self.err(&what))?;
        self.block(self.client.delete(request)).map_err(self.err(&what))?;
        Ok(())
    }

    /// The rows of `name` that match `expr`, every field, for vectors of `dim` dimensions.
    /// At most [`MAX_LIMIT`], and an error beyond: the callers select one document's rows.
    /// Their ids are read first and the rows in pages, each under the gRPC message limit.
    pub fn rows(&self, name: &str, expr: &str, dim: usize) -> strata_core::Result<Vec<Row>> {
        let what = format!("reading vectors from {name}");
        let ids = self.ids(name, expr)?;
        if ids.len() >= MAX_LIMIT {
            return Err(Error::Index {
                path: self.dir.clone(),
                reason: format!(
                    "{what}: {MAX_LIMIT} or more rows match {expr}, more than one Milvus query \
                     returns; split the document"
                ),
            });
        }
        let page = (READ_BYTES / (dim * 4 + 4 * MAX_KEY)).max(1);
        let mut out = Vec::with_capacity(ids.len());
        for ids in ids.chunks(page) {
            let request = QueryRequest::builder()
                .collection_name(name)
                .filter(crate::expr::ids_in(ids))
                .output_fields(field::ALL)
                .limit(ids.len() as i64)
                .consistency_level(sdk::ConsistencyLevel::Strong)
                .build()
                .map_err(self.err(&what))?;
            let response = self.block(self.client.query(request)).map_err(self.err(&what))?;
            for row in response.results().rows().map_err(self.err(&what))? {
                let text = |f| row.get_str(f).map(str::to_string).map_err(self.err(&what));
                let int = |f| row.get_i64(f).map_err(self.err(&what));
                out.push(Row {
                    record: text(field::RECORD)?,
                    doc: text(field::DOC)?,
                    node: int(field::NODE)?,
                    kind: text(field::KIND)?,
                    page_first: int(field::PAGE_FIRST)?,
                    page_last: int(field::PAGE_LAST)?,
                    gen_from: int(field::GEN_FROM)?,
                    gen_to: int(field::GEN_TO)?,
                    vector: row.get_float_vector(field::VECTOR).map_err(self.err(&what))?.to_vec(),
                });
            }
        }
        Ok(out)
    }

    /// The primary keys of up to [`MAX_LIMIT`] rows of `name` that match `expr`.
    fn ids(&self, name: &str, expr: &str) -> strata_core::Result<Vec<String>> {
        let what = format!("reading vector ids from {name}");
        let request = QueryRequest::builder()
            .collection_name(name)
            .filter(expr)
            .output_fields([field::ID])
            .limit(MAX_LIMIT as i64)
            .consistency_level(sdk::ConsistencyLevel::Strong)
            .build()
            .map_err(self.err(&what))?;
        let response = self.block(self.client.query(request)).map_err(self.err(&what))?;
        let mut ids = Vec::new();
        for row in response.results().rows().map_err(self.err(&what))? {
            ids.push(row.get_str(field::ID).map_err(self.err(&what))?.to_string());
        }
        Ok(ids)
    }

    /// The distinct documents of up to [`MAX_LIMIT`] rows of `name` that match `expr`, and
    /// whether that limit was reached (there may be more).
    pub fn docs(&self, name: &str, expr: &str) -> strata_core::Result<(BTreeSet<String>, bool)> {
        let what = format!("reading vectors from {name}");
        let request = QueryRequest::builder()
            .collection_name(name)
            .filter(expr)
            .output_fields([field::DOC])
            .limit(MAX_LIMIT as i64)
            .consistency_level(sdk::ConsistencyLevel::Strong)
            .build()
            .map_err(self.err(&what))?;
        let response = self.block(self.client.query(request)).map_err(self.err(&what))?;
        let mut docs = BTreeSet::new();
        let mut n = 0;
        for row in response.results().rows().map_err(self.err(&what))? {
            docs.insert(row.get_str(field::DOC).map_err(self.err(&what))?.to_string());
            n += 1;
        }
        Ok((docs, n >= MAX_LIMIT))
    }

    /// The `limit` rows of `name` matching `expr` with the highest inner product with
    /// `query`: (record, score), best first, ties by record.
    pub fn search(
        &self,
        name: &str,
        expr: &str,
        query: &[f32],
        limit: usize,
    ) -> strata_core::Result<Vec<(String, f32)>> {
        let what = format!("searching {name}");
        let request = SearchRequest::builder()
            .collection_name(name)
            .vector_field(field::VECTOR)
            .vectors(SearchVectors::Float(vec![query.to_vec()]))
            .filter(expr)
            .output_fields([field::RECORD])
            .limit(limit.min(MAX_LIMIT) as i64)
            .consistency_level(sdk::ConsistencyLevel::Strong)
            .build()
            .map_err(self.err(&what))?;
        let response = self.block(self.client.search(request)).map_err(self.err(&what))?;
        let mut hits = Vec::new();
        for result in response.results() {
            for row in result.rows().map_err(self.err(&what))? {
                let record = row.get_str(field::RECORD).map_err(self.err(&what))?.to_string();
                hits.push((record, row.get_f32("score").map_err(self.err(&what))?));
            }
        }
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(hits)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // A store may be dropped on an async thread (a server swapping snapshots), where
        // waiting for the runtime's threads would panic.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
