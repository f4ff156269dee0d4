//! Navigation on the last commit: the documents, a document's outline, a section, pages,
//! references and definitions. The CLI, the HTTP routes and the MCP tools call these; a
//! document is named by its id or part of its path, a node by its id (`0042`) or section
//! number (`4.2`, `102(b)`), and every such name is resolved here.

use strata_core::{Error, Result};
use strata_index::DocSummary;
use strata_search::navigate::{self, CitedDefinition, Outline, Pages, Refs, Section};

use crate::Engine;

impl Engine {
    /// The indexed documents.
    pub fn documents(&self) -> Result<Vec<DocSummary>> {
        self.snapshot().store().documents()
    }

    /// A document's outline, `depth` levels below the document (all when `None`).
    pub fn outline(&self, doc: &str, depth: Option<usize>) -> Result<Outline> {
        let snapshot = self.snapshot();
        let (stored, _) = navigate::resolve(snapshot.store(), doc, None)?;
        Ok(navigate::outline_of(&stored, depth))
    }

    /// A section (with its subsections) of a document; no node is the whole document.
    pub fn section(&self, doc: &str, node: Option<&str>) -> Result<Section> {
        let snapshot = self.snapshot();
        let (stored, node) = navigate::resolve(snapshot.store(), doc, node)?;
        Ok(navigate::section(&stored, node))
    }

    /// Pages `first..=last` of a document (physical numbers from 1).
    pub fn pages(&self, doc: &str, first: u32, last: u32) -> Result<Pages> {
        navigate::check_page_range(first, last)?;
        let snapshot = self.snapshot();
        let (stored, _) = navigate::resolve(snapshot.store(), doc, None)?;
        navigate::pages(&stored, first, last)
    }

    /// Pages of a document given as a page (`12`) or a range (`5-7`).
    pub fn read_pages(&self, doc: &str, pages: &str) -> Result<Pages> {
        let (first, last) = navigate::parse_page_range(pages)?;
        self.pages(doc, first, last)
    }

    /// The references out of and into a section (the whole document when no node is given).
    pub fn references(&self, doc: &str, node: Option<&str>) -> Result<Refs> {
        let snapshot = self.snapshot();
        let (stored, node) = navigate::resolve(snapshot.store(), doc, node)?;
        Ok(navigate::refs(&stored, node))
    }

    /// The section that a reference made in section `node` points to, and the reference as
    /// the document writes it: `target` is that text (`Section 203(a)`) or its target
    /// (`203(a)`).
    pub fn follow(&self, doc: &str, node: &str, target: &str) -> Result<(String, Section)> {
        let snapshot = self.snapshot();
        let (stored, from) = navigate::resolve(snapshot.store(), doc, Some(node))?;
        let refs = navigate::refs(&stored, from);
        let wanted = strata_text::number::normalize(target);
        let hit = refs.outgoing.iter().find(|r| {
            r.reference.raw.eq_ignore_ascii_case(target)
                || r.reference.target == wanted
                || strata_text::number::normalize(&r.reference.raw) == wanted
        });
        let Some(hit) = hit else {
            return Err(Error::not_found(format!(
                "section {node} makes no reference {target:?}; call follow_reference without target to list them"
            )));
        };
        let Some(to) = hit.reference.resolved else {
            return Err(Error::not_found(format!(
                "{:?} points outside this document{}",
                hit.reference.raw,
                hit.reference.external.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
            )));
        };
        Ok((hit.reference.raw.clone(), navigate::section(&stored, to)))
    }

    /// The definitions of `term` on the last commit, in one document (id or part of its path)
    /// when `doc` is given.
    pub fn define(&self, term: &str, doc: Option<&str>) -> Result<Vec<CitedDefinition>> {
        let snapshot = self.snapshot();
        let mut found = navigate::define(snapshot.store(), term)?;
        if let Some(doc) = doc.filter(|d| !d.is_empty()) {
            let id = navigate::resolve_doc(snapshot.store(), doc)?;
            found.retain(|d| d.definition.doc == id);
        }
        Ok(found)
    }
}
