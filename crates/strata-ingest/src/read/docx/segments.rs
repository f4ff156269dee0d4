//! A large `word/document.xml` read in segments: runs of whole block-level elements of
//! `w:body`, each parsed as a small document of its own (the root's and the body's start
//! tags around it, so every namespace resolves as in the whole), and walked in order by one
//! [`super::body::Walker`]. roxmltree holds a tree of the whole part otherwise, about ten
//! times the XML: 3.5 million one-letter paragraphs (a 1.8 MB file) took 2.7 GB.
//!
//! The cut needs only where each element of the body ends, which a scan of the markup gives:
//! start, end and empty tags (quoted attribute values may hold `>`), comments, CDATA and
//! processing instructions. Anything the scan cannot place (a DTD, a body it cannot find)
//! leaves the part to be parsed whole, which then reports what is wrong with it.

/// When a document part is read in segments, and how large they are.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cut {
    /// Parts at most this large are parsed whole.
    pub whole: usize,
    /// About how much XML one segment holds (it ends at the first element end past this).
    pub segment: usize,
}

impl Cut {
    /// Parts up to 16 MB are parsed whole (their tree costs up to a few hundred MB);
    /// larger ones in segments of about 1 MB.
    pub const DEFAULT: Cut = Cut { whole: 16 << 20, segment: 1 << 20 };
}

/// `w:body` found in a part: what goes around each segment, and the body's content.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Body<'x> {
    /// The root's start tag and the body's, as written.
    pub open: String,
    /// The body's end tag and the root's.
    pub close: String,
    /// Everything between the body's start and end tags.
    pub content: &'x str,
}

impl Body<'_> {
    /// `segment` as a document of its own.
    pub fn wrap(&self, segment: &str) -> String {
        let mut xml = String::with_capacity(self.open.len() + segment.len() + self.close.len());
        xml.push_str(&self.open);
        xml.push_str(segment);
        xml.push_str(&self.close);
        xml
    }
}

/// One piece of markup, from `<` to its `>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Markup {
    Start,
    Empty,
    End,
    /// A comment, CDATA section or processing instruction.
    Other,
}

/// The markup that starts at `at` (a `<`), and where it ends (past its `>`); `None` for a
/// DTD or markup that never ends.
fn markup(xml: &str, at: usize) -> Option<(Markup, usize)> {
    let rest = &xml[at..];
    let until = |open: usize, close: &str| rest[open..].find(close).map(|i| at + open + i + close.len());
    if rest.starts_with("<!--") {
        return until(4, "-->").map(|end| (Markup::Other, end));
    }
    if rest.starts_with("<![CDATA[") {
        return until(9, "]]>").map(|end| (Markup::Other, end));
    }
    if rest.starts_with("<?") {
        return until(2, "?>").map(|end| (Markup::Other, end));
    }
    if rest.starts_with("<!") {
        return None;
    }
    if rest.starts_with("</") {
        return until(2, ">").map(|end| (Markup::End, end));
    }
    let mut quote = None;
    let mut last = b'<';
    for (i, &b) in rest.as_bytes().iter().enumerate().skip(1) {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => {
                return Some((if last == b'/' { Markup::Empty } else { Markup::Start }, at + i + 1))
            }
            _ => {}
        }
        if quote.is_none() && !b.is_ascii_whitespace() {
            last = b;
        }
    }
    None
}

/// The qualified name of the tag at `tag` (`<w:body …>` → `w:body`, `</w:body>` → `w:body`).
fn name(tag: &str) -> &str {
    let tag = tag.trim_start_matches("</").trim_start_matches('<');
    let end = tag.find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>').unwrap_or(tag.len());
    &tag[..end]
}

fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// Where the next markup at or after `from` starts, and what it is; `None` at the end or
/// when the scan cannot place it.
fn next(xml: &str, from: usize) -> Option<(usize, Markup, usize)> {
    let at = from + xml[from..].find('<')?;
    let (kind, end) = markup(xml, at)?;
    Some((at, kind, end))
}

/// Finds the root element and its `body` child; `None` when the part has no body the scan
/// can place.
pub(super) fn body(xml: &str) -> Option<Body<'_>> {
    let mut at = 0;
    let root = loop {
        let (start, kind, end) = next(xml, at)?;
        match kind {
            Markup::Other => at = end,
            Markup::Start => break start..end,
            Markup::Empty | Markup::End => return None,
        }
    };
    let mut depth = 0usize;
    at = root.end;
    let body = loop {
        let (start, kind, end) = next(xml, at)?;
        at = end;
        match kind {
            Markup::Start if depth == 0 && local(name(&xml[start..end])) == "body" => break start..end,
            Markup::Start => depth += 1,
            Markup::End => depth = depth.checked_sub(1)?,
            Markup::Empty | Markup::Other => {}
        }
    };
    let content = body.end..end_of(xml, body.end)?;
    let (root_name, body_name) = (name(&xml[root.clone()]), name(&xml[body.clone()]));
    Some(Body {
        open: format!("{}{}", &xml[root], &xml[body]),
        close: format!("</{body_name}></{root_name}>"),
        content: &xml[content],
    })
}

/// Where the element whose content starts at `from` ends its content (its end tag).
fn end_of(xml: &str, from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = from;
    loop {
        let (start, kind, end) = next(xml, at)?;
        match kind {
            Markup::Start => depth += 1,
            Markup::End if depth == 0 => return Some(start),
            Markup::End => depth -= 1,
            Markup::Empty | Markup::Other => {}
        }
        at = end;
    }
}

/// `content` cut after whole top-level elements, each piece `size` bytes or a little more
/// (one element past it), in order; together they are `content`.
pub(super) fn segments(content: &str, size: usize) -> Segments<'_> {
    Segments { content, at: 0, size }
}

/// The iterator of [`segments`].
pub(super) struct Segments<'x> {
    content: &'x str,
    at: usize,
    size: usize,
}

impl<'x> Iterator for Segments<'x> {
    type Item = &'x str;

    fn next(&mut self) -> Option<&'x str> {
        if self.at >= self.content.len() {
            return None;
        }
        let begin = self.at;
        let mut depth = 0usize;
        let mut at = begin;
        while let Some((_, kind, end)) = next(self.content, at) {
            at = end;
            match kind {
                Markup::Start => depth += 1,
                Markup::End => depth = depth.saturating_sub(1),
                Markup::Empty | Markup::Other => {}
            }
            if depth == 0 && at - begin >= self.size {
                self.at = at;
                return Some(&self.content[begin..at]);
            }
        }
        self.at = self.content.len();
        Some(&self.content[begin..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"<?xml version="1.0"?><!-- c --><w:document xmlns:w="urn:w" a='x>y'><w:background/><w:body b="1"><w:p a="1>2"><w:r><w:t>one</w:t></w:r></w:p><!-- <w:p> --><w:p/><w:tbl><w:tr/></w:tbl><![CDATA[<]]></w:body></w:document>"#;

    #[test]
    fn the_body_is_found_with_the_tags_around_it() {
        let body = body(DOC).unwrap();
        assert_eq!(body.open, r#"<w:document xmlns:w="urn:w" a='x>y'><w:body b="1">"#);
        assert_eq!(body.close, "</w:body></w:document>");
        assert!(body.content.starts_with(r#"<w:p a="1>2">"#));
        assert!(body.content.ends_with("<![CDATA[<]]>"));
    }

    #[test]
    fn segments_end_at_element_ends_and_tile_the_body() {
        let body = body(DOC).unwrap();
        let pieces: Vec<&str> = segments(body.content, 1).collect();
        assert_eq!(
            pieces,
            [
                r#"<w:p a="1>2"><w:r><w:t>one</w:t></w:r></w:p>"#,
                "<!-- <w:p> -->",
                "<w:p/>",
                "<w:tbl><w:tr/></w:tbl>",
                "<![CDATA[<]]>"
            ]
        );
        assert_eq!(pieces.concat(), body.content);
        assert_eq!(segments(body.content, 1 << 20).count(), 1);
        for piece in pieces {
            assert!(roxmltree::Document::parse(&body.wrap(piece)).is_ok(), "{piece}");
        }
    }

    #[test]
    fn what_the_scan_cannot_place_is_left_to_the_whole_parse() {
        assert_eq!(body("<!DOCTYPE d><d><body/></d>"), None);
        assert_eq!(body("<d><x/></d>"), None);
        assert_eq!(body("<d><body><p>"), None);
        assert_eq!(body("<d><body><p a=\"never closed></body></d>"), None);
    }
}
