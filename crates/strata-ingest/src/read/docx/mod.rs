//! DOCX: the text of a Word document, with its headings, numbering, lists, tables and
//! footnotes.
//!
//! A `.docx` is a zip of XML parts (`package`). The reader takes `word/document.xml` and,
//! when present, the parts that give it structure: `styles.xml` (`styles`: which paragraphs
//! are headings, by outline level), `numbering.xml` (`numbering`: the `1.2` Word draws in
//! front of numbered headings and list items) and `footnotes.xml` (`notes`). The body walk
//! (`body`, with `inline` for the runs inside a paragraph) writes the text the way the
//! HTML reader does: a blank line between blocks, one line per list item and table row.
//!
//! XML is parsed with `roxmltree` rather than `quick-xml`: the walk needs to look around a
//! node (a paragraph's `w:pPr` before its runs, a run's `w:rPr` to see hidden text, a style's
//! `w:basedOn` chain), which a read-only tree gives directly and a pull parser would need
//! hand-kept state for. roxmltree resolves namespaces (so Strict files and unusual prefixes
//! read the same), refuses DTDs (no entity expansion bombs), and is itself a safe pure-Rust
//! crate. The tree costs memory proportional to the XML, which [`MAX_UNZIPPED_BYTES`]
//! bounds.
//!
//! DOCX has no reliable pages: page breaks are decided by the program that lays the text out
//! (`w:lastRenderedPageBreak` records where Word last put them, on one machine, with one set
//! of fonts). `page_breaks` stays empty.
//!
//! Heading levels are the outline levels Word stores, not re-leveled from legal unit names
//! as the HTML reader does: the outline level is the author's own statement of the
//! structure, and Word's navigation pane shows exactly these levels.

mod body;
#[cfg(test)]
mod corpus_tests;
mod inline;
mod notes;
mod numbering;
mod package;
mod segments;
mod styles;
#[cfg(test)]
mod tests;
mod xml;

use strata_core::Format;

use self::body::{walk, Context, Walked, Walker};
use self::notes::Notes;
use self::numbering::Numbering;
use self::package::Package;
pub use self::package::MAX_UNZIPPED_BYTES;
use self::segments::Cut;
use self::styles::Styles;
use self::xml::{is, is_w, DC};
use super::{Parsed, ReadError, ReadLimits, Reader};

/// Word documents (Office Open XML, `.docx`).
pub struct DocxReader;

impl Reader for DocxReader {
    fn format(&self) -> Format {
        Format::Docx
    }

    fn read_with(&self, bytes: &[u8], limits: &ReadLimits) -> Result<Parsed, ReadError> {
        // Neither zip nor roxmltree is known to panic, but the reader contract is that
        // nothing does.
        std::panic::catch_unwind(|| read_docx(bytes, MAX_UNZIPPED_BYTES, limits)).unwrap_or_else(|_| {
            Err(ReadError::Malformed(
                "the DOCX reader failed on this file; open it in Word or LibreOffice and save it again as .docx"
                    .into(),
            ))
        })
    }
}

/// Reads a DOCX package whose parts may unzip to at most `limit` bytes, within `limits`.
fn read_docx(bytes: &[u8], limit: u64, limits: &ReadLimits) -> Result<Parsed, ReadError> {
    read_docx_cut(bytes, limit, limits, Cut::DEFAULT)
}

/// [`read_docx`], its document part read in segments as `cut` says.
fn read_docx_cut(bytes: &[u8], limit: u64, limits: &ReadLimits, cut: Cut) -> Result<Parsed, ReadError> {
    let mut package = Package::open(bytes, limit)?;
    let parts = package.parts()?;
    let Some(document) = package.part(&parts.document)? else {
        return Err(ReadError::Malformed(format!(
            "this .docx lists {} as its document but the zip has no such part; the file is damaged: \
             open it in Word (which offers to repair it) and save it again",
            parts.document
        )));
    };
    let mut warnings = Vec::new();
    // The structure parts are optional: a damaged one costs headings, numbers or notes, not
    // the text. The size cap still refuses the file.
    let mut optional = |name: &Option<String>, loses: &str| -> Result<Option<String>, ReadError> {
        let Some(name) = name else {
            return Ok(None);
        };
        match package.part(name) {
            Ok(text) => Ok(text),
            Err(e) if e.damaged => {
                warnings.push(format!("{}; {loses}", e.error));
                Ok(None)
            }
            Err(e) => Err(e.error),
        }
    };
    let styles_xml = optional(&parts.styles, "heading levels from styles are lost")?;
    let numbering_xml = optional(&parts.numbering, "list and heading numbers are lost")?;
    let footnotes_xml = optional(&parts.footnotes, "footnote text is lost")?;
    let core_xml = optional(&parts.core, "the document title from its properties is lost")?;
    let mut damaged = |part: &Option<String>, e: roxmltree::Error, loses: &str| {
        warnings.push(format!(
            "{} is not well-formed XML ({e}); {loses}; open the file in Word and save it again to repair it",
            part.as_deref().unwrap_or("a part")
        ));
    };
    let styles = Styles::parse(styles_xml.as_deref()).unwrap_or_else(|e| {
        damaged(&parts.styles, e, "heading levels from styles are lost");
        Styles::default()
    });
    let numbering = Numbering::parse(numbering_xml.as_deref()).unwrap_or_else(|e| {
        damaged(&parts.numbering, e, "list and heading numbers are lost");
        Numbering::default()
    });
    let notes = Notes::parse(footnotes_xml.as_deref()).unwrap_or_else(|e| {
        damaged(&parts.footnotes, e, "footnote text is lost");
        Notes::default()
    });
    let structure = Structure { styles: &styles, numbering: &numbering, notes: &notes };
    let walked = walk_document(&document, &parts.document, &structure, limits.max_headings, cut)?;
    if walked.text.trim().is_empty() {
        return Err(ReadError::Empty);
    }
    let title = walked.title.or_else(|| core_xml.as_deref().and_then(core_title));
    Ok(Parsed {
        text: walked.text,
        blocks: walked.blocks,
        headings: walked.headings,
        dropped_headings: walked.dropped_headings,
        title,
        warnings,
        ..Parsed::default()
    })
}

/// What the body walk reads besides the body: the parts that give it structure.
struct Structure<'a> {
    styles: &'a Styles,
    numbering: &'a Numbering,
    notes: &'a Notes,
}

impl Structure<'_> {
    fn context(&self, by_outline: bool, max_headings: usize) -> Context<'_> {
        Context {
            styles: self.styles,
            numbering: self.numbering,
            notes: self.notes,
            by_outline,
            max_headings,
        }
    }
}

/// Walks the body of the document part `xml` (named `name`): whole, or in segments when it
/// is over `cut.whole` bytes, so that its tree never holds the whole part.
fn walk_document(
    xml: &str,
    name: &str,
    structure: &Structure<'_>,
    max_headings: usize,
    cut: Cut,
) -> Result<Walked, ReadError> {
    let not_xml = |e: roxmltree::Error| {
        ReadError::Malformed(format!(
            "{name} in this .docx is not well-formed XML ({e}); the file is damaged: open it in Word \
             (which offers to repair it) and save it again"
        ))
    };
    if let Some(body) = segments::body(xml).filter(|_| xml.len() > cut.whole) {
        return walk_segments(&body, structure, max_headings, cut.segment).map_err(not_xml);
    }
    let doc = xml::parse(xml).map_err(not_xml)?;
    let Some(body) = doc.root_element().children().find(|n| is_w(*n, "body")) else {
        return Err(ReadError::Malformed(format!(
            "{name} in this .docx has no w:body, so it is not a Word document body; open the file in \
             Word or LibreOffice and save it as .docx"
        )));
    };
    let by_outline = structure.styles.any_outline() || has_outline_level(body);
    Ok(walk(body, &structure.context(by_outline, max_headings)))
}

/// Walks `body` one segment at a time (each parsed on its own), after a first pass that
/// looks for outline levels when the styles give none.
fn walk_segments(
    body: &segments::Body<'_>,
    structure: &Structure<'_>,
    max_headings: usize,
    size: usize,
) -> Result<Walked, roxmltree::Error> {
    let pieces = || segments::segments(body.content, size);
    let mut by_outline = structure.styles.any_outline();
    if !by_outline && body.content.contains("outlineLvl") {
        for piece in pieces() {
            let xml = body.wrap(piece);
            if has_outline_level(xml::parse(&xml)?.root_element()) {
                by_outline = true;
                break;
            }
        }
    }
    let context = structure.context(by_outline, max_headings);
    let mut walker = Walker::default_with(&context);
    for piece in pieces() {
        let xml = body.wrap(piece);
        let doc = xml::parse(&xml)?;
        if let Some(part) = doc.root_element().children().find(|n| is_w(*n, "body")) {
            walker.body(part);
        }
    }
    Ok(walker.finish())
}

/// Whether a paragraph under `node` has an outline level (0 to 8) of its own.
fn has_outline_level(node: roxmltree::Node<'_, '_>) -> bool {
    node.descendants().any(|n| {
        is_w(n, "outlineLvl")
            && xml::w_attr(n, "val").and_then(|v| v.parse::<u32>().ok()).is_some_and(|l| l < 9)
    })
}

/// `dc:title` from `docProps/core.xml`, whitespace-normalized, when not empty.
fn core_title(core: &str) -> Option<String> {
    let doc = xml::parse(core).ok()?;
    let node = doc.descendants().find(|n| is(*n, DC, "title"))?;
    let title = inline::one_line(node.text().unwrap_or_default());
    (!title.is_empty()).then_some(title)
}
