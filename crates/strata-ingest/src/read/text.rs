//! Text.
use super::{Parsed, ReadError, Reader};
use strata_core::Format;
/// Plain text.
pub struct TextReader;
impl Reader for TextReader {
    fn format(&self) -> Format { Format::Text }
    fn read(&self, _bytes: &[u8]) -> Result<Parsed, ReadError> { todo!() }
}
