//! Footnotes (`word/footnotes.xml`): the text of each note by its `w:id`, one line each.
//!
//! Word keeps a note's text apart from the body, at the reference's `w:footnoteReference`.
//! The body walk writes a marker there and the note's text at the end of the section, so a
//! note is chunked and cited with the section that refers to it. Separator pseudo-notes
//! (`w:type="separator"`, `continuationSeparator`, `continuationNotice`) are not notes.

use std::collections::HashMap;

use super::inline::{one_line, runs, Mode};
use super::xml::{self, is_w, w_attr};

/// The footnotes of a document.
#[derive(Debug, Default)]
pub(super) struct Notes {
    text: HashMap<String, String>,
}

impl Notes {
    /// Reads `word/footnotes.xml`; `None` (no footnotes part) gives no notes.
    pub(super) fn parse(text: Option<&str>) -> Result<Notes, roxmltree::Error> {
        let Some(text) = text else {
            return Ok(Notes::default());
        };
        let doc = xml::parse(text)?;
        let mut notes = HashMap::new();
        for note in doc.root_element().children().filter(|n| is_w(*n, "footnote")) {
            if w_attr(note, "type").is_some_and(|t| t != "normal") {
                continue;
            }
            let Some(id) = w_attr(note, "id") else {
                continue;
            };
            let mut raw = String::new();
            runs(note, Mode::Line, &mut raw, &mut Vec::new(), &mut |_| None);
            let line = one_line(&raw);
            if !line.is_empty() {
                notes.entry(id.to_string()).or_insert(line);
            }
        }
        Ok(Notes { text: notes })
    }

    /// The text of note `id`, when it has some.
    pub(super) fn get(&self, id: &str) -> Option<&str> {
        self.text.get(id).map(String::as_str)
    }
}
