//! List and heading numbering (`word/numbering.xml`): the `1.2.3` that Word draws in front
//! of a numbered paragraph, which is not in the paragraph's text.
//!
//! A paragraph names a numbering instance (`w:num`, by `w:numId`) and a level (`w:ilvl`);
//! the instance points at an abstract definition (`w:abstractNum`) whose levels say the
//! start value, the number format and the text template (`w:lvlText`, e.g. `%1.%2.` where
//! `%2` is the counter of level 2). Instances may override a level's start
//! (`w:lvlOverride/w:startOverride`) or the whole level (`w:lvlOverride/w:lvl`).
//!
//! Counters are kept per abstract definition and level, as Word keeps them: two instances of
//! one definition (common after copy and paste) continue one count, and an instance that
//! overrides a level's start (or the level) restarts that level when it is first used. Using
//! a level increments it and restarts the deeper levels (unless a deeper level's
//! `w:lvlRestart` says to restart only after a shallower level, or never).

use std::collections::HashMap;

use roxmltree::Node;

use crate::read::numerals::{letters, roman};

use super::xml::{self, child_num, child_val, is_w, w_attr, w_child};

/// Levels per list (`w:ilvl` 0–8).
const LEVELS: usize = 9;

/// How a counter is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NumFmt {
    Decimal,
    DecimalZero,
    UpperLetter,
    LowerLetter,
    UpperRoman,
    LowerRoman,
    Ordinal,
    Bullet,
    None,
}

impl NumFmt {
    fn parse(value: Option<&str>) -> NumFmt {
        match value {
            Some("decimalZero") => NumFmt::DecimalZero,
            Some("upperLetter") => NumFmt::UpperLetter,
            Some("lowerLetter") => NumFmt::LowerLetter,
            Some("upperRoman") => NumFmt::UpperRoman,
            Some("lowerRoman") => NumFmt::LowerRoman,
            Some("ordinal") => NumFmt::Ordinal,
            Some("bullet") => NumFmt::Bullet,
            Some("none") => NumFmt::None,
            // decimal, and the East Asian and text formats this reader writes as digits.
            _ => NumFmt::Decimal,
        }
    }

    /// Writes `n` in this format.
    pub(super) fn render(self, n: u32) -> String {
        match self {
            NumFmt::Decimal => n.to_string(),
            NumFmt::DecimalZero => format!("{n:02}"),
            NumFmt::UpperLetter => letters(n).to_ascii_uppercase(),
            NumFmt::LowerLetter => letters(n),
            NumFmt::UpperRoman => roman(n).to_ascii_uppercase(),
            NumFmt::LowerRoman => roman(n),
            NumFmt::Ordinal => {
                let suffix = match (n % 10, n % 100) {
                    (_, 11..=13) => "th",
                    (1, _) => "st",
                    (2, _) => "nd",
                    (3, _) => "rd",
                    _ => "th",
                };
                format!("{n}{suffix}")
            }
            NumFmt::Bullet | NumFmt::None => String::new(),
        }
    }
}

/// One list level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Level {
    /// `w:start`; the schema's default is 0.
    pub start: u32,
    pub fmt: NumFmt,
    /// `w:lvlText`, with `%1` … `%9` placeholders.
    pub text: String,
    /// `w:lvlRestart`: restart after a use of a level shallower than this (1-based); 0 =
    /// never. Absent = after any shallower level.
    pub restart: Option<u32>,
    /// `w:isLgl`: every placeholder in decimal.
    pub legal: bool,
    /// `w:pStyle`: the paragraph style bound to this level.
    pub style: Option<String>,
    /// `w:suff` is `nothing`: no space between the number and the text.
    pub no_suffix: bool,
}

impl Level {
    fn parse(lvl: Node<'_, '_>) -> Level {
        Level {
            start: child_num(lvl, "start").unwrap_or(0),
            fmt: NumFmt::parse(child_val(lvl, "numFmt")),
            text: child_val(lvl, "lvlText").unwrap_or_default().to_string(),
            restart: child_num(lvl, "lvlRestart"),
            legal: xml::is_on(w_child(lvl, "isLgl")),
            style: child_val(lvl, "pStyle").map(str::to_string),
            no_suffix: child_val(lvl, "suff") == Some("nothing"),
        }
    }
}

type Levels = [Option<Level>; LEVELS];

/// A numbering instance: its abstract definition and overrides.
#[derive(Debug, Clone, Default)]
struct Num {
    abstract_id: u32,
    start_overrides: [Option<u32>; LEVELS],
    level_overrides: Levels,
}

/// An abstract definition.
#[derive(Debug, Clone, Default)]
struct Abstract {
    levels: Levels,
    /// `w:numStyleLink`: the levels live in the definition whose `w:styleLink` is this.
    num_style_link: Option<String>,
    style_link: Option<String>,
}

/// A rendered number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rendered {
    /// The text Word draws (`1.2.`, `(a)`), empty for bullets and `none`.
    pub text: String,
    /// The level is a bullet (its `w:lvlText` is a glyph, often from the Symbol font).
    pub bullet: bool,
    /// No space follows the number.
    pub no_suffix: bool,
}

/// The numbering definitions of a document.
#[derive(Debug, Default)]
pub(super) struct Numbering {
    nums: HashMap<u32, Num>,
    abstracts: HashMap<u32, Abstract>,
    /// `w:styleLink` name → the abstract definition that defines it.
    links: HashMap<String, u32>,
}

/// Counter state while walking a document: per instance, per level, the last value used
/// (`None` = not started, or restarted).
#[derive(Debug, Default)]
pub(super) struct Counters {
    /// Per abstract definition (after `w:numStyleLink`).
    values: HashMap<u32, [Option<u32>; LEVELS]>,
    /// Instances used so far (an instance's overrides restart their levels on first use).
    used: std::collections::HashSet<u32>,
}

impl Numbering {
    /// Reads `word/numbering.xml`; `None` (no numbering part) gives no numbering.
    pub(super) fn parse(text: Option<&str>) -> Result<Numbering, roxmltree::Error> {
        let Some(text) = text else {
            return Ok(Numbering::default());
        };
        let doc = xml::parse(text)?;
        let mut numbering = Numbering::default();
        for node in doc.root_element().children() {
            if is_w(node, "abstractNum") {
                let Some(id) = w_attr(node, "abstractNumId").and_then(|v| v.parse().ok()) else {
                    continue;
                };
                let mut abs = Abstract {
                    num_style_link: child_val(node, "numStyleLink").map(str::to_string),
                    style_link: child_val(node, "styleLink").map(str::to_string),
                    ..Abstract::default()
                };
                for lvl in node.children().filter(|c| is_w(*c, "lvl")) {
                    if let Some(i) = ilvl(lvl) {
                        abs.levels[i] = Some(Level::parse(lvl));
                    }
                }
                numbering.abstracts.entry(id).or_insert(abs);
            } else if is_w(node, "num") {
                let Some(id) = w_attr(node, "numId").and_then(|v| v.parse().ok()) else {
                    continue;
                };
                let Some(abstract_id) = child_num(node, "abstractNumId") else {
                    continue;
                };
                let mut num = Num { abstract_id, ..Num::default() };
                for o in node.children().filter(|c| is_w(*c, "lvlOverride")) {
                    let Some(i) = ilvl(o) else {
                        continue;
                    };
                    num.start_overrides[i] = child_num(o, "startOverride");
                    num.level_overrides[i] = w_child(o, "lvl").map(Level::parse);
                }
                numbering.nums.entry(id).or_insert(num);
            }
        }
        numbering.links =
            numbering.abstracts.iter().filter_map(|(id, a)| a.style_link.clone().map(|l| (l, *id))).collect();
        Ok(numbering)
    }

    /// The abstract definition instance `num` counts in: its own, or the one its
    /// `w:numStyleLink` names.
    fn definition(&self, num: &Num) -> u32 {
        let abs = self.abstracts.get(&num.abstract_id);
        abs.and_then(|a| a.num_style_link.as_ref())
            .and_then(|l| self.links.get(l))
            .copied()
            .unwrap_or(num.abstract_id)
    }

    /// The levels of instance `num_id`, following one `w:numStyleLink`.
    fn levels(&self, num: &Num) -> Option<&Levels> {
        self.abstracts
            .get(&self.definition(num))
            .or_else(|| self.abstracts.get(&num.abstract_id))
            .map(|a| &a.levels)
    }

    /// The level of instance `num_id` bound to paragraph style `style` (`w:pStyle` in a
    /// level), for a style that sets `w:numId` without `w:ilvl`.
    pub(super) fn level_of_style(&self, num_id: u32, style: &str) -> Option<u32> {
        let levels = self.levels(self.nums.get(&num_id)?)?;
        levels
            .iter()
            .position(|l| l.as_ref().and_then(|l| l.style.as_deref()) == Some(style))
            .map(|i| i as u32)
    }

    /// The definition of one level, override first.
    fn level<'a>(&'a self, num: &'a Num, i: usize) -> Option<&'a Level> {
        num.level_overrides[i].as_ref().or_else(|| self.levels(num)?[i].as_ref())
    }

    /// The start value of one level, override first.
    fn start(&self, num: &Num, i: usize) -> u32 {
        num.start_overrides[i].or_else(|| self.level(num, i).map(|l| l.start)).unwrap_or(0)
    }

    /// Counts one paragraph at level `ilvl` of instance `num_id` and renders its number.
    /// `None` when the instance or level does not exist (`numId` 0 included), which Word
    /// draws as no number.
    pub(super) fn next(&self, counters: &mut Counters, num_id: u32, ilvl: u32) -> Option<Rendered> {
        let num = self.nums.get(&num_id)?;
        let i = (ilvl as usize).min(LEVELS - 1);
        let level = self.level(num, i)?;
        let values = counters.values.entry(self.definition(num)).or_default();
        if counters.used.insert(num_id) {
            for (k, v) in values.iter_mut().enumerate() {
                if num.start_overrides[k].is_some() || num.level_overrides[k].is_some() {
                    *v = None;
                }
            }
        }
        let value = match values[i] {
            Some(v) => v.saturating_add(1),
            None => self.start(num, i),
        };
        values[i] = Some(value);
        for (deeper, value) in values.iter_mut().enumerate().skip(i + 1) {
            let restart = self.level(num, deeper).and_then(|l| l.restart).unwrap_or(deeper as u32);
            if (i as u32) < restart {
                *value = None;
            }
        }
        let bullet = level.fmt == NumFmt::Bullet;
        let text = if bullet || level.fmt == NumFmt::None && !level.text.contains('%') {
            String::new()
        } else {
            let values = *values;
            expand(&level.text, |k| {
                let n = values[k].unwrap_or_else(|| self.start(num, k));
                let fmt = if level.legal {
                    NumFmt::Decimal
                } else {
                    self.level(num, k).map(|l| l.fmt).unwrap_or(NumFmt::Decimal)
                };
                fmt.render(n)
            })
        };
        Some(Rendered { text: text.trim().to_string(), bullet, no_suffix: level.no_suffix })
    }
}

/// `w:ilvl` of a `w:lvl` or `w:lvlOverride` as an index.
fn ilvl(node: Node<'_, '_>) -> Option<usize> {
    w_attr(node, "ilvl").and_then(|v| v.parse::<usize>().ok()).filter(|i| *i < LEVELS)
}

/// Replaces `%1` … `%9` in a level text with `counter(level index)`.
fn expand(template: &str, mut counter: impl FnMut(usize) -> String) -> String {
    let mut out = String::with_capacity(template.len() + 8);
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            if let Some(d) = chars.peek().and_then(|d| d.to_digit(10)).filter(|d| (1..=9).contains(d)) {
                chars.next();
                out.push_str(&counter(d as usize - 1));
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let cases = [
            (NumFmt::Decimal, 7, "7"),
            (NumFmt::DecimalZero, 7, "07"),
            (NumFmt::UpperLetter, 1, "A"),
            (NumFmt::LowerLetter, 26, "z"),
            (NumFmt::LowerLetter, 28, "bb"),
            (NumFmt::UpperRoman, 1994, "MCMXCIV"),
            (NumFmt::LowerRoman, 4, "iv"),
            (NumFmt::Ordinal, 12, "12th"),
            (NumFmt::Ordinal, 22, "22nd"),
            (NumFmt::Bullet, 3, ""),
        ];
        for (fmt, n, want) in cases {
            assert_eq!(fmt.render(n), want, "{fmt:?} {n}");
        }
        assert_eq!(expand("%1.%2.", |k| (k + 1).to_string()), "1.2.");
        assert_eq!(expand("100%", |_| unreachable!()), "100%");
        assert_eq!(expand("%0%a", |_| unreachable!()), "%0%a");
    }
}
