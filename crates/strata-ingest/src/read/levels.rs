//! Heading levels from legal units: `Title 35 > Part II > Chapter 10 > §102 > Amendments`.
//!
//! Statute renderings often put every unit heading at the same markup level: the US Code's
//! HTML has `PART II—…`, `CHAPTER 10—…` and `§102. …` all at `h3`, with their notes at `h4`.
//! Read as is, the tree would make parts, chapters and sections siblings. The unit named at
//! the start of a heading says where it belongs, so [`refine_unit_levels`] re-levels headings
//! from their titles alone, which works the same for HTML, plain text and DOCX.
//!
//! The order of units is not fixed across documents: Title 35 of the US Code nests chapters in
//! parts, Title 26 nests parts in subchapters, and EU regulations nest articles in sections.
//! The order is therefore read from the document itself:
//!
//! 1. unit families (`title`, `division`, `part`, `chapter`, `book`, `article`, `section`) rank
//!    by their first appearance, a higher unit normally opening before its first child;
//! 2. except that the most frequent family is the leaf and ranks last, which places a
//!    `SECTION 1. SHORT TITLE.` printed before `TITLE I` below the titles;
//! 3. `subX` ranks right below `X` (`Subchapter` below `Chapter`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::HeadingMark;

/// Unit families, each with its optional `sub` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Family {
    Book,
    Title,
    Division,
    Part,
    Chapter,
    Article,
    Section,
}

/// A legal unit named by a heading: its family and whether it is the `sub` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Unit {
    family: Family,
    sub: bool,
}

static NAMED_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    // `PART II—…`, `CHAPTER 10—…`, `Subchapter A`, `Article 5.`, `TITLE 35—PATENTS`. The
    // number is case-sensitive: `Part Mild Cases` is not part MILD.
    Regex::new(
        r"(?i)^(sub)?(book|title|division|part|chapter|article)\s+(?-i:[IVXLCDM]+|\d+[A-Z]?(?:[.\-]\d+)*|[A-Z])\b",
    )
    .unwrap()
});

static SECTION_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    // `§102. …`, `§§155, 155A. …`, `Sec. 5.`, `SECTION 1.`, `Sections 3–5`.
    Regex::new(r"(?i)^(?:§§?\s*|sec(?:t(?:ion)?)?s?\.?\s+)\d").unwrap()
});

/// The legal unit a heading title starts with. A leading `[` (a repealed section,
/// `[§104. Repealed…]`) is skipped; a leading quote is not: quoted headings are text of
/// another act cited in a note (`"SEC. 4741. REFERENCES.`).
fn unit_of(title: &str) -> Option<Unit> {
    let title = title.trim_start();
    let title = title.strip_prefix('[').unwrap_or(title).trim_start();
    if SECTION_UNIT.is_match(title) {
        return Some(Unit { family: Family::Section, sub: false });
    }
    let c = NAMED_UNIT.captures(title)?;
    let family = match c[2].to_ascii_lowercase().as_str() {
        "book" => Family::Book,
        "title" => Family::Title,
        "division" => Family::Division,
        "part" => Family::Part,
        "chapter" => Family::Chapter,
        _ => Family::Article,
    };
    // `Subarticle` and `Subbook` are not units.
    let sub = c.get(1).is_some();
    if sub && matches!(family, Family::Article | Family::Book) {
        return None;
    }
    Some(Unit { family, sub })
}

/// Re-levels headings that name legal units so that units nest by rank, and moves the
/// headings between them along.
///
/// - Does nothing unless at least two headings name a unit (`Part II`, `Chapter 10`, `§102`,
///   `Sec. 5`, `Article V`, …), so documents without units (RFCs, manuals) keep their levels.
/// - A unit heading gets `base + rank`, where `base` is the shallowest level of any unit
///   heading and `rank` is the unit's place among the units the document uses (see the
///   module docs for how the order is found).
/// - Any other heading keeps its distance below the nearest preceding unit heading whose
///   original level is not deeper than its own, and is at least one level below it (notes at
///   `h4` under `§102` at `h3`). Headings before the first such unit heading keep their level.
/// - Levels never drop below 1.
pub fn refine_unit_levels(headings: &mut [HeadingMark]) {
    let units: Vec<Option<Unit>> = headings.iter().map(|h| unit_of(&h.title)).collect();
    if units.iter().filter(|u| u.is_some()).count() < 2 {
        return;
    }
    let ranks = unit_ranks(&units);
    let base = headings
        .iter()
        .zip(&units)
        .filter(|(_, u)| u.is_some())
        .map(|(h, _)| h.level.max(1))
        .min()
        .unwrap_or(1);
    // The most recent unit heading at each original level: (index, original, new level).
    let mut last_unit: BTreeMap<u32, (usize, u32, u32)> = BTreeMap::new();
    for (i, (heading, unit)) in headings.iter_mut().zip(&units).enumerate() {
        let original = heading.level;
        let level = match unit {
            Some(unit) => {
                let level = base + ranks.get(unit).copied().unwrap_or(0);
                last_unit.insert(original, (i, original, level));
                level
            }
            None => {
                let anchor = last_unit.range(..=original).map(|(_, v)| *v).max_by_key(|(index, _, _)| *index);
                match anchor {
                    Some((_, anchor_original, anchor_level)) => {
                        anchor_level + original.saturating_sub(anchor_original).max(1)
                    }
                    None => original,
                }
            }
        };
        heading.level = level.max(1);
    }
}

/// The rank (0 = outermost) of each unit the document uses.
fn unit_ranks(units: &[Option<Unit>]) -> BTreeMap<Unit, u32> {
    let mut families: Vec<Family> = Vec::new();
    let mut counts: BTreeMap<Family, usize> = BTreeMap::new();
    let mut present: BTreeMap<Unit, ()> = BTreeMap::new();
    for unit in units.iter().flatten() {
        if !families.contains(&unit.family) {
            families.push(unit.family);
        }
        *counts.entry(unit.family).or_default() += 1;
        present.insert(*unit, ());
    }
    // The most frequent family is the leaf; on a tie, the one that appeared last.
    let leaf = families
        .iter()
        .enumerate()
        .max_by_key(|(i, f)| (counts.get(f).copied().unwrap_or(0), *i))
        .map(|(i, _)| i);
    if let Some(leaf) = leaf {
        let family = families.remove(leaf);
        families.push(family);
    }
    let mut ranks = BTreeMap::new();
    let mut rank = 0;
    for family in families {
        for sub in [false, true] {
            let unit = Unit { family, sub };
            if present.contains_key(&unit) {
                ranks.insert(unit, rank);
                rank += 1;
            }
        }
    }
    ranks
}

#[cfg(test)]
mod tests {
    use strata_core::Span;

    use super::*;

    fn marks(spec: &[(u32, &str)]) -> Vec<HeadingMark> {
        spec.iter()
            .map(|(level, title)| HeadingMark {
                level: *level,
                title: title.to_string(),
                span: Span::default(),
                number: None,
            })
            .collect()
    }

    fn levels(headings: &[HeadingMark]) -> Vec<u32> {
        headings.iter().map(|h| h.level).collect()
    }

    #[test]
    fn units_are_recognized() {
        let section = Some(Unit { family: Family::Section, sub: false });
        assert_eq!(unit_of("§102. Conditions for patentability; novelty"), section);
        assert_eq!(unit_of("[§104. Repealed. Pub. L. 112–29]"), section);
        assert_eq!(unit_of("[§§155, 155A. Repealed.]"), section);
        assert_eq!(unit_of("SEC. 101. Definitions"), section);
        assert_eq!(unit_of("Section 2 Scope"), section);
        assert_eq!(
            unit_of("CHAPTER 10—PATENTABILITY OF INVENTIONS").map(|u| u.family),
            Some(Family::Chapter)
        );
        assert_eq!(unit_of("PART II—PATENTABILITY"), Some(Unit { family: Family::Part, sub: false }));
        assert_eq!(unit_of("Subchapter A—General"), Some(Unit { family: Family::Chapter, sub: true }));
        assert_eq!(unit_of("TITLE 35—PATENTS").map(|u| u.family), Some(Family::Title));
        assert_eq!(unit_of("Article V").map(|u| u.family), Some(Family::Article));
        for plain in [
            "\"SEC. 4741. REFERENCES.",
            "Amendments",
            "5.6.1. Sender Requirements",
            "Title of the Act",
            "Part Time Work",
            "Security Considerations",
            "Chapter Summary",
            "Sectional views",
            "Part Mild Cases",
        ] {
            assert_eq!(unit_of(plain), None, "{plain}");
        }
    }

    #[test]
    fn us_code_units_nest() {
        let mut h = marks(&[
            (1, "TITLE 35—PATENTS"),
            (4, "Amendments"),
            (3, "PART I—UNITED STATES PATENT AND TRADEMARK OFFICE"),
            (3, "CHAPTER 1—ESTABLISHMENT"),
            (3, "§1. Establishment"),
            (4, "Amendments"),
            (4, "\"SEC. 4741. REFERENCES."),
            (3, "[§14. Renumbered §13]"),
            (3, "PART II—PATENTABILITY OF INVENTIONS"),
            (4, "Amendments"),
            (3, "CHAPTER 10—PATENTABILITY OF INVENTIONS"),
            (3, "§102. Conditions for patentability; novelty"),
            (4, "Amendments"),
            (5, "Deeper note"),
        ]);
        refine_unit_levels(&mut h);
        assert_eq!(levels(&h), [1, 4, 2, 3, 4, 5, 5, 4, 2, 3, 3, 4, 5, 6]);
    }

    #[test]
    fn parts_below_subchapters_when_the_document_says_so() {
        // US Code Title 26: Subtitle > Chapter > Subchapter > Part > Subpart > Section.
        let mut h = marks(&[
            (1, "TITLE 26—INTERNAL REVENUE CODE"),
            (3, "Subtitle A—Income Taxes"),
            (3, "CHAPTER 1—NORMAL TAXES AND SURTAXES"),
            (3, "Subchapter A—Determination of Tax Liability"),
            (3, "PART I—TAX ON INDIVIDUALS"),
            (3, "§1. Tax imposed"),
            (3, "§2. Definitions"),
            (3, "Subpart A—Nonrefundable personal credits"),
            (3, "§21. Expenses"),
        ]);
        refine_unit_levels(&mut h);
        assert_eq!(levels(&h), [1, 2, 3, 4, 5, 7, 7, 6, 7]);
    }

    #[test]
    fn leaf_unit_is_the_most_frequent() {
        // A public law: `SECTION 1.` before `TITLE I`, then sections inside titles.
        let mut h = marks(&[
            (2, "SECTION 1. SHORT TITLE."),
            (2, "TITLE I—GENERAL"),
            (2, "SEC. 101. DEFINITIONS."),
            (2, "SEC. 102. SCOPE."),
            (2, "TITLE II—OTHER"),
            (2, "SEC. 201. RULES."),
        ]);
        refine_unit_levels(&mut h);
        assert_eq!(levels(&h), [3, 2, 3, 3, 2, 3]);
        // An EU regulation: Chapter > Section > Article.
        let mut h = marks(&[
            (2, "CHAPTER I"),
            (3, "Article 1"),
            (3, "Article 2"),
            (2, "CHAPTER II"),
            (3, "Section 1"),
            (3, "Article 3"),
            (3, "Article 4"),
            (3, "Section 2"),
            (3, "Article 5"),
        ]);
        refine_unit_levels(&mut h);
        assert_eq!(levels(&h), [2, 4, 4, 2, 3, 4, 4, 3, 4]);
    }

    #[test]
    fn documents_without_units_are_left_alone() {
        let spec = [
            (1, "HTTP Semantics"),
            (2, "1. Introduction"),
            (3, "1.1. Purpose"),
            (6, "4.1.2.2.1 Establishing the Base URI"),
            (2, "Appendix A. Collected ABNF"),
        ];
        let mut h = marks(&spec);
        refine_unit_levels(&mut h);
        assert_eq!(levels(&h), [1, 2, 3, 6, 2]);
        // One unit heading is not enough to re-level a document.
        let mut h = marks(&[(1, "Guide"), (3, "Part 1 Setup"), (2, "Usage")]);
        refine_unit_levels(&mut h);
        assert_eq!(levels(&h), [1, 3, 2]);
    }

    #[test]
    fn levels_never_reach_zero() {
        let mut h = marks(&[(0, "§1. A"), (0, "Chapter 2"), (0, "note"), (0, "§3. B")]);
        refine_unit_levels(&mut h);
        assert!(h.iter().all(|h| h.level >= 1), "{:?}", levels(&h));
        refine_unit_levels(&mut []);
    }
}
