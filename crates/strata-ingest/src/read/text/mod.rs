//! Plain text: pages from form feeds, headings from numbering and layout.
//!
//! Plain text has no markup, so structure is inferred in two steps:
//!
//! 1. **Paginate.** Form feeds split pages. Running headers and footers (the RFC Editor's
//!    `Author  Standards Track  [Page 12]` / `RFC 3261  SIP ...  June 2002`, or any line that
//!    starts or ends most pages) are removed with the blank padding around them, so that the
//!    normalized text reads as one flow. A paragraph that runs over a page break is joined
//!    with a single newline; a break between paragraphs keeps one blank line. Where the
//!    printed page number differs from the physical one it is kept as a page label.
//! 2. **Scan lines** once for headings and blocks. Numbered headings (`4.2.1.  Title`,
//!    `20.1 Accept`, `Appendix A.`, `A.1.`) must start at column 0 after a blank line and
//!    continue the numbering plausibly, which keeps stray numbers, numbered lists and table
//!    of contents entries out. Legal headings (`SEC. 101.`, `ARTICLE V`), unnumbered
//!    column-0 headings of indented documents (`Abstract`) and short all-caps lines complete
//!    the outline.
//!
//! Both steps are linear in the input and never index outside a line.
//!
//! The stages live in submodules: `paginate` (step 1), `scan` driving `numbered` and
//! `heading` (headings) and `block` (blocks) (step 2), and `title`.

mod block;
mod heading;
mod line;
mod numbered;
mod paginate;
mod scan;
#[cfg(test)]
mod tests;
mod title;

use strata_core::Format;

use self::{paginate::paginate, scan::Scan, title::title};
use super::limits::merge_dropped;
use super::{decode::decode, Parsed, ReadError, ReadLimits, Reader};

/// Plain text (`.txt`), with RFC-style pagination and numbered, legal and layout headings.
pub struct TextReader;

impl Reader for TextReader {
    fn format(&self) -> Format {
        Format::Text
    }

    fn read_with(&self, bytes: &[u8], limits: &ReadLimits) -> Result<Parsed, ReadError> {
        let (source, warnings) = decode(bytes)?;
        // Without form feeds the text is the source, line for line.
        let first_line = (!source.contains('\x0c')).then_some(1);
        let paged = paginate(source);
        let indented = paged.indented;
        if paged.text.trim().is_empty() {
            return Err(ReadError::Empty);
        }
        let mut parsed = Parsed {
            text: paged.text,
            page_breaks: paged.breaks,
            page_labels: paged.labels,
            warnings,
            first_line,
            ..Parsed::default()
        };
        parsed.title = title(&parsed.text);
        let mut scan = Scan::new(&parsed.text, &parsed.page_breaks, indented, limits.max_headings);
        scan.run();
        (parsed.headings, parsed.dropped_headings) = scan.headings.finish();
        parsed.blocks = scan.blocks;
        if parsed.dropped_headings > 0 {
            merge_dropped(&parsed.text, &mut parsed.blocks, &parsed.headings);
        }
        Ok(parsed)
    }
}
