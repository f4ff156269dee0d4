//! Html.
use super::{Parsed, ReadError, Reader};
use strata_core::Format;
/// HTML.
pub struct HtmlReader;
impl Reader for HtmlReader {
    fn format(&self) -> Format { Format::Html }
    fn read(&self, _bytes: &[u8]) -> Result<Parsed, ReadError> { todo!() }
}
