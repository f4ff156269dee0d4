//! The legs of [`StoreRead`] as SQL: documents and chunks from their tables, BM25 (or
//! `ts_rank`) over the postings, pgvector for the dense legs, the exact legs on indexed
//! columns and positions.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use pgvector::Vector;
use postgres::{Client, Row};
use strata_core::{CachedVector, ChunkId, Definition, DocId, Error, NodeId, Result};
use strata_index::{
    DocSummary, Filter, LegHit, Manifest, SectionHit, StoreRead, StoredChunk, StoredDocument, BOOST_HEADING,
    BOOST_TEXT, BOOST_TITLE, SECTION_BOOST_HEADING,
};

use super::PgStore;
use crate::bm25::{self, Analyzers, Clause, Field};
use crate::options::KeywordRanking;
use crate::sql::{needs_record, Sql};
use crate::tables;

/// `ts_rank` weights `{D, C, B, A}`: chunk text is A, heading B, title C.
const TS_WEIGHTS_CHUNK: &str = "{0.1, 0.25, 0.5, 1.0}";
/// Sections: lead and children A, heading path B, weighed alike.
const TS_WEIGHTS_SECTION: &str = "{0.1, 0.25, 1.0, 1.0}";

/// Counts BM25 needs, over the whole index.
struct Stats {
    chunks: u64,
    sections: u64,
    /// Tokens of each field, by [`Field::index`].
    tokens: [u64; 6],
    /// Values of tantivy's `terms` field: chunks' defined terms and definitions.
    term_values: u64,
}

impl PgStore {
    fn stats(&self, client: &mut Client) -> Result<Stats> {
        let row = client
            .query_one(
                "SELECT coalesce(sum(chunk_count), 0)::bigint, coalesce(sum(section_count), 0)::bigint,
                        coalesce(sum(tokens[1]), 0)::bigint, coalesce(sum(tokens[2]), 0)::bigint,
                        coalesce(sum(tokens[3]), 0)::bigint, coalesce(sum(tokens[4]), 0)::bigint,
                        coalesce(sum(tokens[5]), 0)::bigint, coalesce(sum(tokens[6]), 0)::bigint,
                        coalesce(sum(tokens[7]), 0)::bigint
                 FROM strata_documents",
                &[],
            )
            .map_err(self.err("reading the index statistics"))?;
        let n = |i: usize| row.get::<_, i64>(i).max(0) as u64;
        Ok(Stats {
            chunks: n(0),
            sections: n(1),
            tokens: [n(2), n(3), n(4), n(5), n(6), n(7)],
            term_values: n(8),
        })
    }

    /// Document frequencies of posting keys.
    fn doc_freqs(&self, client: &mut Client, keys: &[String]) -> Result<HashMap<String, u64>> {
        let rows = client
            .query("SELECT key, count(*) FROM strata_postings WHERE key = ANY($1) GROUP BY key", &[&keys])
            .map_err(self.err("reading document frequencies"))?;
        Ok(rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1) as u64)).collect())
    }

    /// The BM25 clauses of `query` over `fields` (with their boosts), scored against
    /// `doc_count` records.
    fn clauses(
        &self,
        client: &mut Client,
        query: &str,
        fields: &[(Field, f32)],
        doc_count: u64,
        stats: &Stats,
    ) -> Result<Vec<Clause>> {
        let terms: BTreeSet<String> =
            Analyzers::new().tokens(Field::Text, query).into_iter().map(|(t, _)| t).collect();
        let keys: Vec<String> = fields.iter().flat_map(|(f, _)| terms.iter().map(|t| f.key(t))).collect();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let df = self.doc_freqs(client, &keys)?;
        let mut out = Vec::new();
        for &(field, boost) in fields {
            for t in &terms {
                let key = field.key(t);
                let Some(&n) = df.get(&key) else { continue };
                out.push(Clause::new(key, boost, n, doc_count, stats.tokens[field.index()]));
            }
        }
        Ok(out)
    }

    /// The best `limit` records by the BM25 sum of `clauses`; `sections` picks the record
    /// table the filter reads.
    fn bm25_top(
        &self,
        client: &mut Client,
        clauses: &[Clause],
        filter: &Filter,
        sections: bool,
        limit: usize,
    ) -> Result<Vec<LegHit>> {
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let mut sql = Sql::default();
        let keys = sql.bind(clauses.iter().map(|c| c.key.clone()).collect::<Vec<_>>());
        let weights = sql.bind(clauses.iter().map(|c| c.weight).collect::<Vec<_>>());
        let per_token = sql.bind(clauses.iter().map(|c| c.norm_per_token).collect::<Vec<_>>());
        let base = clauses[0].norm_base;
        let at = format!("array_position({keys}::text[], p.key)");
        sql.push(&format!(
            "SELECT p.target, sum((({weights}::real[])[{at}] * p.tf / (p.tf + {base}::real + ({per_token}::real[])[{at}] * p.len))::float8)::real AS score
             FROM strata_postings p"
        ));
        let table = if sections { "strata_sections" } else { "strata_chunks" };
        let join = needs_record(filter, !sections);
        if join {
            sql.push(&format!(" JOIN {table} r ON r.doc = p.doc AND r.id = p.target"));
        }
        sql.push(&format!(" WHERE p.key = ANY({keys}::text[])"));
        sql.filter(if join { "r" } else { "p" }, filter, !sections);
        let n = sql.bind(limit.max(1) as i64);
        sql.push(&format!(" GROUP BY p.doc, p.target ORDER BY score DESC, p.target LIMIT {n}"));
        let rows = client.query(&sql.text, &sql.params()).map_err(self.err("ranking by BM25"))?;
        Ok(scored(&rows))
    }

    /// The `ts_rank` alternative of the keyword legs.
    fn ts_rank_top(
        &self,
        client: &mut Client,
        query: &str,
        filter: &Filter,
        sections: bool,
        limit: usize,
    ) -> Result<Vec<LegHit>> {
        let mut sql = Sql::default();
        let q = sql.bind(query.to_string());
        let (table, weights) = if sections {
            ("strata_sections", TS_WEIGHTS_SECTION)
        } else {
            ("strata_chunks", TS_WEIGHTS_CHUNK)
        };
        // Any word may match, as in the BM25 leg: the plain query's `&` become `|`.
        sql.push(&format!(
            "SELECT r.id, ts_rank('{weights}', r.tsv, query.q)::real AS score
             FROM {table} r,
                  (SELECT replace(plainto_tsquery('english', {q})::text, ' & ', ' | ')::tsquery AS q) query
             WHERE numnode(query.q) > 0 AND r.tsv @@ query.q"
        ));
        sql.filter("r", filter, !sections);
        let n = sql.bind(limit.max(1) as i64);
        sql.push(&format!(" ORDER BY score DESC, r.id LIMIT {n}"));
        let rows = client.query(&sql.text, &sql.params()).map_err(self.err("ranking by ts_rank"))?;
        Ok(scored(&rows))
    }

    fn check_dense(&self, query: &[f32]) -> Result<bool> {
        self.manifest.check_query(query, &self.label)
    }

    /// The `limit` records of `table` nearest to `query` by inner product. Small indexes and
    /// one-document filters are scanned exactly; otherwise the HNSW index is searched with
    /// pgvector's iterative scan, so filters still get `limit` results.
    fn nearest(&self, table: &str, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        let mut client = self.conn()?;
        let rows_total = {
            let stats = self.stats(&mut client)?;
            if table == "strata_sections" {
                stats.sections
            } else {
                stats.chunks
            }
        };
        let dim = self.manifest.dense.as_ref().map_or(query.len(), |d| d.dim);
        let index = tables::indexed_type(dim);
        let exact =
            filter.doc.is_some() || (rows_total as usize) < self.options.ann_threshold || index.is_none();
        let mut sql = Sql::default();
        let v = sql.bind(Vector::from(query.to_vec()));
        sql.push(&format!(
            "SELECT r.id, (-(r.embedding <#> {v}))::real AS score FROM {table} r WHERE r.embedding IS NOT NULL"
        ));
        sql.filter("r", filter, table == "strata_chunks");
        let n = sql.bind(limit.max(1) as i64);
        match index {
            Some((ty, _)) if !exact => {
                let ef = (limit.max(40)).to_string();
                client
                    .execute(
                        "SELECT set_config('hnsw.ef_search', $1, false), set_config('hnsw.iterative_scan', 'strict_order', false)",
                        &[&ef],
                    )
                    .map_err(self.err("setting the HNSW search width"))?;
                // The expression of the HNSW index (see `tables::vector_ddl`).
                sql.push(&format!(" ORDER BY r.embedding::{ty} <#> {v}::{ty} LIMIT {n}"));
            }
            _ => {
                sql.push(&format!(" ORDER BY score DESC, r.id LIMIT {n}"));
            }
        }
        let rows = client.query(&sql.text, &sql.params()).map_err(self.err("searching vectors"))?;
        Ok(scored(&rows))
    }

    fn section_hits(&self, hits: Vec<LegHit>) -> Result<Vec<SectionHit>> {
        hits.into_iter()
            .map(|hit| {
                SectionHit::from_id(hit.chunk.as_str(), hit.score).ok_or_else(|| Error::Index {
                    path: self.label.clone(),
                    reason: format!(
                        "a section record has a bad id {:?}; re-ingest its document",
                        hit.chunk.as_str()
                    ),
                })
            })
            .collect()
    }
}

/// The hits of rows whose first column is a record id and whose second is its score.
fn scored(rows: &[Row]) -> Vec<LegHit> {
    rows.iter().map(|r| LegHit { chunk: ChunkId::from(r.get::<_, String>(0)), score: r.get(1) }).collect()
}

impl StoreRead for PgStore {
    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn documents(&self) -> Result<Vec<DocSummary>> {
        let rows = self
            .conn()?
            .query("SELECT summary FROM strata_documents ORDER BY path, doc", &[])
            .map_err(self.err("listing documents"))?;
        rows.iter()
            .map(|r| serde_json::from_slice(r.get::<_, &[u8]>(0)).map_err(|e| self.damaged(e)))
            .collect()
    }

    fn document(&self, id: &DocId) -> Result<Option<StoredDocument>> {
        let row = self
            .conn()?
            .query_opt("SELECT meta, body FROM strata_documents WHERE doc = $1", &[&id.as_str()])
            .map_err(self.err("reading a document"))?;
        let Some(row) = row else { return Ok(None) };
        let mut stored: StoredDocument =
            serde_json::from_slice(row.get::<_, &[u8]>(0)).map_err(|e| self.damaged(e))?;
        stored.document.text = row.get(1);
        Ok(Some(stored))
    }

    fn document_meta(&self, id: &DocId) -> Result<Option<StoredDocument>> {
        let row = self
            .conn()?
            .query_opt("SELECT meta FROM strata_documents WHERE doc = $1", &[&id.as_str()])
            .map_err(self.err("reading a document"))?;
        let Some(row) = row else { return Ok(None) };
        serde_json::from_slice(row.get::<_, &[u8]>(0)).map(Some).map_err(|e| self.damaged(e))
    }

    fn content_hash(&self, id: &DocId) -> Result<Option<String>> {
        Ok(self
            .conn()?
            .query_opt("SELECT content_hash FROM strata_documents WHERE doc = $1", &[&id.as_str()])
            .map_err(self.err("reading a content hash"))?
            .map(|r| r.get(0)))
    }

    fn chunks(&self, ids: &[ChunkId]) -> Result<Vec<StoredChunk>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<&str> = ids.iter().map(ChunkId::as_str).collect();
        let rows = self
            .conn()?
            .query("SELECT payload FROM strata_chunks WHERE id = ANY($1)", &[&keys])
            .map_err(self.err("reading chunks"))?;
        let mut by_id: HashMap<ChunkId, StoredChunk> = HashMap::new();
        for r in &rows {
            let c: StoredChunk = serde_json::from_slice(r.get::<_, &[u8]>(0)).map_err(|e| self.damaged(e))?;
            by_id.insert(c.chunk.id.clone(), c);
        }
        Ok(ids.iter().filter_map(|id| by_id.get(id).cloned()).collect())
    }

    fn chunks_of(&self, doc: &DocId, nodes: Option<(NodeId, NodeId)>) -> Result<Vec<StoredChunk>> {
        let mut sql = Sql::new("SELECT payload FROM strata_chunks c WHERE true");
        sql.filter("c", &Filter { doc: Some(doc.clone()), nodes, ..Filter::default() }, true);
        sql.push(" ORDER BY c.ordinal");
        let rows = self.conn()?.query(&sql.text, &sql.params()).map_err(self.err("reading chunks"))?;
        rows.iter()
            .map(|r| serde_json::from_slice(r.get::<_, &[u8]>(0)).map_err(|e| self.damaged(e)))
            .collect()
    }

    fn keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        let mut client = self.conn()?;
        if self.options.keyword == KeywordRanking::TsRank {
            return self.ts_rank_top(&mut client, query, filter, false, limit);
        }
        let stats = self.stats(&mut client)?;
        let fields =
            [(Field::Text, BOOST_TEXT), (Field::Heading, BOOST_HEADING), (Field::Title, BOOST_TITLE)];
        let clauses = self.clauses(&mut client, query, &fields, stats.chunks, &stats)?;
        self.bm25_top(&mut client, &clauses, filter, false, limit)
    }

    fn section_keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<SectionHit>> {
        let mut client = self.conn()?;
        let filter = Filter { kind: None, ..filter.clone() };
        let hits = if self.options.keyword == KeywordRanking::TsRank {
            self.ts_rank_top(&mut client, query, &filter, true, limit)?
        } else {
            let stats = self.stats(&mut client)?;
            let fields = [(Field::SectionText, BOOST_TEXT), (Field::SectionHeading, SECTION_BOOST_HEADING)];
            let clauses = self.clauses(&mut client, query, &fields, stats.sections, &stats)?;
            self.bm25_top(&mut client, &clauses, &filter, true, limit)?
        };
        self.section_hits(hits)
    }

    fn section_dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<SectionHit>> {
        if !self.check_dense(query)? {
            return Ok(Vec::new());
        }
        let filter = Filter { kind: None, ..filter.clone() };
        let hits = self.nearest("strata_sections", query, &filter, limit)?;
        self.section_hits(hits)
    }

    fn exact_numbers(&self, keys: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut sql = Sql::default();
        let k = sql.bind(keys.to_vec());
        sql.push(&format!("SELECT c.id FROM strata_chunks c WHERE c.number = ANY({k}::text[])"));
        sql.filter("c", filter, true);
        let n = sql.bind(limit as i64);
        sql.push(&format!(" ORDER BY c.doc, c.ordinal, c.id LIMIT {n}"));
        let rows =
            self.conn()?.query(&sql.text, &sql.params()).map_err(self.err("finding section numbers"))?;
        Ok(rows.iter().map(|r| LegHit { chunk: ChunkId::from(r.get::<_, String>(0)), score: 1.0 }).collect())
    }

    fn exact_terms(&self, terms: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let mut client = self.conn()?;
        let stats = self.stats(&mut client)?;
        // Scored as tantivy scores a term query on the `terms` field: each value is one token.
        let rows = client
            .query(
                // As tantivy counts the `terms` field: chunks that define a term, and
                // definition records, which carry the field too.
                "SELECT t, sum(n)::bigint FROM (
                     SELECT t, count(DISTINCT c.id) AS n FROM strata_chunks c, unnest(c.terms) t
                     WHERE c.terms && $1::text[] AND t = ANY($1::text[]) GROUP BY t
                     UNION ALL
                     SELECT term, count(*) FROM strata_definitions WHERE term = ANY($1::text[]) GROUP BY term
                 ) x GROUP BY t",
                &[&terms],
            )
            .map_err(self.err("counting defined terms"))?;
        let df: HashMap<String, u64> = rows.iter().map(|r| (r.get(0), r.get::<_, i64>(1) as u64)).collect();
        let (keys, weights): (Vec<String>, Vec<f32>) = terms
            .iter()
            .filter_map(|t| df.get(t).map(|&n| (t.clone(), bm25::idf(n, stats.chunks) * (1.0 + bm25::K1))))
            .unzip();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let avg = (stats.term_values.max(1) as f32 / stats.chunks.max(1) as f32).max(f32::MIN_POSITIVE);
        let mut sql = Sql::default();
        let k = sql.bind(keys);
        let w = sql.bind(weights);
        sql.push(&format!(
            "SELECT c.id, ((SELECT sum(({w}::real[])[array_position({k}::text[], t)])
                            FROM (SELECT DISTINCT t FROM unnest(c.terms) t) u WHERE t = ANY({k}::text[]))
                 / (1 + {base}::real + {per}::real * cardinality(c.terms)))::real AS score
             FROM strata_chunks c WHERE c.terms && {k}::text[]",
            base = bm25::K1 * (1.0 - bm25::B),
            per = bm25::K1 * bm25::B / avg,
        ));
        sql.filter("c", filter, true);
        let n = sql.bind(limit.max(1) as i64);
        sql.push(&format!(" ORDER BY score DESC, c.id LIMIT {n}"));
        let rows = client.query(&sql.text, &sql.params()).map_err(self.err("finding defined terms"))?;
        Ok(scored(&rows))
    }

    fn exact_phrase(&self, phrase: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        let words: Vec<String> =
            Analyzers::new().tokens(Field::Exact, phrase).into_iter().map(|(t, _)| t).collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let mut client = self.conn()?;
        let stats = self.stats(&mut client)?;
        let keys: Vec<String> =
            words.iter().map(|w| Field::Exact.key(w)).collect::<BTreeSet<_>>().into_iter().collect();
        let df = self.doc_freqs(&mut client, &keys)?;
        if keys.iter().any(|k| !df.contains_key(k)) {
            return Ok(Vec::new());
        }
        let idf_sum: f32 = words.iter().map(|w| bm25::idf(df[&Field::Exact.key(w)], stats.chunks)).sum();
        let clause = Clause::new(String::new(), 1.0, 0, stats.chunks, stats.tokens[Field::Exact.index()]);
        let weight = idf_sum * (1.0 + bm25::K1);

        let mut sql = Sql::default();
        let k = sql.bind(keys.clone());
        let distinct = sql.bind(keys.len() as i64);
        sql.push("SELECT p.target, p.key, p.positions, p.len FROM strata_postings p");
        let join = needs_record(filter, true);
        if join {
            sql.push(" JOIN strata_chunks r ON r.doc = p.doc AND r.id = p.target");
        }
        sql.push(&format!(
            " WHERE p.key = ANY({k}::text[]) AND (p.doc, p.target) IN
                (SELECT doc, target FROM strata_postings WHERE key = ANY({k}::text[])
                 GROUP BY doc, target HAVING count(*) = {distinct})"
        ));
        sql.filter(if join { "r" } else { "p" }, filter, true);
        let rows = client.query(&sql.text, &sql.params()).map_err(self.err("finding a phrase"))?;
        // Per record: each word's positions, and the field length.
        let mut records: BTreeMap<String, (HashMap<String, HashSet<i32>>, i32)> = BTreeMap::new();
        for r in &rows {
            let entry = records.entry(r.get(0)).or_insert_with(|| (HashMap::new(), r.get(3)));
            let positions: Option<Vec<i32>> = r.get(2);
            entry.0.insert(r.get(1), positions.unwrap_or_default().into_iter().collect());
        }
        let word_keys: Vec<String> = words.iter().map(|w| Field::Exact.key(w)).collect();
        let mut hits: Vec<LegHit> = records
            .into_iter()
            .filter_map(|(target, (positions, len))| {
                // One word: a term query without frequencies (tf 1). More: the number of
                // places the words stand in order, as tantivy's phrase scorer counts them.
                let freq = if words.len() == 1 {
                    1
                } else {
                    positions[&word_keys[0]]
                        .iter()
                        .filter(|&&p| {
                            word_keys
                                .iter()
                                .enumerate()
                                .skip(1)
                                .all(|(i, k)| positions[k].contains(&(p + i as i32)))
                        })
                        .count()
                };
                (freq > 0).then(|| {
                    let tf = freq as f32;
                    let norm = clause.norm_base + clause.norm_per_token * len as f32;
                    LegHit { chunk: ChunkId::from(target), score: weight * tf / (tf + norm) }
                })
            })
            .collect();
        strata_index::sort_lexical(&mut hits);
        hits.truncate(limit.max(1));
        Ok(hits)
    }

    fn dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        if !self.check_dense(query)? {
            return Ok(Vec::new());
        }
        self.nearest("strata_chunks", query, filter, limit)
    }

    fn definitions(&self, term: &str) -> Result<Vec<Definition>> {
        let rows = self
            .conn()?
            .query("SELECT payload FROM strata_definitions WHERE term = $1 ORDER BY doc, ordinal", &[&term])
            .map_err(self.err("reading definitions"))?;
        rows.iter()
            .map(|r| serde_json::from_slice(r.get::<_, &[u8]>(0)).map_err(|e| self.damaged(e)))
            .collect()
    }

    fn defined_terms(&self) -> Result<Vec<String>> {
        let rows = self
            .conn()?
            .query(
                "SELECT term FROM strata_definitions UNION SELECT unnest(terms) COLLATE \"C\" FROM strata_chunks ORDER BY 1",
                &[],
            )
            .map_err(self.err("listing defined terms"))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn cached_contexts(&self, keys: &[String]) -> Result<HashMap<String, String>> {
        if keys.is_empty() {
            return Ok(HashMap::new());
        }
        let rows = self
            .conn()?
            .query("SELECT key, context FROM strata_contexts WHERE key = ANY($1)", &[&keys])
            .map_err(self.err("reading cached contexts"))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn cached_vectors(&self, keys: &[String]) -> Result<HashMap<String, CachedVector>> {
        let Some(dim) = self.manifest().dense.as_ref().map(|d| d.dim).filter(|_| !keys.is_empty()) else {
            return Ok(HashMap::new());
        };
        let rows = self
            .conn()?
            .query(
                "SELECT DISTINCT ON (key) key, payload FROM strata_vector_cache WHERE key = ANY($1)",
                &[&keys],
            )
            .map_err(self.err("reading the vector cache"))?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let key: String = r.get(0);
                CachedVector::decode(key.clone(), r.get::<_, &[u8]>(1), dim).map(|v| (key, v))
            })
            .collect())
    }
}
