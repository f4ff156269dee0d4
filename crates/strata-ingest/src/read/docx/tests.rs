//! Reader tests on small DOCX files assembled here, in memory, with the `zip` crate: outline
//! levels against localized style names, `w:basedOn` inheritance, numbering and its
//! restarts, lists, tables, footnote placement, tracked changes and hidden text, and the
//! refusals (corrupt zip, encrypted file, missing document part, zip bomb).

use std::io::{Cursor, Write};

use strata_core::BlockKind;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::*;
use crate::read::HeadingMark;

const W_NS: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006""#;

/// Zips `(name, content)` parts, deflated, as Word does.
pub(super) fn zip_parts(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, content) in parts {
        zip.start_file(*name, options).unwrap();
        zip.write_all(content).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// The XML strings of a small DOCX; `None` leaves a part out.
#[derive(Default)]
struct Docx {
    body: String,
    styles: Option<String>,
    numbering: Option<String>,
    footnotes: Option<String>,
    core: Option<String>,
}

impl Docx {
    fn new(body: &str) -> Docx {
        Docx { body: body.to_string(), ..Docx::default() }
    }
    fn styles(mut self, inner: &str) -> Docx {
        self.styles = Some(format!("<w:styles {W_NS}>{inner}</w:styles>"));
        self
    }
    fn numbering(mut self, inner: &str) -> Docx {
        self.numbering = Some(format!("<w:numbering {W_NS}>{inner}</w:numbering>"));
        self
    }
    fn footnotes(mut self, inner: &str) -> Docx {
        self.footnotes = Some(format!("<w:footnotes {W_NS}>{inner}</w:footnotes>"));
        self
    }
    fn core_title(mut self, title: &str) -> Docx {
        self.core = Some(format!(
            r#"<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></cp:coreProperties>"#
        ));
        self
    }

    /// The package: document, relationships, and the optional parts.
    fn bytes(&self) -> Vec<u8> {
        let document = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><w:document {W_NS}><w:body>{}</w:body></w:document>"#,
            self.body
        );
        let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#;
        let mut parts: Vec<(&str, &[u8])> =
            vec![("_rels/.rels", rels.as_bytes()), ("word/document.xml", document.as_bytes())];
        for (name, part) in [
            ("word/styles.xml", &self.styles),
            ("word/numbering.xml", &self.numbering),
            ("word/footnotes.xml", &self.footnotes),
            ("docProps/core.xml", &self.core),
        ] {
            if let Some(part) = part {
                parts.push((name, part.as_bytes()));
            }
        }
        zip_parts(&parts)
    }

    fn read(&self) -> Parsed {
        let parsed = DocxReader.read(&self.bytes()).expect("reads");
        check(&parsed);
        parsed
    }
}

/// A paragraph of plain text.
fn p(text: &str) -> String {
    format!("<w:p><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>")
}

/// A paragraph in style `style`.
fn ps(style: &str, text: &str) -> String {
    format!(r#"<w:p><w:pPr><w:pStyle w:val="{style}"/></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#)
}

/// A paragraph style, with `ppr` inside its `w:pPr` and `extra` (e.g. `w:basedOn`) before it.
fn style(id: &str, name: &str, extra: &str, ppr: &str) -> String {
    format!(
        r#"<w:style w:type="paragraph" w:styleId="{id}"><w:name w:val="{name}"/>{extra}<w:pPr>{ppr}</w:pPr></w:style>"#
    )
}

/// The reader contract ([`Parsed::check`]) and what DOCX adds to it: titles equal their spans
/// and sit on one line, levels 1–9, blocks not empty, no blank-line runs, no edge spaces on
/// lines, no pages.
pub(super) fn check(parsed: &Parsed) {
    parsed.check().unwrap();
    let text = &parsed.text;
    for h in &parsed.headings {
        assert_eq!(h.span.slice(text), h.title);
        assert!((1..=9).contains(&h.level), "level {}", h.level);
        assert!(!h.title.contains('\n'));
    }
    for b in &parsed.blocks {
        assert!(b.span.start < b.span.end, "{b:?}");
    }
    assert!(!text.contains("\n\n\n"), "a run of blank lines");
    assert!(!text.contains('\r'));
    for line in text.lines() {
        assert_eq!(line, line.trim(), "line with edge spaces: {line:?}");
    }
    assert!(parsed.page_breaks.is_empty());
}

fn levels(parsed: &Parsed) -> Vec<(u32, &str)> {
    parsed.headings.iter().map(|h| (h.level, h.title.as_str())).collect()
}

fn numbers(parsed: &Parsed) -> Vec<Option<String>> {
    parsed.headings.iter().map(|h| h.number.as_ref().map(|n| n.to_string())).collect()
}

#[test]
fn localized_style_names_use_outline_levels() {
    let styles = [
        style("berschrift1", "Überschrift 1", "", r#"<w:outlineLvl w:val="0"/>"#),
        style("Titre2", "Titre 2", "", r#"<w:outlineLvl w:val="1"/>"#),
        // Named like Word's heading, but neither a built-in id nor an outline level.
        style("MyHeading", "Heading 1", "", ""),
    ]
    .concat();
    let body = [
        ps("berschrift1", "Einleitung"),
        ps("Titre2", "Portée"),
        ps("MyHeading", "Not a heading"),
        r#"<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>Direct level</w:t></w:r></w:p>"#.into(),
        // Body-text outline level on the paragraph overrides its heading style.
        r#"<w:p><w:pPr><w:pStyle w:val="berschrift1"/><w:outlineLvl w:val="9"/></w:pPr><w:r><w:t>Body</w:t></w:r></w:p>"#.into(),
    ]
    .concat();
    let parsed = Docx::new(&body).styles(&styles).read();
    assert_eq!(levels(&parsed), [(1, "Einleitung"), (2, "Portée"), (3, "Direct level")]);
    assert_eq!(parsed.text, "Einleitung\n\nPortée\n\nNot a heading\n\nDirect level\n\nBody");
    let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
    use BlockKind::{Heading as H, Paragraph as P};
    assert_eq!(kinds, [H, H, P, H, P]);
}

#[test]
fn builtin_heading_ids_only_without_any_outline_level() {
    let styles = [
        style("Heading2", "heading 2", "", ""),
        style("Custom", "Custom", r#"<w:basedOn w:val="Heading3"/>"#, ""),
        style("Heading3", "heading 3", "", ""),
        style("berschrift1", "heading 1", "", ""),
        style("Heading 1", "Heading 1", "", ""),
    ]
    .concat();
    let body =
        [ps("berschrift1", "One"), ps("Heading2", "Two"), ps("Custom", "Three"), ps("Plain", "x")].concat();
    let parsed = Docx::new(&body).styles(&styles).read();
    assert_eq!(levels(&parsed), [(1, "One"), (2, "Two"), (3, "Three")]);
    // One outline level anywhere switches the fallback off.
    let body = format!(
        "{}{}",
        ps("Heading2", "Two"),
        r#"<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Real</w:t></w:r></w:p>"#
    );
    let parsed = Docx::new(&body).styles(&styles).read();
    assert_eq!(levels(&parsed), [(1, "Real")]);
}

/// Heading styles bound to a multilevel list `%1.` / `%1.%2` / `%1.%2.%3`, Word's usual
/// numbered-heading setup, plus a lettered list with a start of 3.
fn numbered_styles() -> (String, String) {
    let styles = [
        style("H1", "Kop 1", "", r#"<w:outlineLvl w:val="0"/><w:numPr><w:numId w:val="1"/></w:numPr>"#),
        style(
            "H2",
            "Kop 2",
            "",
            r#"<w:outlineLvl w:val="1"/><w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr>"#,
        ),
        // Inherits numId 1 and the outline level's neighbour from H2; sets its own level.
        style(
            "H3",
            "Kop 3",
            r#"<w:basedOn w:val="H2"/>"#,
            r#"<w:outlineLvl w:val="2"/><w:numPr><w:ilvl w:val="2"/></w:numPr>"#,
        ),
    ]
    .concat();
    let lvl = |i: u32, fmt: &str, text: &str, start: u32, style: &str| {
        format!(
            r#"<w:lvl w:ilvl="{i}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/>{style}<w:lvlText w:val="{text}"/></w:lvl>"#
        )
    };
    let numbering = format!(
        r#"<w:abstractNum w:abstractNumId="0">{}{}{}</w:abstractNum>
           <w:abstractNum w:abstractNumId="1">{}{}</w:abstractNum>
           <w:abstractNum w:abstractNumId="2">{}</w:abstractNum>
           <w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
           <w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
           <w:num w:numId="3"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
           <w:num w:numId="4"><w:abstractNumId w:val="2"/></w:num>
           <w:num w:numId="5"><w:abstractNumId w:val="1"/></w:num>"#,
        lvl(0, "decimal", "%1.", 1, r#"<w:pStyle w:val="H1"/>"#),
        lvl(1, "decimal", "%1.%2", 1, ""),
        lvl(2, "decimal", "%1.%2.%3", 1, ""),
        lvl(0, "upperLetter", "%1)", 3, ""),
        lvl(1, "lowerRoman", "(%2)", 1, ""),
        lvl(0, "bullet", "\u{f0b7}", 1, ""),
    );
    (styles, numbering)
}

fn item(num_id: u32, ilvl: u32, text: &str) -> String {
    format!(
        r#"<w:p><w:pPr><w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num_id}"/></w:numPr></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#
    )
}

#[test]
fn heading_numbers_render_and_restart() {
    let (styles, numbering) = numbered_styles();
    let body = [
        ps("H1", "Scope"),
        ps("H2", "Purpose"),
        ps("H3", "Detail"),
        ps("H2", "Audience"),
        ps("H1", "Terms"),
        ps("H2", "Defined"),
        // numId 0 on the paragraph removes the style's numbering (and does not count).
        r#"<w:p><w:pPr><w:pStyle w:val="H1"/><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr><w:r><w:t>Annex</w:t></w:r></w:p>"#.into(),
        ps("H1", "Last"),
    ]
    .concat();
    let parsed = Docx::new(&body).styles(&styles).numbering(&numbering).read();
    assert_eq!(
        levels(&parsed),
        [
            (1, "1. Scope"),
            (2, "1.1 Purpose"),
            (3, "1.1.1 Detail"),
            (2, "1.2 Audience"),
            (1, "2. Terms"),
            (2, "2.1 Defined"),
            (1, "Annex"),
            (1, "3. Last"),
        ]
    );
    let want = ["1", "1.1", "1.1.1", "1.2", "2", "2.1"].map(|n| Some(n.to_string()));
    assert_eq!(numbers(&parsed)[..6], want);
    assert_eq!(numbers(&parsed)[6], None);
    let tree = crate::tree::build_tree("doc", parsed.text.len(), &parsed.headings, &[]);
    assert_eq!(strata_text::number::find(&tree, "1.1.1").count(), 1);
}

#[test]
fn list_items_keep_their_numbers_and_lines() {
    let (styles, numbering) = numbered_styles();
    let body = [
        p("Intro"),
        item(2, 0, "first"),
        item(2, 1, "sub one"),
        item(2, 1, "sub two"),
        item(2, 0, "second"),
        item(2, 1, "restarted"),
        item(4, 0, "bullet"),
        p("Between"),
        // Same abstract list, new instance with a start override: it restarts the list's
        // count at 1, and instance 2, which shares the abstract definition, goes on from
        // there, as Word counts. Items of any list are one line apart.
        item(3, 0, "again"),
        item(2, 0, "continued"),
    ]
    .concat();
    let parsed = Docx::new(&body).styles(&styles).numbering(&numbering).read();
    assert_eq!(
        parsed.text,
        "Intro\n\nC) first\n(i) sub one\n(ii) sub two\nD) second\n(i) restarted\n- bullet\n\nBetween\n\nA) again\nB) continued"
    );
    let items = parsed.blocks.iter().filter(|b| b.kind == BlockKind::ListItem).count();
    assert_eq!(items, 8);
    assert!(parsed.headings.is_empty());
}

/// Regression: each `w:num` counted on its own, so headings numbered through two instances
/// of one definition (as after pasting) started again at 1.
#[test]
fn regression_instances_of_one_definition_share_their_count() {
    let (styles, numbering) = numbered_styles();
    let body = [item(2, 0, "one"), item(5, 0, "two"), item(2, 0, "three")].concat();
    let parsed = Docx::new(&body).styles(&styles).numbering(&numbering).read();
    assert!(parsed.text.starts_with("C) one\nD) two\nE) three"), "{:?}", parsed.text);
}

#[test]
fn based_on_chains_give_level_and_numbering() {
    let styles = [
        style("Base", "Base", "", r#"<w:outlineLvl w:val="1"/><w:numPr><w:numId w:val="7"/></w:numPr>"#),
        style("Mid", "Mid", r#"<w:basedOn w:val="Base"/>"#, r#"<w:numPr><w:ilvl w:val="1"/></w:numPr>"#),
        style("Leaf", "Leaf", r#"<w:basedOn w:val="Mid"/>"#, ""),
        // A cycle must not hang the reader.
        style("Loop1", "Loop1", r#"<w:basedOn w:val="Loop2"/>"#, ""),
        style("Loop2", "Loop2", r#"<w:basedOn w:val="Loop1"/>"#, ""),
    ]
    .concat();
    let numbering = r#"<w:abstractNum w:abstractNumId="5">
        <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1"/></w:lvl>
        <w:lvl w:ilvl="1"><w:start w:val="4"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>
      </w:abstractNum><w:num w:numId="7"><w:abstractNumId w:val="5"/></w:num>"#;
    let body = [ps("Leaf", "Inherited"), ps("Loop1", "Cycle"), ps("Leaf", "Next")].concat();
    let parsed = Docx::new(&body).styles(&styles).numbering(numbering).read();
    // Level 0 was never used, so %1 shows its start value.
    assert_eq!(levels(&parsed), [(2, "1.4 Inherited"), (2, "1.5 Next")]);
    assert_eq!(parsed.text, "1.4 Inherited\n\nCycle\n\n1.5 Next");
}

#[test]
fn footnotes_close_their_section() {
    let styles = style("H", "H", "", r#"<w:outlineLvl w:val="0"/>"#);
    let footnotes = r#"
        <w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>
        <w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>
        <w:footnote w:id="2"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> First  note,</w:t></w:r></w:p><w:p><w:r><w:t>two paragraphs.</w:t></w:r></w:p></w:footnote>
        <w:footnote w:id="3"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t>Heading note.</w:t></w:r></w:p></w:footnote>
        <w:footnote w:id="5"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t>Cell note.</w:t></w:r></w:p></w:footnote>"#;
    let fref = |id: u32| format!(r#"<w:r><w:footnoteReference w:id="{id}"/></w:r>"#);
    let body = [
        ps("H", "Alpha"),
        format!("<w:p><w:r><w:t>Claim</w:t></w:r>{}<w:r><w:t>, more.</w:t></w:r></w:p>", fref(2)),
        p("Still alpha."),
        format!(r#"<w:p><w:pPr><w:pStyle w:val="H"/></w:pPr><w:r><w:t>Beta</w:t></w:r>{}</w:p>"#, fref(3)),
        format!("<w:p><w:r><w:t>Again</w:t></w:r>{}</w:p>", fref(2)),
        format!("<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r>{}</w:p></w:tc></w:tr></w:tbl>", fref(5)),
        // A reference to a note that does not exist leaves no marker.
        format!("<w:p><w:r><w:t>Dangling</w:t></w:r>{}</w:p>", fref(9)),
    ]
    .concat();
    let parsed = Docx::new(&body).styles(&styles).footnotes(footnotes).read();
    assert_eq!(
        parsed.text,
        "Alpha\n\nClaim[^1], more.\n\nStill alpha.\n\n[^1] First note, two paragraphs.\n\n\
         Beta[^2]\n\nAgain[^1]\n\ncell[^3]\n\nDangling\n\n[^2] Heading note.\n[^3] Cell note."
    );
    assert_eq!(levels(&parsed), [(1, "Alpha"), (1, "Beta[^2]")]);
}

#[test]
fn tables_become_rows() {
    let cell = |t: &str| {
        format!(
            "<w:tc><w:tcPr><w:tcW w:w=\"100\"/></w:tcPr>{}</w:tc>",
            if t.is_empty() { "<w:p/>".to_string() } else { p(t) }
        )
    };
    let nested = format!(
        "<w:tc><w:p><w:r><w:t>outer</w:t></w:r></w:p><w:tbl><w:tr>{}{}</w:tr></w:tbl></w:tc>",
        cell("in1"),
        cell("in2")
    );
    let body = format!(
        "{}<w:tbl><w:tblPr/><w:tblGrid/><w:tr>{}{}{}</w:tr><w:tr>{}{}{}</w:tr><w:tr>{}{}</w:tr><w:sdt><w:sdtContent><w:tr>{}{}</w:tr></w:sdtContent></w:sdt></w:tbl>{}",
        p("Before"),
        cell("Name"), cell("Type"), cell("Note"),
        cell("id"), cell(""), cell("key"),
        cell(""), cell(""),
        nested, "<w:tc><w:p><w:r><w:t>line</w:t><w:br/><w:t>break</w:t></w:r></w:p><w:p><w:r><w:t>para</w:t></w:r></w:p></w:tc>",
        p("After"),
    );
    let parsed = Docx::new(&body).read();
    assert_eq!(
        parsed.text,
        "Before\n\nName | Type | Note\nid | | key\nouter in1 in2 | line break para\n\nAfter"
    );
    let table = parsed.blocks.iter().find(|b| b.kind == BlockKind::Table).expect("a table block");
    assert_eq!(table.span.slice(&parsed.text).lines().count(), 3);
}

#[test]
fn tracked_changes_fields_and_hidden_text() {
    let body = r#"<w:p>
        <w:r><w:t xml:space="preserve">Kept </w:t></w:r>
        <w:del w:id="1" w:author="a"><w:r><w:delText>deleted </w:delText></w:r></w:del>
        <w:ins w:id="2" w:author="a"><w:r><w:t xml:space="preserve">inserted </w:t></w:r></w:ins>
        <w:moveFrom w:id="3"><w:r><w:t>moved-away</w:t></w:r></w:moveFrom>
        <w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGEREF _Toc1 \h </w:instrText></w:r>
        <w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>
        <w:r><w:rPr><w:vanish/></w:rPr><w:t>hidden</w:t></w:r>
        <w:r><w:rPr><w:vanish w:val="0"/></w:rPr><w:t xml:space="preserve"> shown</w:t></w:r>
        <w:r><w:tab/><w:t>tabbed</w:t><w:br/><w:t>next   line</w:t><w:noBreakHyphen/><w:t>x&#xAD;y</w:t></w:r>
      </w:p>
      <w:p><w:r><w:t>  </w:t></w:r></w:p>
      <w:p><w:r><w:br w:type="page"/></w:r></w:p>
      <w:del><w:p><w:r><w:t>deleted paragraph</w:t></w:r></w:p></w:del>
      <w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>In the box</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>In the box</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent><w:t>Anchor</w:t></w:r></w:p>
      <w:sdt><w:sdtPr><w:alias w:val="x"/></w:sdtPr><w:sdtContent><w:p><w:r><w:t>In a control</w:t></w:r></w:p></w:sdtContent></w:sdt>"#;
    let parsed = Docx::new(body).read();
    assert_eq!(
        parsed.text,
        "Kept inserted 7 shown tabbed\nnext line-xy\n\nAnchor\n\nIn the box\n\nIn a control"
    );
}

#[test]
fn title_style_then_core_title() {
    let styles = style("Title", "Title", "", "");
    let body = [
        ps("Title", ""),
        ps("Title", "Review Guide for"),
        ps("Title", "Version 2.0 "),
        p("Text"),
        ps("Title", "Later"),
    ]
    .concat();
    let parsed = Docx::new(&body).styles(&styles).core_title("Core").read();
    assert_eq!(parsed.title.as_deref(), Some("Review Guide for Version 2.0"));
    let parsed = Docx::new(&p("Text")).styles(&styles).core_title("  Core\n title ").read();
    assert_eq!(parsed.title.as_deref(), Some("Core title"));
    assert_eq!(Docx::new(&p("Text")).read().title, None);
}

#[test]
fn strict_namespace_reads_the_same() {
    let document = r#"<w:document xmlns:w="http://purl.oclc.org/ooxml/wordprocessingml/main"><w:body>
        <w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Strict</w:t></w:r></w:p><w:p><w:r><w:t>body</w:t></w:r></w:p>
        </w:body></w:document>"#;
    let bytes = zip_parts(&[("word/document.xml", document.as_bytes())]);
    let parsed = DocxReader.read(&bytes).unwrap();
    assert_eq!(parsed.text, "Strict\n\nbody");
    assert_eq!(parsed.headings.len(), 1);
}

#[test]
fn damaged_structure_parts_only_warn() {
    let mut docx = Docx::new(&ps("H", "Text"));
    docx.styles = Some("<w:styles".into());
    let parsed = docx.read();
    assert_eq!(parsed.text, "Text");
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
    assert!(parsed.warnings[0].contains("word/styles.xml"), "{}", parsed.warnings[0]);
    // A numbering part that is not text at all: the numbers go, the text stays.
    let document = format!("<w:document {W_NS}><w:body>{}</w:body></w:document>", p("Text"));
    let bytes =
        zip_parts(&[("word/document.xml", document.as_bytes()), ("word/numbering.xml", b"\xff\xfe\x00\xd8")]);
    let parsed = DocxReader.read(&bytes).unwrap();
    assert_eq!(parsed.text, "Text");
    assert!(
        parsed.warnings[0].contains("numbering.xml") && parsed.warnings[0].contains("numbers are lost"),
        "{:?}",
        parsed.warnings
    );
}

fn error(bytes: &[u8]) -> String {
    match DocxReader.read(bytes) {
        Ok(p) => panic!("read {:?}", p.text),
        Err(e) => e.to_string(),
    }
}

#[test]
fn corrupt_zip_is_a_clear_error() {
    let e = error(b"PK\x03\x04 this is not really a zip");
    assert!(e.contains("damaged zip archive") && e.contains("repair"), "{e}");
    let e = error(b"<html>renamed</html>");
    assert!(e.contains("not a zip archive"), "{e}");
    // A valid zip cut in half loses its central directory.
    let bytes = Docx::new(&p("x")).bytes();
    let e = error(&bytes[..bytes.len() / 2]);
    assert!(e.contains("damaged zip archive"), "{e}");
    assert_eq!(DocxReader.read(b"").unwrap_err(), ReadError::Empty);
}

#[test]
fn encrypted_and_legacy_ole_files_are_named() {
    let ole = |stream: &str| {
        let mut bytes = vec![0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
        bytes.resize(512, 0);
        bytes.extend(stream.encode_utf16().flat_map(u16::to_le_bytes));
        bytes.resize(2048, 0);
        bytes
    };
    let e = error(&ole("EncryptedPackage"));
    assert!(e.contains("password-protected") && e.contains("remove the password"), "{e}");
    let e = error(&ole("WordDocument"));
    assert!(e.contains("Word 97-2003") && e.contains("save it as .docx"), "{e}");
    let e = error(&ole("Other"));
    assert!(e.contains("OLE compound file"), "{e}");
}

#[test]
fn missing_document_part_is_a_clear_error() {
    let bytes = zip_parts(&[("word/styles.xml", b"<w:styles/>")]);
    let e = error(&bytes);
    assert!(e.contains("no word/document.xml"), "{e}");
    let odt =
        zip_parts(&[("mimetype", b"application/vnd.oasis.opendocument.text"), ("content.xml", b"<x/>")]);
    assert!(error(&odt).contains("OpenDocument"), "{}", error(&odt));
    // The relationships name a part the zip lacks, and there is no fallback either.
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/main.xml"/></Relationships>"#;
    let bytes = zip_parts(&[("_rels/.rels", rels.as_bytes())]);
    assert!(error(&bytes).contains("no word/document.xml"));
    // A document without a body, and one that is not XML.
    let bytes = zip_parts(&[("word/document.xml", format!("<w:document {W_NS}/>").as_bytes())]);
    assert!(error(&bytes).contains("no w:body"), "{}", error(&bytes));
    let bytes = zip_parts(&[("word/document.xml", b"<w:document><w:body>")]);
    assert!(error(&bytes).contains("not well-formed XML"), "{}", error(&bytes));
}

#[test]
fn relationships_locate_renamed_parts() {
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/Content/Main.XML"/></Relationships>"#;
    let doc_rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="s" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="../Shared/s.xml"/></Relationships>"#;
    let styles =
        format!("<w:styles {W_NS}>{}</w:styles>", style("X", "X", "", r#"<w:outlineLvl w:val="1"/>"#));
    let document = format!("<w:document {W_NS}><w:body>{}</w:body></w:document>", ps("X", "Found"));
    let bytes = zip_parts(&[
        ("_rels/.rels", rels.as_bytes()),
        ("content/main.xml", document.as_bytes()),
        ("Content/_rels/Main.XML.rels", doc_rels.as_bytes()),
        ("Shared/s.xml", styles.as_bytes()),
    ]);
    let parsed = DocxReader.read(&bytes).unwrap();
    assert_eq!(levels(&parsed), [(2, "Found")]);
}

#[test]
fn zip_bombs_are_refused() {
    // 4 MiB of one repeated paragraph deflates to a few KiB; a 1 MiB cap refuses it.
    let body = p("aaaaaaaaaaaaaaaa").repeat(4 * 1024 * 1024 / 60);
    let bytes = Docx::new(&body).bytes();
    assert!(bytes.len() < 200_000, "{} bytes", bytes.len());
    let e = read_docx(&bytes, 1024 * 1024, &ReadLimits::default()).unwrap_err().to_string();
    assert!(e.contains("more than 1 MiB") && e.contains("zip bomb"), "{e}");
    assert!(read_docx(&bytes, MAX_UNZIPPED_BYTES, &ReadLimits::default()).is_ok());
}

#[test]
fn empty_documents_are_empty() {
    assert_eq!(DocxReader.read(&Docx::new("<w:p/><w:sectPr/>").bytes()).unwrap_err(), ReadError::Empty);
}

#[test]
fn hostile_nesting_does_not_overflow() {
    let depth = 20_000;
    let body = format!(
        "{}{}{}",
        "<w:sdt><w:sdtContent>".repeat(depth),
        p("deep"),
        "</w:sdtContent></w:sdt>".repeat(depth)
    );
    let parsed = Docx::new(&body).read();
    assert_eq!(parsed.text, "deep");
}

#[test]
fn heading_mark_numbers_keep_units() {
    let styles = style("H", "H", "", r#"<w:outlineLvl w:val="0"/><w:numPr><w:numId w:val="1"/></w:numPr>"#);
    let numbering = r#"<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="2"/><w:numFmt w:val="upperRoman"/><w:lvlText w:val="Article %1."/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>"#;
    let parsed =
        Docx::new(&[ps("H", "Scope"), ps("H", "Terms")].concat()).styles(&styles).numbering(numbering).read();
    assert_eq!(levels(&parsed), [(1, "Article II. Scope"), (1, "Article III. Terms")]);
    let HeadingMark { number, .. } = &parsed.headings[1];
    let number = number.as_ref().unwrap();
    assert_eq!((number.number.as_str(), number.unit.as_deref()), ("III", Some("article")));
}

/// A DOCX of 3.54M outline-level paragraphs (890 KB) took 2.74 GB: every heading was held
/// until the tree dropped all but `max_sections`. Headings are kept to the cap as they are
/// found, and the blocks of the dropped ones become one block of text.
#[test]
fn regression_an_outline_bomb_keeps_max_sections_as_it_reads() {
    let body = r#"<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>a</w:t></w:r></w:p>"#.repeat(5_000);
    let limits = ReadLimits { max_headings: 10, ..ReadLimits::default() };
    let parsed = DocxReader.read_with(&Docx::new(&body).bytes(), &limits).unwrap();
    assert_eq!((parsed.headings.len(), parsed.dropped_headings), (10, 4_990));
    let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [vec![BlockKind::Heading; 10], vec![BlockKind::Other]].concat());
    assert_eq!(parsed.blocks[10].span.end, parsed.text.len());
}
