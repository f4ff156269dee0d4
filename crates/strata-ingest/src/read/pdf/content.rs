//! The content-stream interpreter: a page's operators to positioned glyphs.
//!
//! Only what places text is followed: the graphics state stack (`q`/`Q`/`cm`), text objects
//! and their state (`BT`, `Tf`, `Tc`, `Tw`, `Tz`, `TL`, `Ts`, `Td`, `TD`, `Tm`, `T*`), the
//! show operators (`Tj`, `TJ`, `'`, `"`) and form XObjects (`Do`, nested at most
//! [`MAX_FORM_DEPTH`] deep). Each glyph gets its baseline origin and advance in page space
//! (PDF 32000-1, 9.4.4), so the layout can rebuild lines and columns whatever order the
//! producer wrote them in.

use std::collections::HashMap;
use std::ops::ControlFlow;

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object};

use super::deref;
use super::fonts::Font;

/// Form XObjects inside form XObjects followed at most this deep.
const MAX_FORM_DEPTH: usize = 8;
/// Form XObjects drawn per page (a form drawing itself ten times, ten deep, is 10^8 calls).
const MAX_FORMS: usize = 2_000;
/// Glyphs kept per page; a page beyond it is cut (a pathological or hostile stream).
const MAX_GLYPHS: usize = 2_000_000;
/// Depth of the `q` stack kept (deeper saves are dropped, as viewers do).
const MAX_SAVES: usize = 256;
/// Bytes a form XObject's stream may inflate to.
const MAX_FORM_BYTES: usize = 64 << 20;

/// One glyph in page space (points, origin bottom left).
#[derive(Debug, Clone)]
pub struct Glyph {
    /// The glyph's text: usually one character, a ligature spelt out, or empty.
    pub text: String,
    /// Baseline start and end, x.
    pub x0: f32,
    pub x1: f32,
    /// Baseline y.
    pub y: f32,
    /// Rendered font size (font size times the vertical scale of the text matrix and CTM).
    pub size: f32,
    /// Whether the font looks bold.
    pub bold: bool,
    /// The font, numbered by name in order of first use in the document.
    pub font: u32,
    /// Drawn rotated or skewed (margin text, rotated tables).
    pub rotated: bool,
}

#[derive(Clone, Copy)]
struct M([f32; 6]);

impl M {
    const ID: M = M([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    /// `self` then `other`.
    fn then(self, o: M) -> M {
        let [a, b, c, d, e, f] = self.0;
        let [a2, b2, c2, d2, e2, f2] = o.0;
        M([
            a * a2 + b * c2,
            a * b2 + b * d2,
            c * a2 + d * c2,
            c * b2 + d * d2,
            e * a2 + f * c2 + e2,
            e * b2 + f * d2 + f2,
        ])
    }
    fn apply(self, x: f32, y: f32) -> (f32, f32) {
        let [a, b, c, d, e, f] = self.0;
        (a * x + c * y + e, b * x + d * y + f)
    }
    fn translate(x: f32, y: f32) -> M {
        M([1.0, 0.0, 0.0, 1.0, x, y])
    }
}

#[derive(Clone)]
struct State {
    ctm: M,
    char_space: f32,
    word_space: f32,
    h_scale: f32,
    leading: f32,
    rise: f32,
    font: Option<Vec<u8>>,
    size: f32,
}

/// The resources a content stream sees, nearest first.
#[derive(Clone)]
struct Resources<'d> {
    dicts: Vec<&'d Dictionary>,
}

impl<'d> Resources<'d> {
    fn lookup(&self, doc: &'d Document, kind: &[u8], name: &[u8]) -> Option<&'d Object> {
        self.dicts.iter().find_map(|r| {
            let group = deref(doc, r.get(kind).ok()?)?.as_dict().ok()?;
            deref(doc, group.get(name).ok()?)
        })
    }
}

/// The graphics and text state of one content stream, as its operators change it.
struct TextState {
    gs: State,
    /// Saved by `q`, restored by `Q`.
    stack: Vec<State>,
    /// The text matrix and the text line matrix.
    tm: M,
    tlm: M,
}

impl TextState {
    /// Applies an operator that changes the state and draws nothing (others are ignored).
    fn apply(&mut self, op: &Operation) {
        let f = |i: usize| operand(op, i);
        let gs = &mut self.gs;
        match op.operator.as_str() {
            "q" if self.stack.len() < MAX_SAVES => self.stack.push(gs.clone()),
            "Q" => {
                if let Some(s) = self.stack.pop() {
                    *gs = s;
                }
            }
            "cm" => gs.ctm = M([f(0), f(1), f(2), f(3), f(4), f(5)]).then(gs.ctm),
            "BT" => {
                self.tm = M::ID;
                self.tlm = M::ID;
            }
            "Tf" => {
                gs.font = op.operands.first().and_then(|o| o.as_name().ok()).map(<[u8]>::to_vec);
                gs.size = f(1);
            }
            "Tc" => gs.char_space = f(0),
            "Tw" => gs.word_space = f(0),
            "Tz" => gs.h_scale = f(0) / 100.0,
            "TL" => gs.leading = f(0),
            "Ts" => gs.rise = f(0),
            "Td" | "TD" => {
                if op.operator == "TD" {
                    gs.leading = -f(1);
                }
                self.tlm = M::translate(f(0), f(1)).then(self.tlm);
                self.tm = self.tlm;
            }
            "Tm" => {
                self.tlm = M([f(0), f(1), f(2), f(3), f(4), f(5)]);
                self.tm = self.tlm;
            }
            "T*" => self.next_line(),
            _ => {}
        }
    }

    /// To the start of the next line (`T*`, and before `'` and `"` show).
    fn next_line(&mut self) {
        self.tlm = M::translate(0.0, -self.gs.leading).then(self.tlm);
        self.tm = self.tlm;
    }
}

/// Operand `i` of `op` as a number; 0 when it is missing or not a number.
fn operand(op: &Operation, i: usize) -> f32 {
    op.operands.get(i).and_then(|o| o.as_float().ok()).unwrap_or(0.0)
}

/// Interprets pages. Fonts are read once per font object for the whole document.
pub struct Interpreter<'d> {
    doc: &'d Document,
    fonts: HashMap<*const Dictionary, (Font<'d>, u32)>,
    font_names: HashMap<String, u32>,
    glyphs: Vec<Glyph>,
    /// Forms drawn and operators run on the current page, against the page budgets.
    forms: usize,
    operations: usize,
    /// Operators run per page at most, forms included (`[ingest] max_page_operators`).
    max_operations: usize,
    /// Why the current page was cut short, when a page budget stopped it.
    pub cut: Option<String>,
    /// The forms being drawn (a form that draws itself is skipped).
    open_forms: Vec<*const lopdf::Stream>,
    /// Problems met (bad operands are skipped, not fatal).
    pub warnings: Vec<String>,
}

impl<'d> Interpreter<'d> {
    /// An interpreter for pages of `doc` that reads `max_operations` operators of a page at
    /// most, forms included.
    pub fn new(doc: &'d Document, max_operations: usize) -> Self {
        Interpreter {
            doc,
            fonts: HashMap::new(),
            font_names: HashMap::new(),
            glyphs: Vec::new(),
            forms: 0,
            operations: 0,
            max_operations,
            cut: None,
            open_forms: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Operators parsed on the current page so far.
    #[cfg(test)]
    pub fn operations(&self) -> usize {
        self.operations
    }

    /// The glyphs of page `page_id`, in content order, in display space: `to_display` maps
    /// user space to the page as shown (its box origin at 0, its `/Rotate` applied).
    pub fn page(&mut self, page_id: lopdf::ObjectId, content: &[u8], to_display: [f32; 6]) -> Vec<Glyph> {
        self.glyphs.clear();
        self.forms = 0;
        self.operations = 0;
        self.cut = None;
        let doc = self.doc;
        let mut dicts = Vec::new();
        if let Ok((direct, ids)) = doc.get_page_resources(page_id) {
            dicts.extend(direct);
            dicts.extend(ids.into_iter().filter_map(|id| doc.get_dictionary(id).ok()));
        }
        let resources = Resources { dicts };
        let state = State {
            ctm: M(to_display),
            char_space: 0.0,
            word_space: 0.0,
            h_scale: 1.0,
            leading: 0.0,
            rise: 0.0,
            font: None,
            size: 0.0,
        };
        self.run(content, &resources, state, 0);
        std::mem::take(&mut self.glyphs)
    }

    /// Runs one content stream, its operators parsed one at a time: a page stops at its
    /// operator budget as the operators are read, with the text before it kept, and a
    /// stream that fails to parse keeps the text before the failure.
    fn run(&mut self, content: &[u8], resources: &Resources<'d>, start: State, depth: usize) {
        let mut text = TextState { gs: start, stack: Vec::new(), tm: M::ID, tlm: M::ID };
        for op in Content::decode_iter(content) {
            let Some(op) = self.next_operation(op) else { return };
            match op.operator.as_str() {
                "Tj" | "'" | "\"" | "TJ" => self.show_operation(&op, &mut text, resources),
                "Do" if depth < MAX_FORM_DEPTH => {
                    if self.draw_form(&op, &text.gs, resources, depth).is_break() {
                        return;
                    }
                }
                _ => text.apply(&op),
            }
            if self.glyphs.len() >= MAX_GLYPHS {
                self.cut = Some(format!("it has more than {MAX_GLYPHS} glyphs"));
                return;
            }
        }
    }

    /// The next operator of a stream, counted against the page's budget; `None` once the
    /// page is cut (here or before) or the stream no longer parses.
    fn next_operation(&mut self, op: lopdf::Result<Operation>) -> Option<Operation> {
        if self.cut.is_some() {
            return None;
        }
        let op = match op {
            Ok(op) => op,
            Err(e) => {
                self.warnings.push(format!(
                    "a content stream could not be parsed past operator {} ({e}); its text from there is missing",
                    self.operations
                ));
                return None;
            }
        };
        self.operations += 1;
        if self.operations > self.max_operations {
            self.cut = Some(format!(
                "it has more than {} operators ([ingest] max_page_operators)",
                self.max_operations
            ));
            return None;
        }
        Some(op)
    }

    /// A show operator (`Tj`, `TJ`, `'`, `"`): its strings' glyphs, with the text state
    /// they move.
    fn show_operation(&mut self, op: &Operation, text: &mut TextState, resources: &Resources<'d>) {
        let doc = self.doc;
        if op.operator == "\"" {
            text.gs.word_space = operand(op, 0);
            text.gs.char_space = operand(op, 1);
        }
        if op.operator != "Tj" && op.operator != "TJ" {
            text.next_line();
        }
        let font = text.gs.font.as_deref().and_then(|n| resources.lookup(doc, b"Font", n));
        let Some(dict) = font.and_then(|o| o.as_dict().ok()) else { return };
        let key = dict as *const Dictionary;
        if !self.fonts.contains_key(&key) {
            let font = Font::new(doc, dict);
            let next = self.font_names.len() as u32;
            let id = *self.font_names.entry(font.name.clone()).or_insert(next);
            self.fonts.insert(key, (font, id));
        }
        let items: Vec<&Object> = match op.operator.as_str() {
            "TJ" => {
                op.operands.first().and_then(|o| o.as_array().ok()).map_or(Vec::new(), |a| a.iter().collect())
            }
            "\"" => op.operands.get(2).into_iter().collect(),
            _ => op.operands.first().into_iter().collect(),
        };
        for item in items {
            match item {
                Object::String(bytes, _) => self.show(key, bytes, &text.gs, &mut text.tm),
                o => {
                    let n = o.as_float().unwrap_or(0.0);
                    text.tm = M::translate(-n / 1000.0 * text.gs.size * text.gs.h_scale, 0.0).then(text.tm);
                }
            }
        }
    }

    /// `Do` of a form XObject: its stream run with its resources and matrix, unless it is
    /// not a form, is being drawn already, or cannot be inflated. Breaks once the page has
    /// drawn more than [`MAX_FORMS`] forms.
    fn draw_form(
        &mut self,
        op: &Operation,
        gs: &State,
        resources: &Resources<'d>,
        depth: usize,
    ) -> ControlFlow<()> {
        let doc = self.doc;
        let Some(name) = op.operands.first().and_then(|o| o.as_name().ok()) else {
            return ControlFlow::Continue(());
        };
        let Some(Object::Stream(form)) = resources.lookup(doc, b"XObject", name) else {
            return ControlFlow::Continue(());
        };
        let key = form as *const lopdf::Stream;
        if form.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form")
            || self.open_forms.contains(&key)
        {
            return ControlFlow::Continue(());
        }
        self.forms += 1;
        if self.forms > MAX_FORMS {
            self.cut = Some(format!("it draws more than {MAX_FORMS} forms"));
            return ControlFlow::Break(());
        }
        let data = match form.decompressed_content_with_limit(MAX_FORM_BYTES) {
            Ok(d) => d,
            Err(_) if form.dict.get(b"Filter").is_err() => form.content.clone(),
            Err(_) => return ControlFlow::Continue(()),
        };
        let mut inner = resources.clone();
        if let Some(r) =
            form.dict.get(b"Resources").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_dict().ok())
        {
            inner.dicts.insert(0, r);
        }
        let mut s = gs.clone();
        if let Some(m) = form.dict.get(b"Matrix").ok().and_then(|o| o.as_array().ok()) {
            let v: Vec<f32> = m.iter().map(|o| o.as_float().unwrap_or(0.0)).collect();
            if v.len() == 6 {
                s.ctm = M([v[0], v[1], v[2], v[3], v[4], v[5]]).then(s.ctm);
            }
        }
        self.open_forms.push(key);
        self.run(&data, &inner, s, depth + 1);
        self.open_forms.pop();
        ControlFlow::Continue(())
    }

    fn show(&mut self, font: *const Dictionary, bytes: &[u8], gs: &State, tm: &mut M) {
        let Some((font, font_id)) = self.fonts.get(&font) else { return };
        for (code, raw) in font.codes(bytes) {
            let w = font.width(code);
            let trm = tm.then(gs.ctm);
            let [a, b, c, d, _, _] = trm.0;
            let (x0, y) = trm.apply(0.0, gs.rise);
            let (x1, _) = trm.apply(w * gs.size * gs.h_scale, gs.rise);
            // The size across the baseline: a shear (`c`, how Word draws fake italics) does
            // not make glyphs taller.
            let size = (gs.size * (a * d - b * c) / (a * a + b * b).sqrt().max(1e-6)).abs();
            // Rotated: the baseline does not run left to right (a shear alone keeps it).
            let rotated = b.abs() > 0.01 * a.abs() || a <= 0.0;
            let text = font.decode(code, raw);
            let space = if !font.two_byte && code == 32 { gs.word_space } else { 0.0 };
            let advance = (w * gs.size + gs.char_space + space) * gs.h_scale;
            *tm = M::translate(advance, 0.0).then(*tm);
            if !text.is_empty() && size > 0.0 && x0.is_finite() && y.is_finite() {
                self.glyphs.push(Glyph { text, x0, x1, y, size, bold: font.bold, font: *font_id, rotated });
            }
        }
    }
}
