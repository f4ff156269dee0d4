//! Bytes to normalized UTF-8: BOM removal, binary detection, lossy decoding with a warning,
//! CRLF to LF.

use super::ReadError;

/// Decodes `bytes` into normalized text. Returns the text and warnings.
///
/// - Empty or whitespace-only input is [`ReadError::Empty`].
/// - A NUL byte in the first 8 KiB, or more than 10% control bytes there, is
///   [`ReadError::Binary`].
/// - Invalid UTF-8 is decoded lossily (U+FFFD) with a warning that counts the bad sequences.
/// - `\r\n` and lone `\r` become `\n`; a UTF-8 BOM is dropped.
pub fn decode(bytes: &[u8]) -> Result<(String, Vec<String>), ReadError> {
    let mut warnings = Vec::new();
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ReadError::Empty);
    }
    let head = &bytes[..bytes.len().min(8192)];
    if let Some(pos) = head.iter().position(|&b| b == 0) {
        return Err(ReadError::Binary(format!("NUL byte at offset {pos}")));
    }
    let controls = head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c)).count();
    if controls * 10 > head.len() {
        return Err(ReadError::Binary(format!("{controls} control bytes in the first {} bytes", head.len())));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let bad = lossy.matches('\u{FFFD}').count();
            warnings.push(format!(
                "invalid UTF-8: {bad} byte sequence(s) replaced with U+FFFD; re-save the file as UTF-8 for exact text"
            ));
            lossy
        }
    };
    let text = if text.contains('\r') { text.replace("\r\n", "\n").replace('\r', "\n") } else { text };
    Ok((text, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_whitespace_are_refused() {
        assert_eq!(decode(b"").unwrap_err(), ReadError::Empty);
        assert_eq!(decode(b" \n\t\n").unwrap_err(), ReadError::Empty);
    }

    #[test]
    fn binary_is_refused() {
        assert!(matches!(decode(b"PK\x03\x04\x00\x00abc").unwrap_err(), ReadError::Binary(_)));
    }

    #[test]
    fn invalid_utf8_is_lossy_with_warning() {
        let (text, warnings) = decode(b"caf\xe9 au lait\r\nnext").unwrap();
        assert_eq!(text, "caf\u{FFFD} au lait\nnext");
        assert_eq!(warnings.len(), 1);
    }
}
