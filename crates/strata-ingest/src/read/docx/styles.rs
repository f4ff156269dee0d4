//! Paragraph styles (`word/styles.xml`): which styles are headings, at what level, and which
//! carry numbering.
//!
//! A heading is a paragraph with an outline level, `w:outlineLvl`, set on the paragraph or
//! on its style or on any style that style is `w:basedOn`. Style *names* are not used: Word
//! writes the display name of the user's language into custom and converted documents
//! ("Überschrift 1", "Titre 1"), while the outline level is what Word's own navigation pane
//! and table of contents follow. Level 9 means "body text" and stops the inheritance.
//!
//! Only when a document has no outline level anywhere does the reader fall back to the
//! built-in heading styles, by id (`Heading1` … `Heading9`) or by their invariant built-in
//! name (`heading 1`, which Word writes in English whatever the UI language). Word always
//! writes `w:outlineLvl` on its heading styles; the fallback is for generators that do not.
//! LibreOffice does write it: `docx/usc-title13-census-converted.docx` (LibreOffice 7.4) has
//! `outlineLvl` 0, 2 and 3 on `Heading1`, `Heading3` and `Heading4`, so it reads by outline
//! level like a Word file.

use std::collections::HashMap;

use roxmltree::Node;

use super::xml::{self, child_num, child_val, is_w, w_attr, w_child};

/// The body-text outline level: not a heading, and inherits none.
const BODY_TEXT: u32 = 9;

/// The longest `w:basedOn` chain followed; longer chains (and cycles) are cut there.
const MAX_CHAIN: usize = 32;

/// Numbering set in a `w:numPr`: the numbering instance and the list level, either of
/// which may come from elsewhere (a paragraph can set only `w:ilvl` and take `w:numId`
/// from its style).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct NumPr {
    /// `w:numId`; `0` explicitly removes numbering.
    pub num_id: Option<u32>,
    /// `w:ilvl`, 0–8.
    pub ilvl: Option<u32>,
}

impl NumPr {
    /// Reads `w:numPr` from a `w:pPr`.
    pub(super) fn of(ppr: Node<'_, '_>) -> NumPr {
        let Some(num_pr) = w_child(ppr, "numPr") else {
            return NumPr::default();
        };
        NumPr { num_id: child_num(num_pr, "numId"), ilvl: child_num(num_pr, "ilvl").filter(|l| *l <= 8) }
    }

    /// Fills what `self` lacks from `other` (the style below).
    pub(super) fn or(self, other: NumPr) -> NumPr {
        NumPr { num_id: self.num_id.or(other.num_id), ilvl: self.ilvl.or(other.ilvl) }
    }
}

/// One style as written, before inheritance.
#[derive(Debug, Clone, Default)]
struct StyleDef {
    name: Option<String>,
    based_on: Option<String>,
    outline: Option<u32>,
    num_pr: NumPr,
}

/// One paragraph style after following its `w:basedOn` chain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Resolved {
    /// Outline level 0–9 (9 = body text), from the nearest style in the chain that sets one.
    pub outline: Option<u32>,
    /// Numbering, each field from the nearest style that sets it.
    pub num_pr: NumPr,
    /// The level of a built-in heading style in the chain (`Heading2` → 2), for the
    /// fallback.
    pub builtin_heading: Option<u32>,
    /// The style is Word's `Title`.
    pub title: bool,
}

/// The paragraph styles of a document.
#[derive(Debug, Default)]
pub(super) struct Styles {
    resolved: HashMap<String, Resolved>,
    default_paragraph: Option<String>,
    any_outline: bool,
}

impl Styles {
    /// Reads `word/styles.xml`; `None` (no styles part) gives no styles.
    pub(super) fn parse(text: Option<&str>) -> Result<Styles, roxmltree::Error> {
        let Some(text) = text else {
            return Ok(Styles::default());
        };
        let doc = xml::parse(text)?;
        let mut defs: HashMap<String, StyleDef> = HashMap::new();
        let mut default_paragraph = None;
        for style in doc.root_element().children().filter(|n| is_w(*n, "style")) {
            if w_attr(style, "type").is_some_and(|t| t != "paragraph") {
                continue;
            }
            let Some(id) = w_attr(style, "styleId") else {
                continue;
            };
            if default_paragraph.is_none() && matches!(w_attr(style, "default"), Some("1" | "true" | "on")) {
                default_paragraph = Some(id.to_string());
            }
            let ppr = w_child(style, "pPr");
            defs.insert(
                id.to_string(),
                StyleDef {
                    name: child_val(style, "name").map(str::to_string),
                    based_on: child_val(style, "basedOn").map(str::to_string),
                    outline: ppr.and_then(|p| child_num(p, "outlineLvl")).filter(|l| *l <= BODY_TEXT),
                    num_pr: ppr.map(NumPr::of).unwrap_or_default(),
                },
            );
        }
        let any_outline = defs.values().any(|d| d.outline.is_some_and(|l| l < BODY_TEXT));
        let resolved = defs.keys().map(|id| (id.clone(), resolve(&defs, id))).collect();
        Ok(Styles { resolved, default_paragraph, any_outline })
    }

    /// The resolved style of a paragraph: its `w:pStyle`, else the default paragraph style.
    pub(super) fn get(&self, id: Option<&str>) -> Resolved {
        id.or(self.default_paragraph.as_deref())
            .and_then(|id| self.resolved.get(id))
            .cloned()
            .unwrap_or_default()
    }

    /// Whether any paragraph style sets a heading outline level (0–8).
    pub(super) fn any_outline(&self) -> bool {
        self.any_outline
    }
}

/// Follows `id`'s `w:basedOn` chain; the nearest setting of each property wins.
fn resolve(defs: &HashMap<String, StyleDef>, id: &str) -> Resolved {
    let mut out = Resolved::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut current = Some(id);
    let mut first = true;
    while let Some(id) = current {
        if seen.len() >= MAX_CHAIN || seen.contains(&id) {
            break;
        }
        seen.push(id);
        let Some(def) = defs.get(id) else {
            break;
        };
        if first {
            out.title = id.eq_ignore_ascii_case("title")
                || def.name.as_deref().is_some_and(|n| n.eq_ignore_ascii_case("title"));
            first = false;
        }
        out.outline = out.outline.or(def.outline);
        out.num_pr = out.num_pr.or(def.num_pr);
        out.builtin_heading = out.builtin_heading.or_else(|| builtin_heading(id, def.name.as_deref()));
        current = def.based_on.as_deref();
    }
    out
}

/// `Heading1` … `Heading9` by id, or `heading 1` … `heading 9` by built-in name.
fn builtin_heading(id: &str, name: Option<&str>) -> Option<u32> {
    let level = |s: &str, prefix: &str| -> Option<u32> {
        let rest =
            s.get(..prefix.len()).filter(|p| p.eq_ignore_ascii_case(prefix)).map(|_| &s[prefix.len()..])?;
        match rest.as_bytes() {
            [d @ b'1'..=b'9'] => Some(u32::from(d - b'0')),
            _ => None,
        }
    };
    level(id, "heading").or_else(|| name.and_then(|n| level(n, "heading ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;

    #[test]
    fn chains_inherit_the_nearest_setting_and_survive_cycles() {
        let xml = format!(
            r#"<w:styles {NS}>
              <w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
              <w:style w:type="paragraph" w:styleId="Base"><w:pPr><w:outlineLvl w:val="1"/>
                <w:numPr><w:numId w:val="4"/></w:numPr></w:pPr></w:style>
              <w:style w:type="paragraph" w:styleId="Child"><w:basedOn w:val="Base"/>
                <w:pPr><w:numPr><w:ilvl w:val="1"/></w:numPr></w:pPr></w:style>
              <w:style w:type="paragraph" w:styleId="Body"><w:basedOn w:val="Base"/>
                <w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>
              <w:style w:type="paragraph" w:styleId="A"><w:basedOn w:val="B"/></w:style>
              <w:style w:type="paragraph" w:styleId="B"><w:basedOn w:val="A"/></w:style>
              <w:style w:type="character" w:styleId="Heading1Char"><w:name w:val="heading 1"/></w:style>
            </w:styles>"#
        );
        let styles = Styles::parse(Some(&xml)).unwrap();
        let child = styles.get(Some("Child"));
        assert_eq!(child.outline, Some(1));
        assert_eq!(child.num_pr, NumPr { num_id: Some(4), ilvl: Some(1) });
        assert_eq!(styles.get(Some("Body")).outline, Some(9));
        assert_eq!(styles.get(Some("A")), Resolved::default());
        assert_eq!(styles.get(None), styles.get(Some("Normal")));
        assert_eq!(styles.get(Some("Heading1Char")), Resolved::default());
        assert!(styles.any_outline());
    }

    #[test]
    fn builtin_headings_by_id_or_name() {
        assert_eq!(builtin_heading("Heading3", None), Some(3));
        assert_eq!(builtin_heading("berschrift1", Some("heading 1")), Some(1));
        assert_eq!(builtin_heading("Heading10", None), None);
        assert_eq!(builtin_heading("HeadingX", Some("Überschrift 1")), None);
    }
}
