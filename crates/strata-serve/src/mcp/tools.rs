//! The tools: search, then navigate (outline, read a section or pages, define a term,
//! follow a reference, list the documents). Each is one call of the engine, answered as text
//! for the model ([`super::render`]) and as the engine's typed shape for programs.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router, ErrorData};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strata_engine::SearchOptions;
use strata_index::DocSummary;
use strata_search::navigate::CitedDefinition;

use super::{answer, check_query, failed, render, run, Strata};

/// `search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to find: words, a "quoted phrase", or a section number (§ 4.2, Section 203(a)).
    pub query: String,
    /// hierarchical (default: words and meaning, plus the sections whose headings the query
    /// names, a few passages per section), hybrid (the same without sections), keyword (exact
    /// words), exact (section numbers, defined terms, phrases) or dense (meaning only).
    pub mode: Option<String>,
    /// Number of passages, 1 to 100 (default 10).
    pub k: Option<usize>,
    /// Only this document (id from list_documents, or part of its path); DOC#NODE for one
    /// section and its subsections.
    pub doc: Option<String>,
    /// Only documents whose metadata has these values, e.g. {"company": "Acme", "year":
    /// "2024"} (list_documents shows each document's metadata).
    #[serde(default, rename = "where")]
    pub conditions: Option<std::collections::BTreeMap<String, String>>,
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

/// `define`'s structured content.
#[derive(Serialize)]
struct Definitions {
    definitions: Vec<CitedDefinition>,
}

/// `list_documents`' structured content.
#[derive(Serialize)]
struct Documents {
    documents: Vec<DocSummary>,
}

#[tool_router(vis = "pub(super)")]
impl Strata {
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
                conditions: args.conditions.unwrap_or_default(),
                budget: args.budget,
                ..SearchOptions::default()
            };
            let response = engine.search(&options)?;
            Ok(answer(render::search(&response), &response))
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
            let outline = engine.outline(&args.doc, args.depth)?;
            Ok(answer(render::outline(&outline), &outline))
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
            let mut section = engine.section(&args.doc, Some(&args.node))?;
            Ok(answer(render::section(&mut section), &section))
        })
        .await
    }

    #[tool(description = "Read pages of a document as printed, e.g. pages \"5-7\" or \"12\".")]
    async fn read_pages(&self, Parameters(args): Parameters<PagesArgs>) -> Result<CallToolResult, ErrorData> {
        let engine = self.engine.clone();
        run(move || {
            let mut pages = engine.read_pages(&args.doc, &args.pages)?;
            Ok(answer(render::pages(&mut pages), &pages))
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
            let definitions = engine.define(&args.term, args.doc.as_deref())?;
            Ok(answer(render::definitions(&args.term, &definitions), &Definitions { definitions }))
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
            if let Some(target) = args.target.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                let (raw, mut section) = engine.follow(&args.doc, &args.node, target)?;
                return Ok(answer(render::followed(&raw, &mut section), &section));
            }
            let refs = engine.references(&args.doc, Some(&args.node))?;
            Ok(answer(render::references(&refs), &refs))
        })
        .await
    }

    #[tool(description = "List the indexed documents: id, title, format, pages, sections and chunks.")]
    async fn list_documents(&self) -> Result<CallToolResult, ErrorData> {
        let engine = self.engine.clone();
        run(move || {
            let documents = engine.documents()?;
            Ok(answer(render::documents(&documents), &Documents { documents }))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read keys may use `/mcp` (`crate::auth`) because every tool only reads. A new tool
    /// fails this test until it is added here, having been checked: one that ingests or
    /// removes must be kept from read keys first.
    #[test]
    fn mcp_tools_only_read_so_read_keys_may_use_them() {
        let mut names: Vec<String> =
            Strata::tool_router().list_all().into_iter().map(|t| t.name.into()).collect();
        names.sort();
        let read_only = [
            "define",
            "follow_reference",
            "list_documents",
            "outline",
            "read_pages",
            "read_section",
            "search",
        ];
        assert_eq!(names, read_only, "a tool was added or removed: is it read-only? (see crate::auth)");
    }
}
