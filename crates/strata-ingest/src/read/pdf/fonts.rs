//! What the layout needs from a PDF font: how its codes decode to text, how wide each glyph
//! is, and whether it looks bold.
//!
//! Decoding goes through lopdf's `Encoding` (ToUnicode CMaps, the standard encodings,
//! `/Differences`), except that a simple font without ToUnicode takes its glyph names first
//! (its Type 1 program's built-in encoding and its `/Differences`, see [`super::glyphs`]):
//! lopdf falls back to StandardEncoding for built-in encodings and drops ligature names.
//!
//! Widths come from `/Widths` (simple fonts) or the descendant font's `/W` (composite fonts,
//! 2-byte codes). A font without widths (the standard 14) gets half an em per glyph: word
//! gaps are then measured against guessed glyph ends, and words set tight with `Td` moves
//! may run together.

use std::cell::RefCell;
use std::collections::HashMap;

use lopdf::{Dictionary, Document, Encoding, Object};

use super::deref;

/// Bytes a ToUnicode CMap stream may inflate to.
const MAX_CMAP_BYTES: usize = 8 << 20;
/// Width, in em, of a glyph the font gives no width for.
const DEFAULT_WIDTH: f32 = 0.5;

/// A font of a page, ready for the interpreter.
pub struct Font<'d> {
    encoding: Option<Encoding<'d>>,
    /// Composite font: codes are two bytes.
    pub two_byte: bool,
    first_char: u32,
    widths: Vec<f32>,
    cid_widths: HashMap<u32, f32>,
    default_width: f32,
    /// Glyph space to text space (1/1000 except for Type 3 fonts).
    scale: f32,
    /// The font name or its descriptor says bold (or black, heavy, semibold).
    pub bold: bool,
    /// The base font name without a subset tag (`ABCDEE+Calibri-Light` → `calibri-light`).
    pub name: String,
    /// Codes whose text comes from glyph names (simple fonts without ToUnicode).
    named: HashMap<u32, String>,
    decoded: RefCell<HashMap<u32, String>>,
}

impl<'d> Font<'d> {
    /// Reads `dict`; nothing here fails: what cannot be read falls back to a default.
    pub fn new(doc: &'d Document, dict: &'d Dictionary) -> Font<'d> {
        let subtype = dict.get(b"Subtype").and_then(Object::as_name).unwrap_or(b"");
        let two_byte = subtype == b"Type0";
        let encoding = dict.get_font_encoding_with_limit(doc, MAX_CMAP_BYTES).ok();
        let number = |o: &Object| o.as_float().ok().or_else(|| deref(doc, o).and_then(|o| o.as_float().ok()));
        let mut font = Font {
            encoding,
            two_byte,
            first_char: 0,
            widths: Vec::new(),
            cid_widths: HashMap::new(),
            default_width: DEFAULT_WIDTH,
            scale: 0.001,
            bold: false,
            name: String::new(),
            named: HashMap::new(),
            decoded: RefCell::new(HashMap::new()),
        };
        let mut name = dict.get(b"BaseFont").and_then(Object::as_name).unwrap_or(b"").to_vec();
        let mut descriptor =
            dict.get(b"FontDescriptor").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_dict().ok());
        if two_byte {
            let descendant = dict
                .get(b"DescendantFonts")
                .ok()
                .and_then(|o| deref(doc, o))
                .and_then(|o| o.as_array().ok())
                .and_then(|a| a.first())
                .and_then(|o| deref(doc, o))
                .and_then(|o| o.as_dict().ok());
            if let Some(d) = descendant {
                font.default_width = d.get(b"DW").ok().and_then(number).map_or(1.0, |w| w / 1000.0);
                if let Some(w) = d.get(b"W").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_array().ok())
                {
                    font.cid_widths = cid_widths(doc, w);
                }
                descriptor = descriptor.or_else(|| {
                    d.get(b"FontDescriptor").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_dict().ok())
                });
            }
        } else {
            if dict.get(b"ToUnicode").is_err() {
                font.named = super::glyphs::simple_font_names(doc, dict);
            }
            font.first_char = dict.get(b"FirstChar").ok().and_then(number).unwrap_or(0.0).max(0.0) as u32;
            if subtype == b"Type3" {
                if let Some(m) =
                    dict.get(b"FontMatrix").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_array().ok())
                {
                    font.scale = m.first().and_then(number).unwrap_or(0.001);
                }
            }
            if let Some(w) =
                dict.get(b"Widths").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_array().ok())
            {
                font.widths = w.iter().map(|o| number(o).unwrap_or(0.0) * font.scale).collect();
            }
            if let Some(missing) = descriptor.and_then(|d| d.get(b"MissingWidth").ok()).and_then(number) {
                font.default_width = missing * font.scale;
            }
        }
        if let Some(d) = descriptor {
            if name.is_empty() {
                name = d.get(b"FontName").and_then(Object::as_name).unwrap_or(b"").to_vec();
            }
            let flags = d.get(b"Flags").ok().and_then(number).unwrap_or(0.0) as u32;
            let weight = d.get(b"FontWeight").ok().and_then(number).unwrap_or(0.0);
            font.bold = flags & (1 << 18) != 0 || weight >= 600.0;
        }
        let name = String::from_utf8_lossy(&name).to_ascii_lowercase();
        font.name = match name.split_once('+') {
            Some((tag, rest)) if tag.len() == 6 => rest.to_string(),
            _ => name.clone(),
        };
        font.bold |= ["bold", "black", "heavy", "semibold", "demi", ".b", "-b", "cmbx"]
            .iter()
            .any(|w| name.contains(w));
        font
    }

    /// Width of the glyph for `code`, in text space units per unit of font size.
    pub fn width(&self, code: u32) -> f32 {
        if self.two_byte {
            return self.cid_widths.get(&code).copied().unwrap_or(self.default_width);
        }
        code.checked_sub(self.first_char)
            .and_then(|i| self.widths.get(i as usize))
            .copied()
            .filter(|w| *w > 0.0)
            .unwrap_or(self.default_width)
    }

    /// The codes of a shown string: one or two bytes each.
    pub fn codes<'s>(&self, bytes: &'s [u8]) -> impl Iterator<Item = (u32, &'s [u8])> + 's {
        let n = if self.two_byte { 2 } else { 1 };
        bytes.chunks(n).map(|c| (c.iter().fold(0u32, |a, b| a << 8 | *b as u32), c))
    }

    /// The text of one code (cached), with ligatures spelt out. Unmappable codes give "".
    pub fn decode(&self, code: u32, bytes: &[u8]) -> String {
        if let Some(s) = self.decoded.borrow().get(&code) {
            return s.clone();
        }
        let raw = match (&self.encoding, self.named.get(&code)) {
            (_, Some(named)) => named.clone(),
            (Some(e), None) => e.bytes_to_string(bytes).unwrap_or_default(),
            (None, None) => bytes.iter().map(|b| *b as char).collect(),
        };
        let text = spell_out(&raw);
        self.decoded.borrow_mut().insert(code, text.clone());
        text
    }
}

/// Ligatures and presentation forms as letters, replacement and control characters dropped.
fn spell_out(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2009}' => out.push(' '),
            '\u{FFFD}' | '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{7F}' => {}
            '\t' | '\n' | '\r' => out.push(' '),
            '\u{00AD}' => out.push('-'),
            c => out.push(c),
        }
    }
    out
}

/// `/W` of a CID font: `c [w1 w2 …]` or `c_first c_last w`.
fn cid_widths(doc: &Document, w: &[Object]) -> HashMap<u32, f32> {
    let mut map = HashMap::new();
    let num = |o: &Object| o.as_float().ok();
    let mut i = 0;
    // Work, not just entries, is bounded: `0 65534 500` repeated would insert 65k widths each.
    let mut budget: u32 = 1 << 17;
    while i < w.len() && budget > 0 {
        let Some(first) = num(&w[i]) else { break };
        let first = first.max(0.0) as u32;
        match w.get(i + 1).and_then(|o| deref(doc, o)) {
            Some(Object::Array(list)) => {
                for (j, o) in list.iter().enumerate().take(budget as usize) {
                    map.insert(first.saturating_add(j as u32), num(o).unwrap_or(0.0) / 1000.0);
                }
                budget = budget.saturating_sub((list.len() as u32).max(1));
                i += 2;
            }
            Some(o) => {
                let last = num(o).unwrap_or(0.0).max(0.0) as u32;
                let width = w.get(i + 2).and_then(num).unwrap_or(0.0) / 1000.0;
                let last = last.min(first.saturating_add(budget - 1));
                for c in first..=last {
                    map.insert(c, width);
                }
                budget = budget.saturating_sub(last.saturating_sub(first).saturating_add(1));
                i += 3;
            }
            None => break,
        }
    }
    map
}
