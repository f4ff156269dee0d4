//! The `Reader` contract, checked for every reader on arbitrary input:
//!
//! 1. `read` never panics, whatever the bytes;
//! 2. heading spans and block spans lie on `char` boundaries inside the text;
//! 3. headings are in document order and do not overlap; blocks are sorted and disjoint;
//! 4. page breaks are sorted (equal offsets are empty pages) and strictly inside the text.
//!
//! DOCX also runs on generated packages (`docxish`): random bytes almost never get past the
//! zip signature, so the packages hold generated WordprocessingML, sometimes cut short or
//! with bytes of the zip overwritten.
//!
//! PDF likewise runs on generated files (`pdfish`): a real page tree written by lopdf, with
//! simple and composite fonts, form XObjects, an outline and page labels, and a content
//! stream of random operators, sometimes cut short or with bytes overwritten. The reader
//! turns a panic inside the PDF parser into an error; the check also fails on that error,
//! so a panic anywhere on these inputs is found.

use proptest::prelude::*;
use strata_core::Format;
use strata_ingest::read::reader_for;

const FORMATS: [Format; 5] = [Format::Markdown, Format::Html, Format::Text, Format::Docx, Format::Pdf];

fn markupish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"# ".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(b"```".to_vec()),
        Just(b"| a | b |\n|---|---|\n".to_vec()),
        Just(b"<h2>".to_vec()),
        Just(b"</h2>".to_vec()),
        Just(b"<table><tr><td>".to_vec()),
        Just(b"<script>".to_vec()),
        Just(b"<pre>".to_vec()),
        Just(b"&amp;&#x0;&#9999999;".to_vec()),
        Just(b"\x0c".to_vec()),
        Just(b"4.2.1.  Title\n".to_vec()),
        Just(b"SEC. 101. SHORT TITLE.\n".to_vec()),
        Just(b"ARTICLE V\n".to_vec()),
        Just(b"   body [Page 3]\n".to_vec()),
        Just(b"---\ntitle: x\n---\n".to_vec()),
        Just("日本語 naïve §".as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..16),
        "[a-zA-Z .]{0,40}".prop_map(|s| s.into_bytes()),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

/// WordprocessingML inside a paragraph or the body: runs, properties and references.
fn wordml_leaf() -> impl Strategy<Value = String> {
    let ppr = prop::sample::select(vec![
        "",
        r#"<w:pPr><w:pStyle w:val="H1"/></w:pPr>"#,
        r#"<w:pPr><w:pStyle w:val="H2"/></w:pPr>"#,
        r#"<w:pPr><w:pStyle w:val="Title"/></w:pPr>"#,
        r#"<w:pPr><w:outlineLvl w:val="3"/><w:numPr><w:ilvl w:val="1"/><w:numId w:val="2"/></w:numPr></w:pPr>"#,
    ]);
    prop_oneof![
        3 => (ppr, "[a-zA-Z .§日ü]{0,12}").prop_map(|(ppr, t)| format!("<w:p>{ppr}<w:r><w:t>{t}</w:t></w:r></w:p>")),
        1 => "[a-zA-Z .§日ü]{0,12}".prop_map(|t| format!(r#"<w:r><w:t xml:space="preserve">{t}</w:t></w:r>"#)),
        1 => Just(r#"<w:pPr><w:pStyle w:val="H1"/></w:pPr>"#.to_string()),
        1 => Just(r#"<w:pPr><w:pStyle w:val="H2"/><w:outlineLvl w:val="9"/></w:pPr>"#.to_string()),
        1 => Just(r#"<w:pPr><w:pStyle w:val="Title"/><w:numPr><w:ilvl w:val="3"/></w:numPr></w:pPr>"#.to_string()),
        1 => Just(r#"<w:pPr><w:outlineLvl w:val="99"/><w:numPr><w:ilvl w:val="8"/><w:numId w:val="1"/></w:numPr></w:pPr>"#.to_string()),
        1 => Just(r#"<w:pPr><w:outlineLvl w:val="2"/><w:numPr><w:ilvl w:val="x"/><w:numId w:val="2"/></w:numPr></w:pPr>"#.to_string()),
        1 => Just(r#"<w:r><w:footnoteReference w:id="2"/></w:r>"#.to_string()),
        1 => Just(r#"<w:footnoteReference w:id="-1"/>"#.to_string()),
        1 => Just("<w:br/><w:tab/><w:cr/><w:noBreakHyphen/>".to_string()),
        1 => Just("<w:r><w:delText>gone</w:delText><w:instrText>TOC</w:instrText></w:r>".to_string()),
        1 => Just("<w:r><w:rPr><w:vanish/></w:rPr><w:t>hidden</w:t></w:r>".to_string()),
        1 => Just("<w:t>&amp;&#xAD;&#x200B;\u{FEFF}&lt;</w:t>".to_string()),
    ]
}

/// Well-formed WordprocessingML trees: paragraphs, tables, content controls, text boxes,
/// alternate content and tracked changes nested in any order.
fn wordml_tree() -> impl Strategy<Value = String> {
    let containers = vec![
        ("<w:p>", "</w:p>"),
        ("<w:tbl><w:tr><w:tc>", "</w:tc></w:tr></w:tbl>"),
        ("<w:tc>", "</w:tc>"),
        ("<w:sdt><w:sdtContent>", "</w:sdtContent></w:sdt>"),
        ("<w:r><w:drawing><w:txbxContent>", "</w:txbxContent></w:drawing></w:r>"),
        ("<mc:AlternateContent><mc:Choice>", "</mc:Choice></mc:AlternateContent>"),
        ("<mc:Fallback>", "</mc:Fallback>"),
        ("<w:ins>", "</w:ins>"),
        ("<w:del>", "</w:del>"),
        ("<w:hyperlink>", "</w:hyperlink>"),
    ];
    wordml_leaf().prop_recursive(6, 96, 6, move |inner| {
        (prop::sample::select(containers.clone()), prop::collection::vec(inner, 0..6))
            .prop_map(|((open, close), children)| format!("{open}{}{close}", children.concat()))
    })
}

/// Style, numbering and footnote parts: plausible ones and hostile ones (cycles, numbers at
/// the edge of `u32`, levels out of range, dangling links).
fn wordml_parts() -> impl Strategy<Value = (&'static str, &'static str, &'static str)> {
    let styles = prop::sample::select(vec![
        r#"<w:style w:type="paragraph" w:styleId="H1"><w:pPr><w:outlineLvl w:val="0"/><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style><w:style w:type="paragraph" w:styleId="H2"><w:basedOn w:val="H1"/><w:pPr><w:outlineLvl w:val="1"/><w:numPr><w:ilvl w:val="1"/></w:numPr></w:pPr></w:style><w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>"#,
        r#"<w:style w:type="paragraph" w:styleId="H1"><w:basedOn w:val="H2"/></w:style><w:style w:type="paragraph" w:styleId="H2"><w:basedOn w:val="H1"/><w:pPr><w:numPr><w:numId w:val="2"/></w:numPr></w:pPr></w:style>"#,
        r#"<w:style w:type="paragraph" w:styleId="H1"><w:name w:val="heading 1"/></w:style><w:style w:styleId="H2"><w:pPr><w:outlineLvl w:val="4294967295"/></w:pPr></w:style>"#,
        "",
    ]);
    let numbering = prop::sample::select(vec![
        r#"<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1.%2"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="1"><w:startOverride w:val="9"/></w:lvlOverride></w:num>"#,
        r#"<w:abstractNum w:abstractNumId="0"><w:numStyleLink w:val="S"/><w:lvl w:ilvl="8"><w:start w:val="4294967295"/><w:numFmt w:val="upperRoman"/><w:lvlText w:val="%9.%1%"/><w:lvlRestart w:val="0"/></w:lvl></w:abstractNum><w:abstractNum w:abstractNumId="1"><w:styleLink w:val="S"/><w:lvl w:ilvl="9"/></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="7"/></w:num>"#,
        r#"<w:num w:numId="1"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="%1%2%3%4%5%6%7%8%9"/></w:lvl></w:lvlOverride></w:num>"#,
    ]);
    let notes = prop::sample::select(vec![
        r#"<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="2"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t>note</w:t></w:r></w:p></w:footnote>"#,
        r#"<w:footnote w:id="2"><w:p><w:r><w:footnoteReference w:id="2"/><w:t>self</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl></w:footnote>"#,
        "",
    ]);
    (styles, numbering, notes)
}

/// A zipped DOCX package of generated parts; sometimes with the document cut short, and
/// sometimes with bytes of the zip overwritten, so that the refusals run too.
fn docxish() -> impl Strategy<Value = Vec<u8>> {
    let cut = prop_oneof![4 => Just(None), 1 => any::<prop::sample::Index>().prop_map(Some)];
    let flips = prop_oneof![
        4 => Just(Vec::new()),
        1 => prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ];
    (prop::collection::vec(wordml_tree(), 0..8), wordml_parts(), cut, flips).prop_map(
        |(body, (styles, numbering, notes), cut, flips)| {
            const NS: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006""#;
            let mut document = format!("<w:document {NS}><w:body>{}</w:body></w:document>", body.concat());
            if let Some(cut) = cut {
                document.truncate(strata_core::floor_char_boundary(&document, cut.index(document.len() + 1)));
            }
            let parts = [
                ("word/document.xml", document),
                ("word/styles.xml", format!("<w:styles {NS}>{styles}</w:styles>")),
                ("word/numbering.xml", format!("<w:numbering {NS}>{numbering}</w:numbering>")),
                ("word/footnotes.xml", format!("<w:footnotes {NS}>{notes}</w:footnotes>")),
            ];
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            let options =
                zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
            for (name, xml) in parts {
                zip.start_file(name, options).unwrap();
                std::io::Write::write_all(&mut zip, xml.as_bytes()).unwrap();
            }
            let mut bytes = zip.finish().unwrap().into_inner();
            for (at, byte) in flips {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
            bytes
        },
    )
}

/// Operators of a content stream, in any order and with any operands.
fn content_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("BT ".to_string()),
        Just("ET ".to_string()),
        Just("q ".to_string()),
        Just("Q ".to_string()),
        Just("T* ".to_string()),
        Just("/Fm1 Do ".to_string()),
        Just("/Missing Do ".to_string()),
        (prop::sample::select(vec!["F1", "F2", "F3", "Nope"]), -5.0f32..40.0)
            .prop_map(|(f, s)| format!("/{f} {s} Tf ")),
        (-600.0f32..600.0, -800.0f32..800.0).prop_map(|(x, y)| format!("{x} {y} Td ")),
        (-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0, -600.0f32..600.0, -800.0f32..800.0)
            .prop_map(|(a, b, c, d, e, f)| format!("{a} {b} {c} {d} {e} {f} Tm ")),
        (0.0f32..3.0, -1.0f32..1.0).prop_map(|(a, b)| format!("{a} {b} {b} {a} 10 20 cm ")),
        "[a-zA-Z0-9 .()-]{0,12}".prop_map(|t| format!("({}) Tj ", t.replace(['(', ')'], ""))),
        "[0-9a-fA-F]{0,16}".prop_map(|h| format!("<{h}> Tj ")),
        ("[a-z ]{0,6}", -3000i32..3000, "[a-z ]{0,6}").prop_map(|(a, n, b)| format!("[({a}) {n} ({b})] TJ ")),
        (-5.0f32..5.0).prop_map(|v| format!("{v} Tc {v} Tw {v} TL {v} Ts ")),
        (0.0f32..300.0).prop_map(|v| format!("{v} Tz ")),
        Just("1 2 (x) \" ".to_string()),
        Just("(y) ' ".to_string()),
        Just("[ 1 2 ".to_string()),
        Just("<< /A 1 >> ".to_string()),
    ]
}

/// A PDF written by lopdf around a generated content stream (see the module comment).
fn pdfish() -> impl Strategy<Value = Vec<u8>> {
    let pages = prop::collection::vec(prop::collection::vec(content_piece(), 0..40), 1..4);
    let flips = prop_oneof![
        5 => Just(Vec::new()),
        1 => prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ];
    let cut = prop_oneof![6 => Just(None), 1 => any::<prop::sample::Index>().prop_map(Some)];
    (pages, flips, cut).prop_map(|(pages, flips, cut)| {
        use lopdf::{dictionary, Object, Stream};
        let mut doc = lopdf::Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let f1 = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica-Bold",
            "FirstChar" => 32, "Widths" => vec![Object::Integer(278); 95],
            "Encoding" => dictionary! { "Type" => "Encoding", "Differences" => vec![Object::Integer(65), Object::Name(b"fi".to_vec())] },
        });
        let cmap = Stream::new(dictionary! {}, b"1 begincodespacerange <0000> <FFFF> endcodespacerange 2 beginbfchar <0041> <0066> <0042> <FB01> endbfchar".to_vec());
        let cmap = doc.add_object(cmap);
        let cid = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "ABCDEE+Calibri",
            "DW" => 500, "W" => vec![Object::Integer(65), Object::Array(vec![Object::Integer(600), Object::Integer(700)]), Object::Integer(70), Object::Integer(80), Object::Integer(300)],
        });
        let f2 = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "ABCDEE+Calibri", "Encoding" => "Identity-H",
            "DescendantFonts" => vec![Object::Reference(cid)], "ToUnicode" => Object::Reference(cmap),
        });
        let f3 = doc.add_object(dictionary! { "Type" => "Font", "Subtype" => "Type3", "FontMatrix" => vec![0.01.into(), 0.into(), 0.into(), 0.01.into(), 0.into(), 0.into()], "FirstChar" => 0, "Widths" => vec![Object::Integer(50); 256] });
        let form = doc.add_object(Stream::new(
            dictionary! { "Type" => "XObject", "Subtype" => "Form", "Matrix" => vec![0.into(), 1.into(), (-1).into(), 0.into(), 0.into(), 0.into()] },
            b"BT /F1 9 Tf 20 20 Td (margin) Tj ET /Fm1 Do".to_vec(),
        ));
        let resources = doc.add_object(dictionary! {
            "Font" => dictionary! { "F1" => f1, "F2" => f2, "F3" => f3 },
            "XObject" => dictionary! { "Fm1" => form },
        });
        let mut kids = Vec::new();
        for ops in &pages {
            let content = doc.add_object(Stream::new(dictionary! {}, ops.concat().into_bytes()));
            let page = doc.add_object(dictionary! {
                "Type" => "Page", "Parent" => pages_id, "Contents" => content, "Resources" => resources,
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            });
            kids.push(Object::Reference(page));
        }
        let count = kids.len() as i64;
        doc.objects.insert(pages_id, Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids.clone(), "Count" => count }));
        let outline_id = doc.new_object_id();
        let item = doc.add_object(dictionary! {
            "Title" => Object::string_literal("Section 1"), "Parent" => outline_id, "Dest" => vec![kids[0].clone(), "Fit".into()],
        });
        doc.objects.insert(outline_id, Object::Dictionary(dictionary! { "Type" => "Outlines", "First" => item, "Last" => item, "Count" => 1 }));
        let labels = dictionary! { "Nums" => vec![0.into(), Object::Dictionary(dictionary! { "S" => "r" }), 1.into(), Object::Dictionary(dictionary! { "S" => "D", "P" => Object::string_literal("A-") })] };
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id, "Outlines" => outline_id, "PageLabels" => labels });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        bytes
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn pdf_reader_never_panics_on_generated_files(bytes in pdfish()) {
        match reader_for(Format::Pdf).unwrap().read(&bytes) {
            Ok(parsed) => prop_assert!(parsed.check().is_ok(), "pdf: {}", parsed.check().unwrap_err()),
            Err(e) => prop_assert!(!e.to_string().contains("parser failed"), "a panic was caught: {e}"),
        }
    }

    #[test]
    fn docx_reader_never_panics_on_mangled_packages(bytes in docxish()) {
        let reader = reader_for(Format::Docx).unwrap();
        if let Ok(parsed) = reader.read(&bytes) {
            prop_assert!(parsed.check().is_ok(), "docx: {}", parsed.check().unwrap_err());
        }
    }

    #[test]
    fn readers_never_panic_and_keep_spans_valid(bytes in markupish()) {
        for format in FORMATS {
            let reader = reader_for(format).unwrap();
            if let Ok(parsed) = reader.read(&bytes) {
                prop_assert!(parsed.check().is_ok(), "{format:?}: {}", parsed.check().unwrap_err());
            }
        }
    }

    #[test]
    fn readers_never_panic_on_raw_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        for format in FORMATS {
            if let Ok(parsed) = reader_for(format).unwrap().read(&bytes) {
                prop_assert!(parsed.check().is_ok(), "{format:?}: {}", parsed.check().unwrap_err());
            }
        }
    }
}

/// Found by `fuzz/` (`read_pdf`): a `/MediaBox [000 612 792]` with three numbers made
/// `page_space` index `v[3]` and panic; the reader caught it and failed the whole file.
#[test]
fn pdf_media_box_with_three_numbers_does_not_panic() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz-regressions/read_pdf-mediabox-three-numbers");
    let bytes = std::fs::read(path).unwrap();
    match reader_for(Format::Pdf).unwrap().read(&bytes) {
        Ok(parsed) => assert!(parsed.check().is_ok(), "pdf: {}", parsed.check().unwrap_err()),
        Err(e) => assert!(!e.to_string().contains("parser failed"), "a panic was caught: {e}"),
    }
}
