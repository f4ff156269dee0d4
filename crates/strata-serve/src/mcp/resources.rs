//! What the server says about itself, and the documents as resources:
//! `strata://documents/{id}` (the whole text) and `…/sections/{node}` (one section).

use rmcp::model::{
    Implementation, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool_handler, ErrorData, RoleServer, ServerHandler};

use super::Strata;

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
                 follow_reference to the sections a passage cites. Cite document, section and pages (lines in Markdown and plain text).",
            )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let engine = self.engine.clone();
        let docs = crate::error::blocking(move || Ok(engine.documents()?))
            .await
            .map_err(|e| ErrorData::internal_error(e.message, None))?;
        let resources = docs
            .into_iter()
            .map(|d| {
                Resource::new(format!("strata://documents/{}", d.id), d.id.to_string())
                    .with_title(d.title.clone())
                    .with_description(match d.has_pages() {
                        true => format!("{} ({} pages, {} sections)", d.path, d.pages, d.nodes),
                        false => format!("{} ({} sections)", d.path, d.nodes),
                    })
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
        let (doc, node) = (doc.to_string(), node.map(str::to_string));
        let engine = self.engine.clone();
        // No node: the root, whose section is the whole text.
        let text = tokio::task::spawn_blocking(move || engine.section(&doc, node.as_deref()).map(|s| s.text))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
            .map_err(|e| ErrorData::resource_not_found(e.to_string(), None))?;
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
    }
}
