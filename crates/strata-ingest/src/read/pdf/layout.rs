//! Glyphs to lines in reading order.
//!
//! 1. **Segments.** Glyphs that follow each other in content order on one baseline, without
//!    a gap wider than [`SEGMENT_GAP`] em, are one segment; a gap wider than
//!    [`SPACE_GAP`] em becomes a space (a space glyph counts from [`SPACE_GLYPH_GAP`] em on,
//!    so a space the next letter overlaps is dropped). Superscripts stay in their segment (a baseline
//!    shift under half the size).
//! 2. **Columns.** A page is two-column when a vertical gutter near the middle is crossed by
//!    few segments and each side has a share of wide lines (text columns, not a two-column
//!    table such as a list of acronyms, whose left cells are short; equations and short
//!    lines may sit between them).
//! 3. **Lines.** Segments on one baseline (within [`BASELINE`] em) of one column are a line,
//!    left to right. A two-column page is read in bands: the lines that cross the gutter
//!    (titles, wide figures) cut the page into bands, and each band is read left column
//!    first, then right, so a paragraph of the left column is never interleaved with the
//!    right one.
//!
//! Rotated glyphs (margin stamps, rotated tables) are left out here and counted.

use super::content::Glyph;

/// Wider gaps than this (in em of the glyph) end a segment.
const SEGMENT_GAP: f32 = 1.2;
/// Gaps wider than this (in em) between glyphs are a space.
const SPACE_GAP: f32 = 0.12;
/// A space glyph between two glyphs is a space when the gap is at least this (in em).
const SPACE_GLYPH_GAP: f32 = 0.06;
/// Segments whose baselines differ by less than this (in em) share a line.
const BASELINE: f32 = 0.35;
/// Candidate gutter positions tried across the middle 40 % of the text width.
const GUTTER_STEPS: usize = 200;
/// Wide lines (30 % of the text width or more) each column needs.
const MIN_WIDE_LINES: usize = 4;
/// At most this share of segments may cross a column gutter.
const GUTTER_CROSSING: f64 = 0.2;

/// A line of a page, in reading order.
#[derive(Debug, Clone)]
pub struct Line {
    /// The text, spaces between words, no line end.
    pub text: String,
    /// Baseline.
    pub y: f32,
    /// Left edge of its first glyph (indentation, as displayed).
    pub x0: f32,
    /// The largest glyph size of the line.
    pub size: f32,
    /// Most of its glyphs are bold.
    pub bold: bool,
    /// A glyph among its first [`LEAD_CHARS`] characters is bold: a heading run into its
    /// paragraph (`1.1. Driving Factors. There are …`, the number set regular or bold).
    pub lead_bold: bool,
    /// The font of most of its glyphs.
    pub font: u32,
    /// Which column it was read from (0 left or single, 1 right, 2 crossing the gutter).
    pub column: u8,
    /// The runs of text separated by a gap of [`CELL_GAP`] em or more, left to right: the
    /// cells of a table row, one cell for a line of prose.
    pub cells: Vec<Cell>,
    /// The table row this line is, once `tables` has found its table.
    pub row: Option<Row>,
}

/// The characters at the start of a line where a bold glyph makes it `lead_bold`: a section
/// number and the title's first letters.
const LEAD_CHARS: usize = 8;

/// Gaps of this many em or more separate the cells of a line.
const CELL_GAP: f32 = 1.0;

/// A cell of a line: where it is on the page and in the line's text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Left edge.
    pub x0: f32,
    /// Byte range in [`Line::text`].
    pub start: usize,
    /// End of the byte range.
    pub end: usize,
}

/// A line's place in a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The table, numbered across the document.
    pub table: u32,
    /// The row is one of the table's header rows.
    pub header: bool,
}

#[derive(Debug, Clone)]
struct Segment {
    text: String,
    x0: f32,
    x1: f32,
    y: f32,
    size: f32,
    bold_chars: usize,
    chars: usize,
    /// A glyph among its first [`LEAD_CHARS`] characters is bold.
    lead_bold: bool,
    /// Characters per font.
    fonts: Vec<(u32, usize)>,
}

impl Segment {
    fn start(g: &Glyph) -> Segment {
        let mut s = Segment {
            text: String::new(),
            x0: g.x0,
            x1: g.x0,
            y: g.y,
            size: g.size,
            bold_chars: 0,
            chars: 0,
            lead_bold: false,
            fonts: Vec::new(),
        };
        s.push(g);
        s
    }
    fn push(&mut self, g: &Glyph) {
        self.text.push_str(&g.text);
        self.x1 = self.x1.max(g.x1).max(g.x0);
        self.size = self.size.max(g.size);
        let n = g.text.chars().filter(|c| !c.is_whitespace()).count();
        self.lead_bold |= g.bold && n > 0 && self.chars < LEAD_CHARS;
        self.chars += n;
        if g.bold {
            self.bold_chars += n;
        }
        match self.fonts.iter_mut().find(|f| f.0 == g.font) {
            Some(f) => f.1 += n,
            None => self.fonts.push((g.font, n)),
        }
    }
}

/// The lines of one page in reading order, and how many glyphs were left out as rotated.
pub fn lines(glyphs: &[Glyph]) -> (Vec<Line>, usize) {
    let rotated = glyphs.iter().filter(|g| g.rotated).count();
    let segments = segments(glyphs.iter().filter(|g| !g.rotated));
    if segments.is_empty() {
        return (Vec::new(), rotated);
    }
    let out = match gutter(&segments) {
        Some(g) => two_columns(segments, g),
        None => to_lines(segments, 0),
    };
    (out, rotated)
}

fn segments<'a>(glyphs: impl Iterator<Item = &'a Glyph>) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    let mut current: Option<Segment> = None;
    // A space glyph only counts where the next glyph starts clear of the previous one:
    // some producers draw spaces that the next letter overlaps (`dev elopment`).
    let mut pending_space = false;
    for g in glyphs {
        if g.text.trim().is_empty() {
            pending_space = true;
            continue;
        }
        if let Some(s) = current.as_mut() {
            let em = s.size.max(g.size).max(1.0);
            let gap = g.x0 - s.x1;
            let same_line = (g.y - s.y).abs() < 0.5 * em;
            if same_line && gap > -0.5 * em && gap < SEGMENT_GAP * em {
                if gap > SPACE_GAP * em || (pending_space && gap > SPACE_GLYPH_GAP * em) {
                    s.text.push(' ');
                }
                s.push(g);
                pending_space = false;
                continue;
            }
            out.extend(current.take());
        }
        current = Some(Segment::start(g));
        pending_space = false;
    }
    out.extend(current);
    out
}

/// The x of a column gutter, when the page has two text columns.
fn gutter(segments: &[Segment]) -> Option<f32> {
    let minx = segments.iter().map(|s| s.x0).fold(f32::INFINITY, f32::min);
    let maxx = segments.iter().map(|s| s.x1).fold(f32::NEG_INFINITY, f32::max);
    let width = maxx - minx;
    if segments.len() < 12 || width < 100.0 {
        return None;
    }
    if !width.is_finite() || width > 100_000.0 {
        return None; // glyphs placed far off any page
    }
    let mut best: Option<(usize, f32)> = None;
    for step in 0..=GUTTER_STEPS {
        let x = minx + width * (0.3 + 0.4 * step as f32 / GUTTER_STEPS as f32);
        let crossing = segments.iter().filter(|s| s.x0 < x - 1.0 && s.x1 > x + 1.0).count();
        if best.is_none_or(|(c, _)| crossing < c) {
            best = Some((crossing, x));
        }
    }
    let (crossing, g) = best?;
    if crossing as f64 > GUTTER_CROSSING * segments.len() as f64 {
        return None;
    }
    // Text columns are made of wide lines on both sides; a two-column table (acronyms and
    // their expansions) has short cells on at least one side.
    let wide = 0.3 * width;
    let left: Vec<f32> = segments.iter().filter(|s| s.x1 <= g + 1.0).map(|s| s.x1 - s.x0).collect();
    let right: Vec<f32> = segments.iter().filter(|s| s.x0 >= g - 1.0).map(|s| s.x1 - s.x0).collect();
    let enough = |side: &[f32]| {
        let w = side.iter().filter(|w| **w >= wide).count();
        side.len() as f64 >= 0.2 * segments.len() as f64
            && w >= MIN_WIDE_LINES
            && w as f64 >= 0.15 * side.len() as f64
    };
    (enough(&left) && enough(&right)).then_some(g)
}

fn two_columns(segments: Vec<Segment>, g: f32) -> Vec<Line> {
    let (mut left, mut right, mut wide) = (Vec::new(), Vec::new(), Vec::new());
    for s in segments {
        if s.x1 <= g + 1.0 {
            left.push(s);
        } else if s.x0 >= g - 1.0 {
            right.push(s);
        } else {
            wide.push(s);
        }
    }
    let mut wide = to_lines(wide, 2);
    wide.sort_by(|a, b| b.y.total_cmp(&a.y));
    let mut out = Vec::new();
    let (mut left, mut right) = (to_lines(left, 0), to_lines(right, 1));
    // Band by band, top down: everything above the next wide line, left then right.
    let take_above = |lines: &mut Vec<Line>, y: f32| -> Vec<Line> {
        let (above, below): (Vec<Line>, Vec<Line>) = lines.drain(..).partition(|l| l.y > y);
        *lines = below;
        above
    };
    for w in wide {
        out.extend(take_above(&mut left, w.y));
        out.extend(take_above(&mut right, w.y));
        out.push(w);
    }
    out.extend(left);
    out.extend(right);
    out
}

/// Segments of one column to lines, top down.
fn to_lines(mut segments: Vec<Segment>, column: u8) -> Vec<Line> {
    segments.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x0.total_cmp(&b.x0)));
    let mut groups: Vec<Vec<Segment>> = Vec::new();
    for s in segments {
        match groups.last_mut() {
            Some(g) if (g[0].y - s.y).abs() < BASELINE * g[0].size.max(s.size).max(1.0) => g.push(s),
            _ => groups.push(vec![s]),
        }
    }
    groups
        .into_iter()
        .map(|mut g| {
            g.sort_by(|a, b| a.x0.total_cmp(&b.x0));
            let mut text = String::new();
            let mut cells: Vec<Cell> = Vec::new();
            let mut last_x1 = f32::NEG_INFINITY;
            let mut right = f32::NEG_INFINITY;
            for s in &g {
                if !text.is_empty() && s.x0 > last_x1 - 0.5 * s.size && !text.ends_with(' ') {
                    text.push(' ');
                }
                let start = text.len();
                text.push_str(&s.text);
                match cells.last_mut() {
                    Some(c) if s.x0 - right < CELL_GAP * s.size.max(1.0) => c.end = text.len(),
                    _ => cells.push(Cell { x0: s.x0, start, end: text.len() }),
                }
                last_x1 = s.x1;
                right = right.max(s.x1);
            }
            let chars: usize = g.iter().map(|s| s.chars).sum();
            let bold: usize = g.iter().map(|s| s.bold_chars).sum();
            let mut fonts: Vec<(u32, usize)> = Vec::new();
            for (f, n) in g.iter().flat_map(|s| &s.fonts) {
                match fonts.iter_mut().find(|x| x.0 == *f) {
                    Some(x) => x.1 += n,
                    None => fonts.push((*f, *n)),
                }
            }
            Line {
                text,
                y: g[0].y,
                x0: g[0].x0,
                size: g.iter().map(|s| s.size).fold(0.0, f32::max),
                bold: chars > 0 && bold * 2 > chars,
                lead_bold: g[0].lead_bold,
                font: fonts.iter().max_by_key(|f| f.1).map_or(0, |f| f.0),
                column,
                cells,
                row: None,
            }
        })
        .collect()
}
