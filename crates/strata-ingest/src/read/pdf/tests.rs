//! The PDF reader on small files built here with lopdf: the error paths (encrypted, corrupt,
//! image-only, not a PDF) and the layout rules (columns, rotated text, hyphenation,
//! furniture) on pages whose every glyph is known.

use lopdf::{dictionary, Document, Object, Stream};

use super::PdfReader;
use crate::read::{ReadError, Reader};

/// A PDF with one page per content stream, Helvetica as `/F1` and Helvetica-Bold as `/F2`
/// (600 units per glyph).
fn pdf(pages: &[String]) -> Document {
    build(pages, dictionary! {}, |_, _| Vec::new())
}

/// [`pdf`] with `page_extra` in every page dictionary, and catalog entries made by `extra`
/// from the document and the page ids.
fn build(
    pages: &[String],
    page_extra: lopdf::Dictionary,
    extra: impl FnOnce(&mut Document, &[lopdf::ObjectId]) -> Vec<(&'static str, Object)>,
) -> Document {
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
        let mut page = dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content, "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        };
        for (k, v) in page_extra.iter() {
            page.set(k.clone(), v.clone());
        }
        kids.push(doc.add_object(page));
    }
    let count = kids.len() as i64;
    let refs: Vec<Object> = kids.iter().map(|k| Object::Reference(*k)).collect();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => refs, "Count" => count }),
    );
    let mut catalog = dictionary! { "Type" => "Catalog", "Pages" => pages_id };
    for (k, v) in extra(&mut doc, &kids) {
        catalog.set(k, v);
    }
    let catalog = doc.add_object(catalog);
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

/// Encrypts `doc` (RC4 128, owner password `owner`) with `user_password`.
fn encrypt(doc: &mut Document, user_password: &str) {
    doc.trailer.set(
        "ID",
        vec![Object::string_literal("0123456789abcdef"), Object::string_literal("0123456789abcdef")],
    );
    let version = lopdf::EncryptionVersion::V2 {
        document: doc,
        owner_password: "owner",
        user_password,
        key_length: 128,
        permissions: lopdf::Permissions::default(),
    };
    let state = lopdf::EncryptionState::try_from(version).unwrap();
    doc.encrypt(&state).unwrap();
}

fn read(bytes: &[u8]) -> Result<crate::read::Parsed, ReadError> {
    PdfReader::default().read(bytes)
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
    encrypt(&mut doc, "user");
    let err = read(&bytes(doc)).unwrap_err().to_string();
    assert!(err.contains("encrypted") && err.contains("qpdf --decrypt"), "{err}");
}

#[test]
fn pages_without_text_are_a_no_text_layer_error() {
    let content = "q 200 0 0 200 100 400 cm 0 0 1 1 re f Q".to_string();
    let err = read(&bytes(pdf(&[content.clone(), content]))).unwrap_err();
    assert!(matches!(err, ReadError::NoTextLayer { pages: 2, .. }), "{err:?}");
    // The default reader does not OCR: the message says so, not to install Tesseract.
    let message = err.to_string();
    assert!(message.contains("OCR is off ([ingest] ocr = \"off\")"), "{message}");
    assert!(!message.contains("install Tesseract"), "{message}");
}

#[test]
fn corrupt_and_foreign_files_are_refused() {
    let good = bytes(pdf(&[lines(72.0, 700.0, &["Hello."])]));
    let err = read(&good[..good.len() / 3]).unwrap_err().to_string();
    assert!(err.contains("could not be parsed") || err.contains("no pages"), "{err}");
    let err = read(b"PK\x03\x04 not a pdf").unwrap_err().to_string();
    assert!(err.contains("not a PDF"), "{err}");
}

/// An outline of `(title, page index, children)` items; `cycle` makes the last top-level
/// item's `/Next` point back at itself.
fn outline(doc: &mut Document, pages: &[lopdf::ObjectId], items: &[(&str, usize)], cycle: bool) -> Object {
    let root = doc.new_object_id();
    let ids: Vec<lopdf::ObjectId> = items.iter().map(|_| doc.new_object_id()).collect();
    for (i, (title, page)) in items.iter().enumerate() {
        let mut item = dictionary! {
            "Title" => Object::string_literal(*title), "Parent" => root,
            "Dest" => vec![Object::Reference(pages[*page]), "Fit".into()],
        };
        match ids.get(i + 1) {
            Some(next) => item.set("Next", *next),
            None if cycle => item.set("Next", ids[i]),
            None => {}
        }
        doc.objects.insert(ids[i], Object::Dictionary(item));
    }
    doc.objects.insert(
        root,
        Object::Dictionary(
            dictionary! { "Type" => "Outlines", "First" => ids[0], "Last" => *ids.last().unwrap() },
        ),
    );
    Object::Reference(root)
}

#[test]
fn regression_gutter_search_terminates_with_glyphs_far_off_the_page() {
    let mut content = String::new();
    for i in 0..14 {
        content.push_str(&format!("BT /F1 10 Tf 72 {} Td (line {i} of the page) Tj ET\n", 700 - 12 * i));
    }
    content.push_str("BT /F1 10 Tf 1 0 0 1 1000000000 500 Tm (far) Tj ET\n");
    let parsed = read(&bytes(pdf(&[content]))).unwrap();
    assert!(parsed.text.contains("line 13 of the page"));
}

#[test]
fn regression_hyphen_join_before_a_multibyte_letter_keeps_spans_on_boundaries() {
    let content = lines(72.0, 700.0, &["an exam-", "\\351lan vital"]);
    let parsed = read(&bytes(pdf(&[content]))).unwrap();
    assert_eq!(parsed.text, "an examélan vital\n");
}

#[test]
fn regression_a_form_that_draws_itself_is_drawn_once() {
    let mut doc = pdf(&[String::new()]);
    let form_id = doc.new_object_id();
    let page = doc.get_pages()[&1];
    let page_resources = doc.get_dictionary(page).unwrap().get(b"Resources").unwrap().as_reference().unwrap();
    let fonts = doc.get_dictionary(page_resources).unwrap().get(b"Font").unwrap().clone();
    let form = Stream::new(
        dictionary! { "Type" => "XObject", "Subtype" => "Form", "Resources" => dictionary! { "Font" => fonts, "XObject" => dictionary! { "X0" => form_id } } },
        format!("BT /F1 10 Tf 72 700 Td (drawn) Tj ET {}", "/X0 Do ".repeat(10)).into_bytes(),
    );
    doc.objects.insert(form_id, Object::Stream(form));
    let content = doc.add_object(Stream::new(dictionary! {}, b"/X0 Do".to_vec()));
    doc.get_dictionary_mut(page).unwrap().set("Contents", content);
    doc.get_dictionary_mut(page_resources).unwrap().set("XObject", dictionary! { "X0" => form_id });
    let parsed = read(&bytes(doc)).unwrap();
    assert_eq!(parsed.text, "drawn\n");
}

/// A 17 KB PDF whose one page is a line of text and then `q Q` four million times took
/// 4.7 GB: the whole stream was parsed into operators before the operator cap was checked,
/// and the page's text was then dropped. Operators are now counted as they are parsed.
#[test]
fn regression_a_content_stream_of_millions_of_operators_is_parsed_only_to_the_cap() {
    let content = lines(72.0, 700.0, &["Text before the bomb."]) + &"q Q\n".repeat(50_000);
    let doc = pdf(&[content]);
    let page = doc.get_pages()[&1];
    let stream = doc.get_page_content(page);
    let mut interpreter = super::content::Interpreter::new(&doc, 1_000);
    let glyphs = interpreter.page(page, &stream, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    let text: String = glyphs.iter().map(|g| g.text.as_str()).collect();
    assert_eq!(text, "Text before the bomb.", "the text before the cap is kept");
    assert_eq!(interpreter.operations(), 1_001, "parsing stops at the first operator past the cap");
    assert_eq!(
        interpreter.cut.as_deref(),
        Some("it has more than 1000 operators ([ingest] max_page_operators)")
    );
    // The next page starts with a full budget.
    let glyphs =
        interpreter.page(page, b"BT /F1 10 Tf 72 700 Td (Next) Tj ET", [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    assert_eq!(glyphs.len(), 4);
    assert!(interpreter.cut.is_none());
}

/// A content stream that fails to parse half way kept none of its text; it keeps what came
/// before the failure, and says where it stopped.
#[test]
fn regression_a_stream_broken_half_way_keeps_the_text_before_the_break() {
    // An inline image of a colour space lopdf does not know, and no `EI` after its data.
    let content = lines(72.0, 700.0, &["Kept line."]) + "BI /W 4 /H 4 /CS /Foo /BPC 8 ID xxxx";
    let parsed = read(&bytes(pdf(&[content]))).unwrap();
    assert_eq!(parsed.text, "Kept line.\n");
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.starts_with("page 1: a content stream could not be parsed past operator")),
        "{:?}",
        parsed.warnings
    );
}

#[test]
fn regression_a_page_labels_tree_that_contains_itself_is_walked_once() {
    let doc = build(&[lines(72.0, 700.0, &["one"])], dictionary! {}, |doc, _| {
        let node = doc.new_object_id();
        let kids: Vec<Object> = (0..10).map(|_| Object::Reference(node)).collect();
        doc.objects.insert(node, Object::Dictionary(dictionary! { "Kids" => kids }));
        vec![("PageLabels", Object::Reference(node))]
    });
    assert!(read(&bytes(doc)).is_ok());
}

#[test]
fn regression_an_outline_whose_next_leads_back_is_read_once() {
    let pages = vec![lines(72.0, 700.0, &["Alpha", "text"]), lines(72.0, 700.0, &["Beta", "more"])];
    let doc = build(&pages, dictionary! {}, |doc, ids| {
        vec![("Outlines", outline(doc, ids, &[("Alpha", 0), ("Beta", 1)], true))]
    });
    let parsed = read(&bytes(doc)).unwrap();
    let titles: Vec<&str> = parsed.headings.iter().map(|h| h.title.as_str()).collect();
    assert_eq!(titles, ["Alpha", "Beta"]);
}

#[test]
fn regression_bookmarks_out_of_page_order_stay_on_their_pages() {
    let pages: Vec<String> =
        ["Alpha", "Beta", "Gamma"].iter().map(|t| lines(72.0, 700.0, &[t, "body"])).collect();
    let doc = build(&pages, dictionary! {}, |doc, ids| {
        vec![("Outlines", outline(doc, ids, &[("Gamma", 2), ("Alpha", 0), ("Beta", 1)], false))]
    });
    let parsed = read(&bytes(doc)).unwrap();
    let page_of = |offset: usize| parsed.page_breaks.partition_point(|b| *b <= offset);
    for h in &parsed.headings {
        assert!(!h.span.is_empty(), "{} placed on its line", h.title);
        let want = ["Alpha", "Beta", "Gamma"].iter().position(|t| *t == h.title).unwrap();
        assert_eq!(page_of(h.span.start), want, "{}", h.title);
    }
}

#[test]
fn regression_cid_width_ranges_repeated_cost_bounded_work() {
    let mut doc = pdf(&[lines(72.0, 700.0, &["widths"])]);
    let mut w = Vec::new();
    for _ in 0..5_000 {
        w.extend([Object::Integer(0), Object::Integer(65_534), Object::Integer(500)]);
    }
    w.extend([Object::Integer(4_294_967_295), Object::Array(vec![Object::Integer(1), Object::Integer(2)])]);
    let cid = doc.add_object(
        dictionary! { "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "X", "W" => w },
    );
    let font = doc.add_object(dictionary! { "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "X", "Encoding" => "Identity-H", "DescendantFonts" => vec![Object::Reference(cid)] });
    let page = doc.get_pages()[&1];
    let res = doc.get_dictionary(page).unwrap().get(b"Resources").unwrap().as_reference().unwrap();
    doc.get_dictionary_mut(res).unwrap().get_mut(b"Font").unwrap().as_dict_mut().unwrap().set("F3", font);
    let content = doc.add_object(Stream::new(
        dictionary! {},
        b"BT /F3 10 Tf 72 600 Td <00410042> Tj ET BT /F1 10 Tf 72 700 Td (widths) Tj ET".to_vec(),
    ));
    doc.get_dictionary_mut(page).unwrap().set("Contents", content);
    let started = std::time::Instant::now();
    assert!(read(&bytes(doc)).is_ok());
    // Unbounded, this is 327 million inserts (minutes); bounded, a blink.
    assert!(started.elapsed().as_secs() < 20);
}

#[test]
fn rotated_pages_are_read_upright() {
    // A landscape page: /Rotate 90, its text drawn turned a quarter counter-clockwise in user
    // space so that it reads left to right once the page is turned.
    // Turned clockwise, a larger user-space x is lower on the page.
    let content = "BT /F1 10 Tf 0 1 -1 0 312 72 Tm (Landscape line two) Tj ET BT /F1 10 Tf 0 1 -1 0 300 72 Tm (Landscape line one) Tj ET".to_string();
    let doc = build(&[content], dictionary! { "Rotate" => 90 }, |_, _| Vec::new());
    let parsed = read(&bytes(doc)).unwrap();
    assert_eq!(parsed.text, "Landscape line one\nLandscape line two\n");
}

#[test]
fn furniture_is_found_on_pages_whose_box_does_not_start_at_zero() {
    let shift = |s: String| format!("1 0 0 1 100 200 cm {s}");
    let words = ["Alpha", "Beta", "Gamma", "Delta"];
    let pages: Vec<String> = (0..4)
        .map(|n| {
            shift(
                lines(72.0, 580.0, &["Running Title"])
                    + &lines(72.0, 520.0, &[&format!("{} body text.", words[n])])
                    + &lines(200.0, 20.0, &[&format!("{}", n + 1)]),
            )
        })
        .collect();
    let doc = build(
        &pages,
        dictionary! { "MediaBox" => vec![100.into(), 200.into(), 500.into(), 820.into()] },
        |_, _| Vec::new(),
    );
    let parsed = read(&bytes(doc)).unwrap();
    assert!(!parsed.text.contains("Running Title"), "{}", parsed.text);
    assert!(words.iter().all(|w| parsed.text.contains(&format!("{w} body text."))), "{}", parsed.text);
    assert_eq!(
        parsed.page_labels.get(1).cloned().flatten().as_deref(),
        Some("2"),
        "{:?} {:?}",
        parsed.page_labels,
        parsed.text
    );
}

#[test]
fn a_heading_at_the_foot_of_a_page_is_a_heading_block() {
    let p1 = lines(72.0, 700.0, &["Some text that ends a page."])
        + "BT /F2 12 Tf 72 100 Td (3.1 Big Heading Here) Tj ET";
    let p2 = lines(72.0, 700.0, &["Its body on the next page."]);
    let p0 = "BT /F2 12 Tf 72 700 Td (1 First) Tj ET BT /F2 12 Tf 72 600 Td (2 Second) Tj ET BT /F2 12 Tf 72 500 Td (3 Third) Tj ET BT /F2 12 Tf 72 400 Td (4 Fourth) Tj ET BT /F2 12 Tf 72 300 Td (5 Fifth) Tj ET".to_string();
    let parsed = read(&bytes(pdf(&[p0, p1, p2]))).unwrap();
    let h = parsed.headings.iter().find(|h| h.title == "3.1 Big Heading Here").expect("recovered");
    let block = parsed.blocks.iter().find(|b| b.span.start == h.span.start).unwrap();
    assert_eq!(block.kind, strata_core::BlockKind::Heading, "{:?}", parsed.blocks);
}

#[test]
fn page_labels_give_printed_numbers() {
    let pages: Vec<String> = (0..4).map(|i| lines(72.0, 700.0, &[&format!("Page body {i}.")])).collect();
    let doc = build(&pages, dictionary! {}, |_, _| {
        let labels = dictionary! { "Nums" => vec![
            0.into(), Object::Dictionary(dictionary! { "S" => "r" }),
            2.into(), Object::Dictionary(dictionary! { "S" => "D", "P" => Object::string_literal("A-"), "St" => 7 }),
        ] };
        vec![("PageLabels", Object::Dictionary(labels))]
    });
    let parsed = read(&bytes(doc)).unwrap();
    let labels: Vec<Option<&str>> = parsed.page_labels.iter().map(|l| l.as_deref()).collect();
    assert_eq!(labels, [Some("i"), Some("ii"), Some("A-7"), Some("A-8")]);
}

#[test]
fn files_encrypted_with_an_empty_user_password_are_read() {
    let mut doc = pdf(&[lines(72.0, 700.0, &["Owner-locked but readable."])]);
    encrypt(&mut doc, "");
    let parsed = read(&bytes(doc)).unwrap();
    assert_eq!(parsed.text, "Owner-locked but readable.\n");
}

/// Whether OCR can run here; under `STRATA_REQUIRE_OCR=1` its absence fails the test.
fn ocr_ready() -> bool {
    match super::ocr::unavailable("eng") {
        None => true,
        Some(why) if std::env::var("STRATA_REQUIRE_OCR").is_ok_and(|v| v == "1") => panic!("{why}"),
        Some(why) => {
            eprintln!("skipping: {why}");
            false
        }
    }
}

#[test]
fn force_ocr_reads_digital_pages_from_their_image() {
    if !ocr_ready() {
        return;
    }
    let page = lines(72.0, 700.0, &["Scanned contracts are common.", "Signed exhibits too."]);
    let options = super::ocr::OcrOptions { mode: super::ocr::OcrMode::Force, ..Default::default() };
    let parsed = PdfReader::with_ocr(options, None).read(&bytes(pdf(&[page]))).unwrap();
    assert_eq!(
        parsed.text.split_whitespace().collect::<Vec<_>>().join(" "),
        "Scanned contracts are common. Signed exhibits too."
    );
    assert!(parsed.ocr.len() == 1 && parsed.ocr[0].is_some_and(|c| c > 80.0), "{:?}", parsed.ocr);
}

#[test]
fn a_page_ocr_cannot_render_is_an_error_for_that_page_only() {
    if !ocr_ready() {
        return;
    }
    let file = bytes(pdf(&[lines(72.0, 700.0, &["One page."])]));
    let request = |number| super::ocr::Request { number, page: (number, 0), width: 612.0, height: 792.0 };
    let requests = [request(1), request(7)];
    let options = super::ocr::OcrOptions { mode: super::ocr::OcrMode::Auto, ..Default::default() };
    let results = super::ocr::recognize(&file, &requests, &options).unwrap();
    assert!(results[0].as_ref().is_ok_and(|p| !p.glyphs.is_empty()), "page 1 is read");
    let err = results[1].as_ref().unwrap_err();
    assert!(err.contains("pdftoppm"), "{err}");
}

/// Issue 53: an image-only page that pdftoppm could not render was refused with "no text
/// layer … install Tesseract" although Tesseract was installed, and a PDF read with OCR off
/// said the same. The message says what OCR did.
#[test]
fn regression_no_text_layer_says_what_ocr_did_not_install_tesseract() {
    use super::ocr::OcrMode;
    let failed = Some("OCR could not read page 1: pdftoppm failed (exit status: 1)".to_string());
    let why = super::no_text_why(OcrMode::Auto, failed);
    assert!(why.starts_with("OCR could not read page 1: pdftoppm failed"), "{why}");
    let off = super::no_text_why(OcrMode::Off, None);
    assert!(off.starts_with("OCR is off ([ingest] ocr = \"off\")"), "{off}");
    for message in [why, off] {
        assert!(!message.contains("install Tesseract"), "{message}");
    }
    let missing = Some("OCR cannot run: Tesseract is not installed; install it".to_string());
    assert!(super::no_text_why(OcrMode::Auto, missing).contains("Tesseract is not installed"));
}

/// Issue 53: an image-only page with MediaBox [0 0 7200 10800] took 4 GB to render for OCR
/// (7.8 GB for two). A page's pixels are bounded before it is rendered: a large page is
/// rendered at the resolution that fits, a hostile one refused.
#[test]
fn regression_a_page_is_sized_for_ocr_before_it_is_rendered() {
    let options = super::ocr::OcrOptions { mode: super::ocr::OcrMode::Auto, ..Default::default() };
    let request = |width, height| super::ocr::Request { number: 1, page: (1, 0), width, height };
    assert_eq!(options.dpi_for(&request(612.0, 792.0)), Ok(300), "Letter at 300 dpi: 8.4 million pixels");
    // A0 (841 × 1189 mm) would be 139 million pixels at 300 dpi: it fits at 160.
    let dpi = options.dpi_for(&request(2384.0, 3370.0)).unwrap();
    assert_eq!(dpi, 160);
    let pixels = |dpi: u32| (2384.0 / 72.0 * f64::from(dpi)) * (3370.0 / 72.0 * f64::from(dpi));
    assert!(pixels(dpi) <= 40e6 && pixels(dpi + 1) > 40e6);
    let err = options.dpi_for(&request(7200.0, 10800.0)).unwrap_err();
    assert!(
        err.contains("7200 × 10800 points") && err.contains("[ingest] ocr_max_page_pixels (40000000)"),
        "{err}"
    );
}

/// Issue 53: a 730-byte PDF whose image declares 100000 × 100000 RGB pixels took 88 s a page
/// to render. pdftoppm is killed at `[ingest] ocr_render_seconds`, and the page alone fails.
#[test]
fn regression_rendering_stops_at_the_deadline() {
    if !ocr_ready() {
        return;
    }
    let mut doc = pdf(&["q 612 0 0 792 0 0 cm /Im0 Do Q".to_string()]);
    let image = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => 100_000, "Height" => 100_000,
            "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8,
        },
        vec![0; 1000],
    ));
    let page = doc.get_pages()[&1];
    let resources = doc.get_dictionary(page).unwrap().get(b"Resources").unwrap().as_reference().unwrap();
    doc.get_dictionary_mut(resources).unwrap().set("XObject", dictionary! { "Im0" => image });
    let options =
        super::ocr::OcrOptions { mode: super::ocr::OcrMode::Auto, render_seconds: 1, ..Default::default() };
    let started = std::time::Instant::now();
    let err = PdfReader::with_ocr(options, None).read(&bytes(doc)).unwrap_err().to_string();
    assert!(err.contains("pdftoppm took more than 1 s to render it ([ingest] ocr_render_seconds)"), "{err}");
    assert!(started.elapsed().as_secs() < 30, "killed at the deadline, not after 88 s");
}
