//! Defined terms: `"X" means …`, `the term "X" means …`, `X means …` and glossary entries.
//!
//! Three passes, all linear in the text:
//!
//! 1. **Quoted** terms, anywhere in the document: every defining verb (`means`, `includes`,
//!    `has the meaning`, …) is found once with one regex, and only the verbs that follow a
//!    closing quote (`"X" means`) or a `the term "X" … means` lead-in are kept. Anchoring on
//!    the verb rather than on quotes keeps a stray quote earlier in the text from pairing the
//!    wrong quotes. Markdown emphasis quotes a term too (`a _sequential media type_ is defined
//!    as …`), with the verbs that can only define (`means`, `is defined as`, `refers to`).
//! 2. **Unquoted** terms (`Director means …`, `The term user agent refers to …`), only inside
//!    a definitions section, where a capitalized word before `means` is a term and not prose.
//! 3. **Glossary** lines (`Term: definition`, `Term — definition`), only inside a definitions
//!    or glossary section, outside code blocks; a lowercase head counts only at the start of a
//!    paragraph or list item (else it is a wrapped line such as `in UNIX: it …`).
//!
//! A definitions section is a node whose title, or its parent's title, has one of the words
//! `Definitions`, `Glossary`, `Terms`, `Terminology`, `Interpretation`, `Acronyms`,
//! `Abbreviations` (see [`definition_sections`]); `Method Definitions` and the like specify
//! things rather than define words and do not count.
//!
//! The definition text is the defining sentence: from the term (or its `The term` lead-in) to
//! the first `.` or `;` that ends a sentence (not `U.S.C.`, `Sec.`, `e.g.`) or a blank line, capped at
//! [`MAX_TEXT`] bytes and never past the section. After `means—` or `means:` the definition is
//! a list, and only a period ends it.

use std::sync::LazyLock;

use regex::Regex;
use strata_core::{floor_char_boundary, normalize_term, BlockKind, Definition, Document, Span};

/// The longest definition text kept, in bytes.
pub const MAX_TEXT: usize = 600;
/// The longest term kept, in bytes.
pub const MAX_TERM_BYTES: usize = 80;
/// The most words a term may have.
pub const MAX_TERM_WORDS: usize = 8;

/// Titles of sections whose unquoted `X means` and `X: definition` lines are definitions.
static SECTION_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?-u:\b)(?:definitions?|glossary|terms|terminology|interpretation|acronyms|abbreviations)(?-u:\b)",
    )
    .unwrap()
});

/// Verbs that define a term when they follow it.
static VERB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)\b(?:means|mean|includes|include|has\s+the\s+meaning|have\s+the\s+meaning|shall\s+mean|shall\s+have\s+the\s+meaning|shall\s+include|is\s+defined\s+as|are\s+defined\s+as|refers\s+to|refer\s+to)\b",
    )
    .unwrap()
});

/// The quoted term(s) right before a verb, with an optional `the term` lead-in and, after a
/// lead-in, a short qualifier (`the term "X" for a claimed invention … means`). Matched on a
/// window that ends where the verb starts.
static QUOTED_BEFORE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?P<lead>(?-u:\b)(?:the\s+)?(?:terms?|words?|phrases?|expressions?)\s+)?(?P<terms>["“][^"“”\n]{1,100}["”](?:\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+)["“][^"“”\n]{1,100}["”])*)(?P<filler>[^"“”.;:\n]{0,100})$"#,
    )
    .unwrap()
});

/// What may sit between a quoted term and its verb without a lead-in: a comma, or an aside
/// such as `, as herein defined,`.
static BARE_FILLER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^\s*,?\s*(?:as\s+[^,"“”]{1,60},\s*)?$"#).unwrap());

/// A verb or an infinitive `to` in the text between a term and its defining verb.
static FILLER_VERB: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?-u:\b)(?:is|are|was|were|be|been|being|to)(?-u:\b)").unwrap());

/// An emphasized term right before a verb: `**X**`, `__X__`, `*X*`, `_X_`, not inside a word.
static EMPHASIZED_BEFORE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:^|[^\w*])(?:\*\*(?P<a>[^*\n]{1,80})\*\*|__(?P<b>[^_\n]{1,80})__|\*(?P<c>[^*\n]{1,80})\*|_(?P<d>[^_\n]{1,80})_)[ \t]*,?[ \t]*$",
    )
    .unwrap()
});

/// One quoted term inside a matched list.
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"["“](?P<t>[^"“”\n]{1,100})["”]"#).unwrap());

/// `The term user agent refers to …` inside a definitions section.
static UNQUOTED_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?-u:\b)the\s+(?P<plural>terms?)\s+(?P<terms>[a-z][\w\-/]*(?:[ \t]+[\w\-/]+){0,7}?)\s+(?P<verb>means|mean|refers\s+(?:only\s+)?to|refer\s+(?:only\s+)?to|includes|include|is\s+used\s+to|are\s+used\s+to|has\s+the\s+meaning|have\s+the\s+meaning)(?-u:\b)",
    )
    .unwrap()
});

/// `Director means …` at the start of a line, a list item or a sentence, inside a
/// definitions section. Case-sensitive: the term starts with a capital.
static UNQUOTED_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)(?:^[ \t]*|[.;:][ \t]+)(?:(?:\([A-Za-z0-9]{1,4}\)|\d{1,3}\.|[-*•])[ \t]*)*(?:\*\*|__|`)?(?P<term>[A-Z][\w\-/]*(?:[ \t]+[\w\-/]+){0,5}?)(?:\*\*|__|`)?[ \t]+(?P<verb>means|includes|has the meaning)(?-u:\b)",
    )
    .unwrap()
});

/// `Term: definition`, `Term — definition`, `Term - definition` at the start of a line.
static GLOSSARY_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^[ \t]*(?:[-*•+][ \t]+)?(?:\*\*|__|`)?(?P<term>[A-Za-z][^:\n—–*`]{0,79}?)(?:\*\*|__|`)?[ \t]*(?::|[ \t]-[ \t]|[—–])(?:\*\*|__)?[ \t]*(?P<def>\S[^\n]*)",
    )
    .unwrap()
});

/// Words that open a sentence but never name a term (`This means …`).
const NOT_TERMS: &[&str] = &[
    "this", "that", "these", "those", "it", "its", "such", "which", "each", "any", "there", "here", "what",
    "who", "he", "she", "they", "we", "you", "which", "and", "or", "but", "if", "in", "for", "as", "so",
    "all", "no", "not", "also",
];

/// Labels that look like glossary lines but are not terms (`Note: …`).
const NOT_GLOSSARY: &[&str] = &[
    "note",
    "notes",
    "example",
    "examples",
    "warning",
    "caution",
    "important",
    "tip",
    "see",
    "see also",
    "source",
    "sources",
    "figure",
    "table",
    "step",
    "question",
    "answer",
    "todo",
    "status",
    "abstract",
    "editor's note",
    "editors note",
    "author",
    "authors",
    "date",
    "version",
    "copyright",
    "reference",
    "references",
    "effective date",
    "amendments",
    "prior provisions",
    "codification",
    "url",
    "email",
    "phone",
    "comment",
    "comments",
];

/// Tokens followed by a period that do not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "sec", "secs", "subsec", "subsecs", "par", "pars", "subpar", "subpars", "cl", "cls", "no", "nos", "stat",
    "pub", "ch", "chs", "art", "arts", "vol", "vols", "pp", "p", "fig", "figs", "ed", "eds", "al", "cf",
    "vs", "v", "mr", "mrs", "ms", "dr", "st", "inc", "co", "corp", "ltd", "jan", "feb", "mar", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec", "approx", "dept", "gov", "rev", "div", "subch", "pt",
    "pts", "app", "supp", "fed", "reg", "regs", "cong", "sess", "res", "doc", "rept", "etc", "viz", "ibid",
    "id", "seq", "prop", "cir", "ct", "jr", "sr", "u.s", "u.s.c", "e.g", "i.e",
];

/// For each node (by index), true when it is a definitions section: its title or its
/// parent's title names definitions, a glossary, terms, terminology, interpretation, acronyms
/// or abbreviations.
pub fn definition_sections(doc: &Document) -> Vec<bool> {
    let nodes = doc.tree.nodes();
    let own: Vec<bool> = nodes.iter().map(|n| is_definitions_title(&n.title)).collect();
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| own[i] || n.parent.is_some_and(|p| own.get(p.index()).copied().unwrap_or(false)))
        .collect()
}

/// True when a title names a definitions section: `§100. Definitions`, `1.2 Terminology`,
/// `Appendix A. Acronyms`, `Defined Terms` — but not `Method Definitions` or `Type
/// Definitions`, which specify methods and types rather than define words.
pub fn is_definitions_title(title: &str) -> bool {
    SECTION_TITLE.find_iter(title).any(|m| {
        let before = title[..m.start()].trim_end();
        let previous = before.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
        !(m.as_str().to_ascii_lowercase().starts_with("definition")
            && TECHNICAL_NOUNS.contains(&previous.to_ascii_lowercase().as_str()))
    })
}

/// Nouns that make `<noun> Definitions` a specification section.
const TECHNICAL_NOUNS: &[&str] = &[
    "method",
    "methods",
    "type",
    "types",
    "function",
    "functions",
    "class",
    "classes",
    "object",
    "objects",
    "field",
    "fields",
    "header",
    "headers",
    "message",
    "messages",
    "frame",
    "frames",
    "schema",
    "schemas",
    "status",
    "code",
    "codes",
    "data",
    "error",
    "errors",
    "parameter",
    "parameters",
    "macro",
    "macros",
    "record",
    "records",
    "element",
    "elements",
    "attribute",
    "attributes",
    "struct",
    "structure",
    "structures",
    "interface",
    "interfaces",
    "event",
    "events",
    "constant",
    "constants",
    "variable",
    "variables",
    "resource",
    "resources",
    "format",
    "formats",
    "model",
    "models",
    "api",
    "policy",
    "policies",
    "option",
    "options",
];

/// Finds the terms a document defines, in document order. A term defined twice is listed
/// twice (the two definitions may differ).
pub fn find_definitions(doc: &Document) -> Vec<Definition> {
    let mut finder = Finder { doc, out: Vec::new() };
    finder.quoted();
    let sections = definition_sections(doc);
    for (i, node) in doc.tree.nodes().iter().enumerate() {
        if !sections[i] {
            continue;
        }
        // The section's own text, without its heading line.
        let start = node.heading.end.max(node.own.start);
        let region = Span::new(start.min(node.own.end), node.own.end);
        finder.unquoted(region);
        finder.glossary(region);
    }
    let mut out = finder.out;
    // Document order; the terms of one `the terms "X" and "Y"` keep their written order.
    out.sort_by_key(|d| d.span.start);
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert((d.span.start, d.normalized.clone())));
    if let Some(lines) = doc.lines() {
        for d in &mut out {
            d.lines = Some(lines.range(d.span));
        }
    }
    out
}

struct Finder<'d> {
    doc: &'d Document,
    out: Vec<Definition>,
}

impl Finder<'_> {
    /// Pass 1: quoted terms before a defining verb, anywhere.
    fn quoted(&mut self) {
        let text = self.doc.text.as_str();
        for verb in VERB.find_iter(text) {
            // Cheap filter: a closing quote within the window before the verb.
            let window_start = floor_char_boundary(text, verb.start().saturating_sub(320));
            let window = &text[window_start..verb.start()];
            let near = &window[floor_char_boundary(window, window.len().saturating_sub(110))..];
            if near.trim_end().ends_with(['*', '_']) {
                self.emphasized(verb, near, verb.start() - near.len());
                continue;
            }
            if !near.contains(['"', '”']) {
                continue;
            }
            // A verb inside a quotation (`struck out "shall include"`) defines nothing.
            if text[verb.end()..].starts_with(['"', '”']) {
                continue;
            }
            let Some(c) = QUOTED_BEFORE_VERB.captures(window) else { continue };
            let lead = c.name("lead");
            let filler = c.name("filler").map_or("", |m| m.as_str());
            // `The phrase "X" is added to include …` is prose about the words, not a
            // definition: no verb of its own between term and defining verb.
            if FILLER_VERB.is_match(filler) {
                continue;
            }
            // Without a `the term` lead-in, only a comma or an `, as herein defined,` aside
            // may sit between term and verb.
            if lead.is_none() && !BARE_FILLER.is_match(filler) {
                continue;
            }
            let terms = c.name("terms").unwrap();
            let start = window_start + lead.map_or(terms.start(), |l| l.start());
            let list_intro = is_list_intro(text, verb.end());
            for t in QUOTED.captures_iter(terms.as_str()) {
                let m = t.name("t").unwrap();
                // Quotes paired across two quoted strings (`"a", struck out "b"`) leave a
                // "term" that starts or ends with a space or starts with punctuation.
                let raw = m.as_str();
                if raw.starts_with(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.'))
                    || raw.ends_with(char::is_whitespace)
                {
                    continue;
                }
                let term_start = window_start + terms.start() + m.start();
                self.push(m.as_str(), term_start, start, verb.end(), list_intro);
            }
        }
    }

    /// Markdown's way of quoting a term being defined: `a _sequential media type_ is
    /// defined as …`. Only with verbs that can only define (`means`, `is defined as`,
    /// `refers to`), since emphasis is also plain emphasis.
    fn emphasized(&mut self, verb: regex::Match, near: &str, near_start: usize) {
        let v = verb.as_str().to_ascii_lowercase();
        if !(v.starts_with("mean") || v.contains("defined") || v.starts_with("refer")) {
            return;
        }
        let Some(c) = EMPHASIZED_BEFORE_VERB.captures(near) else { return };
        let Some(m) = ["a", "b", "c", "d"].iter().find_map(|g| c.name(g)) else { return };
        let delimiter = if c.name("a").is_some() || c.name("b").is_some() { 2 } else { 1 };
        let raw = m.as_str();
        if raw.starts_with(char::is_whitespace) || raw.ends_with(char::is_whitespace) {
            return;
        }
        let term_start = near_start + m.start();
        let list_intro = is_list_intro(&self.doc.text, verb.end());
        self.push(raw, term_start, term_start - delimiter, verb.end(), list_intro);
    }

    /// Pass 2: unquoted terms inside a definitions section.
    fn unquoted(&mut self, region: Span) {
        let text = self.doc.text.as_str();
        let slice = region.slice(text);
        for c in UNQUOTED_LEAD.captures_iter(slice) {
            let whole = c.get(0).unwrap();
            let terms = c.name("terms").unwrap();
            let verb_end = region.start + whole.end();
            let list_intro = is_list_intro(text, verb_end);
            let plural = c["plural"].eq_ignore_ascii_case("terms");
            let start = region.start + whole.start();
            if plural {
                for (off, term) in split_term_list(terms.as_str()) {
                    self.push(term, region.start + terms.start() + off, start, verb_end, list_intro);
                }
            } else {
                self.push(terms.as_str(), region.start + terms.start(), start, verb_end, list_intro);
            }
        }
        for c in UNQUOTED_START.captures_iter(slice) {
            let term = c.name("term").unwrap();
            let verb = c.name("verb").unwrap();
            let mut word_start = term.start();
            let mut t = term.as_str();
            // `The Director means …`: the article is not part of the term.
            for article in ["The ", "A ", "An "] {
                if let Some(rest) = t.strip_prefix(article) {
                    word_start += article.len();
                    t = rest.trim_start();
                    break;
                }
            }
            let first = t.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            if t.is_empty() || NOT_TERMS.contains(&first.as_str()) {
                continue;
            }
            let at = region.start + word_start;
            let verb_end = region.start + verb.end();
            self.push(t, at, at, verb_end, is_list_intro(text, verb_end));
        }
    }

    /// Pass 3: glossary lines inside a definitions or glossary section.
    fn glossary(&mut self, region: Span) {
        let text = self.doc.text.as_str();
        let slice = region.slice(text);
        let bytes = text.as_bytes();
        for c in GLOSSARY_LINE.captures_iter(slice) {
            let term = c.name("term").unwrap();
            // `Host: example.com` in an example is a header line, not an entry.
            if in_code(self.doc, region.start + term.start()) {
                continue;
            }
            let def = c.name("def").unwrap();
            let t = term.as_str().trim();
            // A lowercase head is an entry only when it starts a paragraph or is marked up
            // (`- term:`, `**term**:`); otherwise it is a wrapped line (`in UNIX: it …`).
            let whole = c.get(0).unwrap();
            let line_start = region.start + whole.start();
            let marked = whole.as_str().trim_start().starts_with(['-', '*', '•', '+', '_', '`']);
            if t.starts_with(|c: char| c.is_lowercase())
                && !marked
                && !starts_paragraph(text, line_start, region.start)
            {
                continue;
            }
            if !is_glossary_term(t) || def.as_str().trim().chars().filter(|c| c.is_alphanumeric()).count() < 2
            {
                continue;
            }
            // The entry starts with its line (list marker and emphasis included).
            let start =
                region.start + whole.start() + (whole.as_str().len() - whole.as_str().trim_start().len());
            // The entry runs to the end of its line, and on over indented continuation lines.
            let mut end = region.start + def.end();
            let cap = floor_char_boundary(text, (start + MAX_TEXT).min(region.end));
            while end < cap && bytes[end] == b'\n' {
                let next = end + 1;
                let line_end = text[next..].find('\n').map_or(text.len(), |i| next + i);
                let line = &text[next..line_end];
                if line.trim().is_empty() || !line.starts_with([' ', '\t']) || GLOSSARY_LINE.is_match(line) {
                    break;
                }
                end = line_end;
            }
            let end = end.min(cap);
            self.emit(t, start, Span::new(start, end));
        }
    }

    /// Adds the definition of `term` (found at `term_start`) whose sentence starts at
    /// `start` and whose verb ends at `verb_end`.
    fn push(&mut self, term: &str, term_start: usize, start: usize, verb_end: usize, list_intro: bool) {
        let node = self.doc.tree.node_at(term_start);
        let limit = self.doc.tree.get(node).map_or(self.doc.text.len(), |n| n.own.end.max(verb_end));
        let end = sentence_end(&self.doc.text, verb_end, limit.min(start + MAX_TEXT), list_intro);
        self.emit(term, start, Span::new(start, end.max(verb_end)));
    }

    fn emit(&mut self, term: &str, start: usize, span: Span) {
        let term = term.trim().trim_end_matches([',', '.', ';', ':']).trim();
        if !is_term(term) {
            return;
        }
        let text = span.slice(&self.doc.text).trim_end().to_string();
        self.out.push(Definition {
            term: term.to_string(),
            normalized: normalize_term(term),
            text,
            span,
            doc: self.doc.id.clone(),
            node: self.doc.tree.node_at(start),
            lines: None,
        });
    }
}

/// A term worth keeping: not empty, at most [`MAX_TERM_BYTES`] and [`MAX_TERM_WORDS`], with a
/// letter in it.
fn is_term(term: &str) -> bool {
    !term.is_empty()
        && term.len() <= MAX_TERM_BYTES
        && term.split_whitespace().count() <= MAX_TERM_WORDS
        && term.chars().any(|c| c.is_alphabetic())
}

/// The most words a glossary term may have: longer heads are sentences with a dash.
pub const MAX_GLOSSARY_WORDS: usize = 5;

fn in_code(doc: &Document, offset: usize) -> bool {
    let i = doc.blocks.partition_point(|b| b.span.end <= offset);
    doc.blocks.get(i).is_some_and(|b| b.kind == BlockKind::Code && b.span.contains(offset))
}

/// A glossary line's term: up to [`MAX_GLOSSARY_WORDS`] plain words (letters, digits,
/// `-/'&+`), not a label like `Note`.
fn is_glossary_term(term: &str) -> bool {
    is_term(term)
        && term.split_whitespace().count() <= MAX_GLOSSARY_WORDS
        && term.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '/' | '\'' | '’' | '&' | '+'))
        && !NOT_GLOSSARY.contains(&term.to_lowercase().as_str())
}

/// True when the line at `at` follows a blank line or the start of `region_start`.
fn starts_paragraph(text: &str, at: usize, region_start: usize) -> bool {
    let before = text[region_start..at].trim_end_matches([' ', '\t']);
    let before = before.strip_suffix('\n').unwrap_or(before);
    before.trim_end_matches([' ', '\t', '\r']).is_empty() || before.ends_with('\n')
}

/// Splits `client and server`, `A, B, and C` into terms with their byte offsets.
fn split_term_list(list: &str) -> Vec<(usize, &str)> {
    static SEP: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+").unwrap());
    let mut out = Vec::new();
    let mut at = 0;
    for m in SEP.find_iter(list) {
        out.push((at, &list[at..m.start()]));
        at = m.end();
    }
    out.push((at, &list[at..]));
    out.retain(|(_, t)| !t.trim().is_empty());
    out
}

/// True when the verb ending at `verb_end` introduces a list (`means—`, `means:`,
/// `includes the following:`): then only a period ends the definition.
fn is_list_intro(text: &str, verb_end: usize) -> bool {
    let rest = text[verb_end..].trim_start_matches([' ', '\t']);
    rest.starts_with(['—', ':', '–'])
        || rest.starts_with("--")
        || rest.starts_with("- ")
        || rest.starts_with("the following:")
}

/// The end of the sentence that runs on from `from`: after the first `.` or `;` that ends a
/// sentence, at a blank line, or at `limit`. In a list (`list` true), `;` and blank lines do
/// not end it.
pub(crate) fn sentence_end(text: &str, from: usize, limit: usize, list: bool) -> usize {
    let bytes = text.as_bytes();
    let limit = floor_char_boundary(text, limit.min(text.len()));
    let mut i = from;
    while i < limit {
        match bytes[i] {
            b'.' if ends_sentence(text, i) => {
                let mut j = i + 1;
                while j < bytes.len() && matches!(bytes[j], b'"' | b')' | b'\'') {
                    j += 1;
                }
                if text[j..].starts_with(['”', '’']) {
                    j += 3;
                }
                return j.min(text.len());
            }
            b';' if !list && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace()) => return i + 1,
            b'\n' if !list => {
                // A blank line ends a paragraph.
                let mut j = i + 1;
                while j < limit && matches!(bytes[j], b' ' | b'\t' | b'\r') {
                    j += 1;
                }
                if j < limit && bytes[j] == b'\n' {
                    return trim_end(text, i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    trim_end(text, limit)
}

/// True when the period at `i` ends a sentence: whitespace (or the end) follows, the token
/// before it is not an abbreviation (`U.S.C.`, `Sec.`, `e.g.`, `Pub. L.`), and the next word
/// does not start in lowercase.
fn ends_sentence(text: &str, i: usize) -> bool {
    let bytes = text.as_bytes();
    let mut j = i + 1;
    while j < bytes.len() && matches!(bytes[j], b'"' | b')' | b'\'') {
        j += 1;
    }
    if text[j..].starts_with(['”', '’']) {
        j += 3;
    }
    if j < bytes.len() && !bytes[j].is_ascii_whitespace() {
        return false;
    }
    let token_start = text[..i]
        .rfind(|c: char| c.is_whitespace() || matches!(c, '(' | '"' | '“' | '[' | '—'))
        .map_or(0, |p| p + text[p..].chars().next().map_or(1, char::len_utf8));
    let token = &text[token_start..i];
    let next = text[j..].trim_start().chars().next();
    if token.contains('.') || ABBREVIATIONS.contains(&token.to_ascii_lowercase().as_str()) {
        return false;
    }
    // An initial (`L.` in `Pub. L. 112–29`) before a number or another initial.
    if token.len() == 1 && token.as_bytes()[0].is_ascii_uppercase() {
        let rest = text[j..].trim_start();
        let initial =
            rest.len() >= 2 && rest.as_bytes()[0].is_ascii_uppercase() && rest.as_bytes()[1] == b'.';
        if next.is_some_and(|c| c.is_ascii_digit()) || initial {
            return false;
        }
    }
    !next.is_some_and(|c| c.is_lowercase())
}

fn trim_end(text: &str, end: usize) -> usize {
    text[..end].trim_end().len()
}

#[cfg(test)]
#[path = "definitions_tests.rs"]
mod tests;
