//! The MCP server: tools for an agent to search *and* navigate, and the documents as
//! resources. Served over stdio by `strata mcp` and as streamable HTTP at `/mcp` by
//! `strata serve`, on the same [`Engine`] as everything else.
//!
//! Tool answers are written for a language model: the text content is what it reads (the
//! assembled context with citations, an indented outline, a section with its heading path),
//! and the structured content carries the same answer as JSON for programs. A bad argument
//! or an unknown document is a tool error the model can read and correct, not a protocol
//! error.

use std::fmt::Write;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strata_engine::{parse_page_range, Engine, SearchOptions};
use strata_search::navigate::{self, OutlineNode};
use strata_search::SearchResponse;

use crate::error::ApiError;

/// Bytes of a section or of pages returned at once; longer ones are cut (on a character
/// boundary) with a note naming the subsections to read instead.
const MAX_READ_BYTES: usize = 60_000;

/// `search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to find: words, a "quoted phrase", or a section number (§ 4.2, Section 203(a)).
    pub query: String,
    /// hybrid (default: words and meaning), keyword (exact words), exact (section numbers,
    /// defined terms, phrases), dense (meaning only) or hierarchical (best sections first).
    pub mode: Option<String>,
    /// Number of passages, 1 to 100 (default 10).
    pub k: Option<usize>,
    /// Only this document (id from list_documents, or part of its path); DOC#NODE for one
    /// section and its subsections.
    pub doc: Option<String>,
    /// Tokens of the returned context (default 4000).
    pub budget: Option<usize>,
}

/// `outline` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineArgs {
    /// Document id (from list_documents) or part of its path.
    pub doc: String,
    /// Levels to show (1: top sections only; default: all).
    pub depth: Option<usize>,
}

/// `read_section` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SectionArgs {
    /// Document id or part of its path.
    pub doc: String,
    /// Node id from outline or search (0042), or a section number (4.2, 203(a)).
    pub node: String,
}

/// `read_pages` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PagesArgs {
    /// Document id or part of its path.
    pub doc: String,
    /// A page (12) or a range (5-7), physical page numbers from 1.
    pub pages: String,
}

/// `define` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DefineArgs {
    /// The defined term ("Confidential Information").
    pub term: String,
    /// Only this document.
    pub doc: Option<String>,
}

/// `follow_reference` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FollowArgs {
    /// Document id or part of its path.
    pub doc: String,
    /// The section whose references to list: node id or section number.
    pub node: String,
    /// A reference made in that section ("Section 203(a)", or its target "203(a)"): read
    /// the section it points to instead of listing.
    pub target: Option<String>,
}

/// A hit as an agent's program needs it; its text is in the context block.
#[derive(Debug, Serialize)]
struct HitRef<'a> {
    rank: usize,
    doc_id: &'a str,
    node_id: &'a str,
    chunk_id: &'a str,
    heading_path: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    section_number: Option<&'a str>,
    pages: strata_core::PageRange,
    score: f64,
}

/// The strata MCP server.
#[derive(Clone)]
pub struct Strata {
    engine: Arc<Engine>,
    /// Searches computed at once, shared with the HTTP routes.
    searches: Arc<tokio::sync::Semaphore>,
    #[allow(dead_code)] // read by the code `#[tool_handler]` generates
    tool_router: ToolRouter<Strata>,
}

fn failed(e: impl Into<ApiError>) -> CallToolResult {
    let e = e.into();
    CallToolResult::error(vec![ContentBlock::text(e.message)])
}

fn answer(text: String, structured: serde_json::Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// Runs index work off the async threads; its error becomes a tool error.
async fn run<F>(f: F) -> Result<CallToolResult, ErrorData>
where
    F: FnOnce() -> Result<CallToolResult, ApiError> + Send + 'static,
{
    match crate::error::blocking(f).await {
        Ok(result) => Ok(result),
        Err(e) => Ok(failed(e)),
    }
}

#[tool_router]
impl Strata {
    /// The server for `engine`; at most `searches` permits' worth of searches run at once.
    pub fn new(engine: Arc<Engine>, searches: Arc<tokio::sync::Semaphore>) -> Strata {
        Strata { engine, searches, tool_router: Strata::tool_router() }
    }

    #[tool(
        description = "Search the indexed documents. Returns the best passages packed into a context block \
                       with citations (document, section, pages), the definitions of the defined terms they \
                       use, and the hit list (doc_id and node_id for read_section). Use mode exact or a \
                       section number in the query to jump to a section."
    )]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> Result<CallToolResult, ErrorData> {
        if let Err(e) = check_query(&self.engine, &args.query) {
            return Ok(failed(e));
        }
        let engine = self.engine.clone();
        let slot = self
            .searches
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        run(move || {
            let _slot = slot;
            let options = SearchOptions {
                query: args.query,
                mode: args.mode,
                k: args.k,
                doc: args.doc,
                budget: args.budget,
                ..SearchOptions::default()
            };
            let response = engine.search(&options)?;
            Ok(search_answer(&response))
        })
        .await
    }

    #[tool(
        description = "The outline of a document: its sections as an indented list with node ids, section \
                       numbers and pages. Use depth 1 or 2 first on long documents."
    )]
    async fn outline(&self, Parameters(args): Parameters<OutlineArgs>) -> Result<CallToolResult, ErrorData> {
        let engine = self.engine.clone();
        run(move || {
            let snapshot = engine.snapshot();
            let (stored, _) = navigate::resolve_node(snapshot.store(), &args.doc)?;
            let outline = navigate::outline_to(&stored, args.depth);
            let mut text = format!("{} ({})\n", stored.document.title, stored.document.id);
            render_outline(&outline, 0, &mut text);
            Ok(answer(text, json(&outline)))
        })
        .await
    }

    #[tool(
        description = "Read one section (and its subsections) of a document, by node id (0042) or section \
                       number (4.2, 203(a)), with its heading path and pages."
    )]
    async fn read_section(
        &self,
        Parameters(args): Parameters<SectionArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let engine = self.engine.clone();
        run(move || {
            let snapshot = engine.snapshot();
            let (stored, node) =
                navigate::resolve_node(snapshot.store(), &format!("{}#{}", args.doc, args.node))?;
            let mut section = navigate::section(&stored, node);
            let mut text = format!(
                "{} › {} (node {}, {})\n\n",
                section.doc_title,
                section.heading_path.join(" › "),
                section.node_id,
                pages_label(section.pages)
            );
            let cut = cut(&mut section.text);
            text.push_str(&section.text);
            if cut {
                let children: Vec<String> = stored
                    .document
                    .tree
                    .get(node)
                    .map(|n| n.children.iter().map(|c| c.to_string()).collect())
                    .unwrap_or_default();
                let _ = write!(
                    text,
                    "\n\n[cut at {MAX_READ_BYTES} bytes; read its subsections instead: {}]",
                    if children.is_empty() {
                        "none, use read_pages".to_string()
                    } else {
                        children.join(", ")
                    }
                );
            }
            Ok(answer(text, json(&section)))
        })
        .await
    }

    #[tool(description = "Read pages of a document as printed, e.g. pages \"5-7\" or \"12\".")]
    async fn read_pages(&self, Parameters(args): Parameters<PagesArgs>) -> Result<CallToolResult, ErrorData> {
        let engine = self.engine.clone();
        run(move || {
            let (first, last) = parse_page_range(&args.pages)?;
            let snapshot = engine.snapshot();
            let (stored, _) = navigate::resolve_node(snapshot.store(), &args.doc)?;
            let mut pages = navigate::pages(&stored, first, last)?;
            let mut text = String::new();
            let mut kept = 0;
            for page in &mut pages.pages {
                let _ = writeln!(text, "--- page {} ---", page.number);
                cut(&mut page.text);
                text.push_str(&page.text);
                text.push('\n');
                kept += 1;
                if text.len() > MAX_READ_BYTES {
                    text.push_str("[cut: ask for fewer pages]\n");
                    break;
                }
            }
            pages.pages.truncate(kept);
            Ok(answer(text, json(&pages)))
        })
        .await
    }

    #[tool(
        description = "Look up a defined term: where each document defines it, the definition's text and \
                       its citation."
    )]
    async fn define(&self, Parameters(args): Parameters<DefineArgs>) -> Result<CallToolResult, ErrorData> {
        if let Err(e) = check_query(&self.engine, &args.term) {
            return Ok(failed(e));
        }
        let engine = self.engine.clone();
        run(move || {
            let found = engine.define(&args.term, args.doc.as_deref())?;
            let mut text = String::new();
            if found.is_empty() {
                let _ = writeln!(text, "No document defines {:?}.", args.term);
            }
            for d in &found {
                let _ = writeln!(
                    text,
                    "\"{}\" in {} › {} (node {}, {}):\n{}\n",
                    d.definition.term,
                    d.doc_title,
                    d.heading_path.join(" › "),
                    d.definition.node,
                    pages_label(d.pages),
                    d.definition.text
                );
            }
            // Node ids as the outline writes them ("0015"), so they can be passed back as they are.
            let definitions: Vec<serde_json::Value> = found
                .iter()
                .map(|d| {
                    serde_json::json!({
                        "term": d.definition.term,
                        "text": d.definition.text,
                        "doc_id": d.definition.doc,
                        "doc_title": d.doc_title,
                        "node_id": d.definition.node.to_string(),
                        "heading_path": d.heading_path,
                        "pages": d.pages,
                    })
                })
                .collect();
            Ok(answer(text, serde_json::json!({ "definitions": definitions })))
        })
        .await
    }

    #[tool(
        description = "The cross-references of a section: what it refers to (resolved to node ids when the \
                       target is in the document) and what refers to it. Give target to read the section a \
                       reference points to."
    )]
    async fn follow_reference(
        &self,
        Parameters(args): Parameters<FollowArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let engine = self.engine.clone();
        run(move || {
            let snapshot = engine.snapshot();
            let (stored, node) =
                navigate::resolve_node(snapshot.store(), &format!("{}#{}", args.doc, args.node))?;
            let refs = navigate::refs(&stored, node);
            if let Some(target) = args.target.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                let wanted = strata_core::number::normalize(target);
                let hit = refs.outgoing.iter().find(|r| {
                    r.reference.raw.eq_ignore_ascii_case(target)
                        || r.reference.target == wanted
                        || strata_core::number::normalize(&r.reference.raw) == wanted
                });
                let Some(hit) = hit else {
                    return Err(ApiError::not_found(format!(
                        "section {} makes no reference {target:?}; call follow_reference without target to list them",
                        args.node
                    )));
                };
                let Some(to) = hit.reference.resolved else {
                    return Err(ApiError::not_found(format!(
                        "{:?} points outside this document{}",
                        hit.reference.raw,
                        hit.reference.external.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
                    )));
                };
                let mut section = navigate::section(&stored, to);
                cut(&mut section.text);
                let text = format!(
                    "{} → {} (node {}, {})\n\n{}",
                    hit.reference.raw,
                    section.heading_path.join(" › "),
                    section.node_id,
                    pages_label(section.pages),
                    section.text
                );
                return Ok(answer(text, json(&section)));
            }
            let mut text = format!("References out of node {}:\n", refs.node_id);
            for r in &refs.outgoing {
                let to = match (r.reference.resolved, &r.to_title) {
                    (Some(n), Some(title)) => format!("node {n} \"{title}\""),
                    (Some(n), None) => format!("node {n}"),
                    _ => r.reference.external.clone().unwrap_or_else(|| "not in this document".into()),
                };
                let _ = writeln!(text, "- {:?} → {to}", r.reference.raw);
            }
            let _ = writeln!(text, "References into node {}:", refs.node_id);
            for r in &refs.incoming {
                let _ = writeln!(text, "- {:?} from node {} \"{}\"", r.reference.raw, r.reference.from, r.from_title);
            }
            let cited = |r: &navigate::CitedReference| {
                serde_json::json!({
                    "raw": r.reference.raw,
                    "target": r.reference.target,
                    "from_node_id": r.reference.from.to_string(),
                    "from_title": r.from_title,
                    "to_node_id": r.reference.resolved.map(|n| n.to_string()),
                    "to_title": r.to_title,
                    "external": r.reference.external,
                })
            };
            let structured = serde_json::json!({
                "doc_id": refs.doc_id,
                "node_id": refs.node_id,
                "outgoing": refs.outgoing.iter().map(cited).collect::<Vec<_>>(),
                "incoming": refs.incoming.iter().map(cited).collect::<Vec<_>>(),
            });
            Ok(answer(text, structured))
        })
        .await
    }

    #[tool(description = "List the indexed documents: id, title, format, pages, sections and chunks.")]
    async fn list_documents(&self) -> Result<CallToolResult, ErrorData> {
        let engine = self.engine.clone();
        run(move || {
            let docs = engine.snapshot().store().documents()?;
            let mut text = String::new();
            for d in &docs {
                let _ = writeln!(
                    text,
                    "{}  {}  ({:?}, {} pages, {} sections, {} chunks)  {}",
                    d.id, d.title, d.format, d.pages, d.nodes, d.chunks, d.path
                );
            }
            if docs.is_empty() {
                text.push_str("The index holds no document yet.\n");
            }
            Ok(answer(text, serde_json::json!({ "documents": docs })))
        })
        .await
    }
}

/// `[serve] max_query_chars`, as over HTTP.
fn check_query(engine: &Engine, query: &str) -> Result<(), ApiError> {
    crate::app::check_query(engine.config().serve.max_query_chars, query)
}

fn json<T: Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

fn pages_label(p: strata_core::PageRange) -> String {
    if p.first == p.last {
        format!("p. {}", p.first)
    } else {
        format!("pp. {}–{}", p.first, p.last)
    }
}

/// Cuts `text` to [`MAX_READ_BYTES`] on a char boundary; true when it did.
fn cut(text: &mut String) -> bool {
    if text.len() <= MAX_READ_BYTES {
        return false;
    }
    text.truncate(strata_core::floor_char_boundary(text, MAX_READ_BYTES));
    true
}

fn render_outline(node: &OutlineNode, depth: usize, out: &mut String) {
    // Iterative: outlines may nest thousands deep.
    let mut stack = vec![(node, depth)];
    while let Some((n, d)) = stack.pop() {
        if d > 0 {
            let number = n.number.as_deref().map(|x| format!("{x} ")).unwrap_or_default();
            let _ =
                write!(out, "{}{} {number}{} ({})", "  ".repeat(d - 1), n.id, n.title, pages_label(n.pages));
            if n.hidden > 0 {
                let _ = write!(out, " [+{} deeper]", n.hidden);
            }
            out.push('\n');
        }
        for child in n.children.iter().rev() {
            stack.push((child, d + 1));
        }
    }
}

fn search_answer(response: &SearchResponse) -> CallToolResult {
    let mut text = match &response.context {
        Some(context) => context.text.clone(),
        None => response.hits.iter().map(|h| h.text.as_str()).collect::<Vec<_>>().join("\n\n"),
    };
    if response.hits.is_empty() {
        text = format!("Nothing matched {:?}.", response.query);
    }
    text.push_str("\n\nHits (doc_id#node_id):\n");
    let hits: Vec<HitRef> = response
        .hits
        .iter()
        .enumerate()
        .map(|(i, h)| HitRef {
            rank: i + 1,
            doc_id: &h.doc_id,
            node_id: &h.node_id,
            chunk_id: &h.chunk_id,
            heading_path: &h.heading_path,
            section_number: h.section_number.as_deref(),
            pages: h.pages,
            score: h.score,
        })
        .collect();
    for h in &hits {
        let _ = writeln!(
            text,
            "{}. {}#{} {} ({})",
            h.rank,
            h.doc_id,
            h.node_id,
            h.heading_path.join(" › "),
            pages_label(h.pages)
        );
    }
    for w in &response.warnings {
        let _ = writeln!(text, "warning: {w}");
    }
    let structured = serde_json::json!({
        "query": response.query,
        "hits": hits,
        "definitions": response.definitions,
        "context_tokens": response.context.as_ref().map(|c| c.tokens),
    });
    answer(text, structured)
}

/// `strata://documents/{id}`, and `…/sections/{node}` for one section.
fn parse_uri(uri: &str) -> Option<(&str, Option<&str>)> {
    let rest = uri.strip_prefix("strata://documents/")?;
    match rest.split_once("/sections/") {
        Some((doc, node)) => Some((doc, Some(node))),
        None => Some((rest, None)),
    }
}

#[tool_handler]
impl ServerHandler for Strata {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("strata", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "strata indexes long structured documents (contracts, statutes, standards, manuals). Start \
                 with list_documents, search for passages (each hit names doc_id and node_id), then \
                 navigate: outline a document, read_section or read_pages around a hit, define a term, \
                 follow_reference to the sections a passage cites. Cite document, section and pages.",
            )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let engine = self.engine.clone();
        let docs = crate::error::blocking(move || Ok(engine.snapshot().store().documents()?))
            .await
            .map_err(|e| ErrorData::internal_error(e.message, None))?;
        let resources = docs
            .into_iter()
            .map(|d| {
                Resource::new(format!("strata://documents/{}", d.id), d.id.to_string())
                    .with_title(d.title.clone())
                    .with_description(format!("{} ({} pages, {} sections)", d.path, d.pages, d.nodes))
                    .with_mime_type("text/plain")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![ResourceTemplate::new(
            "strata://documents/{doc}/sections/{node}",
            "section",
        )
        .with_title("One section of a document")
        .with_description("A section and its subsections; node is a node id (0042) or a section number")
        .with_mime_type("text/plain")]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let Some((doc, node)) = parse_uri(&uri) else {
            return Err(ErrorData::resource_not_found(
                format!("{uri:?}: strata resources are strata://documents/ID[/sections/NODE]"),
                None,
            ));
        };
        let target = match node {
            Some(node) => format!("{doc}#{node}"),
            None => doc.to_string(),
        };
        let engine = self.engine.clone();
        let text = tokio::task::spawn_blocking(move || {
            let snapshot = engine.snapshot();
            navigate::resolve_node(snapshot.store(), &target).map(|(stored, node)| {
                if node == strata_core::NodeId::ROOT {
                    stored.document.text
                } else {
                    navigate::section(&stored, node).text
                }
            })
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        .map_err(|e| ErrorData::resource_not_found(e.to_string(), None))?;
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
    }
}

/// `/mcp`: the streamable HTTP transport, one session per client.
pub fn http_service(
    engine: Arc<Engine>,
    searches: Arc<tokio::sync::Semaphore>,
    cancel: tokio_util::sync::CancellationToken,
    loopback: bool,
) -> rmcp::transport::streamable_http_server::StreamableHttpService<
    Strata,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(cancel);
    // On loopback, only loopback Host headers (a browser page cannot rebind a name to us);
    // off loopback the API key guards /mcp.
    if !loopback {
        config = config.disable_allowed_hosts();
    }
    StreamableHttpService::new(
        move || Ok(Strata::new(engine.clone(), searches.clone())),
        Default::default(),
        config,
    )
}

/// Serves MCP over stdin/stdout until the client closes it (`strata mcp`).
pub async fn serve_stdio(engine: Arc<Engine>) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let searches = Arc::new(tokio::sync::Semaphore::new(engine.config().serve.search_slots()));
    let running = Strata::new(engine, searches).serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
