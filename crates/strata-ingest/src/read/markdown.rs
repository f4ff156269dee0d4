//! Markdown.
use super::{Parsed, ReadError, Reader};
use strata_core::Format;
/// CommonMark + GFM.
pub struct MarkdownReader;
impl Reader for MarkdownReader {
    fn format(&self) -> Format { Format::Markdown }
    fn read(&self, _bytes: &[u8]) -> Result<Parsed, ReadError> { todo!() }
}
