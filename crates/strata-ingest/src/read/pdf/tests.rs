//! The PDF reader on small files built here with lopdf: the error paths (encrypted, corrupt,
//! image-only, not a PDF) and the layout rules (columns, rotated text, hyphenation,
//! furniture) on pages whose every glyph is known.

use lopdf::{dictionary, Document, Object, Stream};

use super::PdfReader;
use crate::read::{ReadError, Reader};

/// A PDF with one page per content stream, Helvetica as `/F1` (600 units per glyph).
fn pdf(pages: &[String]) -> Document {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        "FirstChar" => 32, "Widths" => vec![Object::Integer(600); 95], "Encoding" => "WinAnsiEncoding",
    });
    let bold = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica-Bold",
        "FirstChar" => 32, "Widths" => vec![Object::Integer(600); 95], "Encoding" => "WinAnsiEncoding",
    });
    let resources = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font, "F2" => bold } });
    let mut kids = Vec::new();
    for content in pages {
        let content = doc.add_object(Stream::new(dictionary! {}, content.clone().into_bytes()));
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content, "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        });
        kids.push(Object::Reference(page));
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    doc
}

fn bytes(mut doc: Document) -> Vec<u8> {
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// Lines of text at 10 pt, 12 pt apart, from `(x, y)` down.
fn lines(x: f32, y: f32, lines: &[&str]) -> String {
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        s.push_str(&format!("BT /F1 10 Tf {x} {} Td ({l}) Tj ET\n", y - 12.0 * i as f32));
    }
    s
}

fn read(bytes: &[u8]) -> Result<crate::read::Parsed, ReadError> {
    PdfReader.read(bytes)
}

#[test]
fn pages_and_paragraphs_are_read() {
    let p1 = lines(72.0, 700.0, &["First line of the first", "paragraph goes on here."])
        + &lines(72.0, 660.0, &["A second paragraph."]);
    let p2 = lines(72.0, 700.0, &["Page two."]);
    let parsed = read(&bytes(pdf(&[p1, p2]))).unwrap();
    assert_eq!(
        parsed.text,
        "First line of the first\nparagraph goes on here.\n\nA second paragraph.\n\nPage two.\n"
    );
    assert_eq!(parsed.page_breaks, vec![parsed.text.find("Page two").unwrap()]);
    assert_eq!(parsed.blocks.len(), 3);
}

#[test]
fn hyphenated_line_ends_are_joined_but_compounds_keep_their_hyphen() {
    let p = lines(72.0, 700.0, &["an exam-", "ple of end-to-", "end joining"]);
    let parsed = read(&bytes(pdf(&[p]))).unwrap();
    assert_eq!(parsed.text, "an example of end-to-end joining\n");
}

#[test]
fn two_columns_are_read_left_then_right() {
    // Wide lines in two columns (each about 40 % of the text width), left column first in
    // height order, but written to the stream interleaved line by line.
    let mut content = String::new();
    for i in 0..8 {
        let y = 700.0 - 12.0 * i as f32;
        content.push_str(&format!("BT /F1 10 Tf 72 {y} Td (left column line {i} text) Tj ET\n"));
        content.push_str(&format!("BT /F1 10 Tf 330 {y} Td (right column line {i} text) Tj ET\n"));
    }
    let parsed = read(&bytes(pdf(&[content]))).unwrap();
    let left = parsed.text.find("left column line 7").unwrap();
    let right = parsed.text.find("right column line 0").unwrap();
    assert!(left < right, "{}", parsed.text);
    assert!(!parsed.text.contains("text right"), "columns interleaved: {}", parsed.text);
}

#[test]
fn rotated_margin_text_is_left_out() {
    let content = lines(72.0, 700.0, &["Body text."])
        + "BT /F1 8 Tf 0 1 -1 0 20 300 Tm (available free of charge) Tj ET\n";
    let parsed = read(&bytes(pdf(&[content]))).unwrap();
    assert_eq!(parsed.text, "Body text.\n");
}

#[test]
fn running_headers_and_page_numbers_are_left_out_and_numbers_become_labels() {
    let words = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta"];
    let pages: Vec<String> = (1..=6)
        .map(|n| {
            lines(72.0, 760.0, &["Widget Handbook"])
                + &lines(72.0, 720.0, &[&format!("{} begins the body.", words[n - 1])])
                + &lines(300.0, 40.0, &[&format!("{}", n + 10)])
        })
        .collect();
    let parsed = read(&bytes(pdf(&pages))).unwrap();
    assert!(!parsed.text.contains("Widget Handbook"), "{}", parsed.text);
    assert!(!parsed.text.contains("11"), "{}", parsed.text);
    assert!(words.iter().all(|w| parsed.text.contains(&format!("{w} begins the body."))), "{}", parsed.text);
    assert_eq!(parsed.page_labels.get(2).cloned().flatten().as_deref(), Some("13"));
}

#[test]
fn numbered_bold_lines_become_headings_when_there_is_no_outline() {
    let content = "BT /F2 12 Tf 72 700 Td (2.1 Scope of Work) Tj ET\n".to_string()
        + &lines(72.0, 680.0, &["The contractor shall deliver the widgets."])
        + &lines(72.0, 650.0, &["2 apples are not a heading."]);
    let parsed = read(&bytes(pdf(&[content]))).unwrap();
    let titles: Vec<(u32, &str)> = parsed.headings.iter().map(|h| (h.level, h.title.as_str())).collect();
    assert_eq!(titles, [(2, "2.1 Scope of Work")]);
}

#[test]
fn encrypted_files_are_refused_with_the_fix() {
    let mut doc = pdf(&[lines(72.0, 700.0, &["secret"])]);
    doc.trailer.set(
        "ID",
        vec![Object::string_literal("0123456789abcdef"), Object::string_literal("0123456789abcdef")],
    );
    let version = lopdf::EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner",
        user_password: "user",
        key_length: 128,
        permissions: lopdf::Permissions::default(),
    };
    let state = lopdf::EncryptionState::try_from(version).unwrap();
    doc.encrypt(&state).unwrap();
    let err = read(&bytes(doc)).unwrap_err().to_string();
    assert!(err.contains("encrypted") && err.contains("qpdf --decrypt"), "{err}");
}

#[test]
fn pages_without_text_are_a_no_text_layer_error() {
    let content = "q 200 0 0 200 100 400 cm 0 0 1 1 re f Q".to_string();
    let err = read(&bytes(pdf(&[content.clone(), content]))).unwrap_err();
    assert_eq!(err, ReadError::NoTextLayer { pages: 2 });
    assert!(err.to_string().contains("OCR"), "{err}");
}

#[test]
fn corrupt_and_foreign_files_are_refused() {
    let good = bytes(pdf(&[lines(72.0, 700.0, &["Hello."])]));
    let err = read(&good[..good.len() / 3]).unwrap_err().to_string();
    assert!(err.contains("could not be parsed") || err.contains("no pages"), "{err}");
    let err = read(b"PK\x03\x04 not a pdf").unwrap_err().to_string();
    assert!(err.contains("not a PDF"), "{err}");
}
