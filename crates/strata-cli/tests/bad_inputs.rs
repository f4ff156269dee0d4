//! Bad inputs get a clear per-file error while the other files ingest.

mod common;

use std::fs;

use common::{json, strata};

#[test]
fn bad_files_are_reported_and_skipped_while_good_ones_ingest() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir(&docs).unwrap();
    fs::write(docs.join("good.md"), "# Good\n\nThe term \"widget\" means a small device.\n").unwrap();
    fs::write(docs.join("empty.txt"), "").unwrap();
    fs::write(docs.join("binary.txt"), b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00").unwrap();
    fs::write(docs.join("latin1.txt"), b"Caf\xe9 cr\xe8me.\n\nSECTION 1.\n\nText of section one.\n").unwrap();
    // 200 MB, sparse: refused by size before a byte is read, so memory stays bounded.
    let huge = fs::File::create(docs.join("huge.txt")).unwrap();
    huge.set_len(200 * 1024 * 1024).unwrap();
    drop(huge);
    // Nested headings: 400 nested sections in HTML (under the reader's depth limit of 512),
    // 10,000 (refused: html5ever's time grows with the square of the depth), and 10,000
    // nested block quotes in Markdown.
    let sections = |n: usize| {
        let mut html = String::from("<html><body>");
        for i in 0..n {
            html.push_str(&format!("<section><h{}>Heading {i}</h{}><p>text {i}</p>", i % 6 + 1, i % 6 + 1));
        }
        html + &"</section>".repeat(n)
    };
    fs::write(docs.join("nested.html"), sections(400)).unwrap();
    fs::write(docs.join("too-deep.html"), sections(10_000)).unwrap();
    let mut md = String::new();
    for i in 0..10_000 {
        md.push_str(&format!("{} # H{i}\n", ">".repeat(i.min(2000))));
    }
    fs::write(docs.join("nested.md"), md).unwrap();

    let index = dir.path().join("index");
    let out = strata(&index, &["--json", "ingest", docs.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ingest must succeed when some files are good: {stderr}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcome = |name: &str| {
        summary["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("no outcome for {name}: {summary:#}"))
            .clone()
    };
    let message = |name: &str| outcome(name)["messages"][0].as_str().unwrap_or_default().to_string();
    assert_eq!(outcome("good.md")["status"], "ingested");
    assert_eq!(outcome("empty.txt")["status"], "failed");
    assert!(message("empty.txt").contains("empty"), "{}", message("empty.txt"));
    assert_eq!(outcome("binary.txt")["status"], "failed");
    assert!(message("binary.txt").contains("binary"), "{}", message("binary.txt"));
    // The message names its file once (it said "PATH: PATH: the file looks binary").
    let path = outcome("binary.txt")["path"].as_str().unwrap().to_string();
    assert_eq!(message("binary.txt").matches(&path).count(), 1, "{}", message("binary.txt"));
    assert_eq!(outcome("latin1.txt")["status"], "ingested");
    assert!(message("latin1.txt").contains("UTF-8"), "lossy decoding must warn: {}", message("latin1.txt"));
    assert_eq!(outcome("huge.txt")["status"], "failed");
    assert!(message("huge.txt").contains("max_file_bytes"), "{}", message("huge.txt"));
    assert_eq!(outcome("nested.html")["status"], "ingested", "{:#}", outcome("nested.html"));
    assert_eq!(outcome("too-deep.html")["status"], "failed");
    assert!(message("too-deep.html").contains("nests elements at least"), "{}", message("too-deep.html"));
    assert_eq!(outcome("nested.md")["status"], "ingested", "{:#}", outcome("nested.md"));

    let defs = json(&index, &["define", "widget"]);
    assert_eq!(defs.as_array().unwrap().len(), 1);
    // The deep outline prints without overflowing the stack, as text and as JSON.
    assert!(strata(&index, &["tree", "nested.html"]).status.success());
    assert!(strata(&index, &["--json", "tree", "nested.html"]).status.success());
}

#[test]
fn nothing_ingestible_exits_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.md");
    fs::write(&empty, "  \n").unwrap();
    let out = strata(&dir.path().join("index"), &["ingest", empty.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
    let out = strata(&dir.path().join("index"), &["ingest", "/no/such/path"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
}

#[test]
fn bad_config_value_is_named_with_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("strata.toml");
    fs::write(&config, "[chunk]\nmax_tokens = 0\n").unwrap();
    let out = strata(&dir.path().join("index"), &["--config", config.to_str().unwrap(), "docs"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("chunk.max_tokens") && err.contains("got 0"), "{err}");
}

/// A file of nothing but heading lines (issue 23: a million of them took 4.7 GB to ingest,
/// and every later search decoded the whole tree). Past `ingest.max_sections` the deepest
/// headings are read as text, with a warning, and every word stays searchable.
#[test]
fn regression_heading_bomb_keeps_max_sections_and_every_word() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("headings.md");
    let body: String = (0..3000).map(|i| format!("# Heading {i}\n\nline {i} of zanzibar{i}\n\n")).collect();
    fs::write(&file, body).unwrap();
    let index = dir.path().join("index");
    let limit = [("STRATA_INGEST_MAX_SECTIONS", "1000")];
    let out = common::strata_env(&index, &["--json", "ingest", file.to_str().unwrap()], &limit);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("3000 headings, more than ingest.max_sections (1000)"), "{report}");
    let docs = json(&index, &["docs"]);
    assert_eq!(docs[0]["nodes"], 1001, "the root and the first 1,000 headings: {docs}");
    // A word under a dropped heading, and the dropped heading itself, are still found.
    let hits = json(&index, &["search", "zanzibar2999", "--mode", "keyword"]);
    let text = hits["hits"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("zanzibar2999") && text.contains("Heading 2999"), "{hits}");
}

/// A PDF of six pages holding only a running header and a page number.
fn furniture_only_pdf() -> Vec<u8> {
    let pages: Vec<String> = (0..6)
        .map(|i| {
            format!(
                "BT /F1 10 Tf 72 760 Td (ACME CORPORATION ANNUAL REPORT) Tj ET BT /F1 10 Tf 300 40 Td ({}) Tj ET",
                i + 1
            )
        })
        .collect();
    pdf_of(&pages)
}

/// A PDF with one page per content stream, Helvetica as `/F1`.
fn pdf_of(contents: &[String]) -> Vec<u8> {
    let pages = contents.len();
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 3 + 2 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!("<< /Type /Pages /Kids [{}] /Count {pages} >>", kids.join(" ")),
    ];
    for (i, content) in contents.iter().enumerate() {
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {} 0 R /Resources << /Font << /F1 {} 0 R >> >> >>",
            4 + 2 * i,
            3 + 2 * pages
        ));
        objects.push(format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()));
    }
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string());
    let mut out = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (n, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.push_str(&format!("{} 0 obj\n{o}\nendobj\n", n + 1));
    }
    let xref = out.len();
    out.push_str(&format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1));
    for o in offsets {
        out.push_str(&format!("{o:010} 00000 n \n"));
    }
    out.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    out.into_bytes()
}

/// Issue 53: a 17 KB PDF of one page, a line of text and then `q Q` four million times,
/// took 4.7 GB and lost its text (the page was OCR'd as a scan, or with OCR off refused as
/// one). Operators are counted as they are parsed: past `[ingest] max_page_operators` the
/// page is cut, its text before kept and found, and the report names the page and the
/// setting.
#[test]
fn regression_a_page_of_millions_of_operators_is_cut_at_the_setting_and_keeps_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let page =
        format!("BT /F1 12 Tf 72 720 Td (Quuxbomb text before the saves.) Tj ET\n{}", "q Q\n".repeat(20_000));
    fs::write(dir.path().join("bomb.pdf"), pdf_of(&[page])).unwrap();
    let index = dir.path().join("index");
    let env = [("STRATA_INGEST_MAX_PAGE_OPERATORS", "1000"), ("STRATA_INGEST_OCR", "off")];
    let out = common::strata_env(&index, &["--json", "ingest", dir.path().to_str().unwrap()], &env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("page 1 is cut short: it has more than 1000 operators ([ingest] max_page_operators)"),
        "{report}"
    );
    let hits = json(&index, &["search", "quuxbomb", "--mode", "keyword"]);
    assert!(hits["hits"][0]["text"].as_str().unwrap_or_default().contains("Quuxbomb text"), "{hits}");
}

/// Issue 23: such a PDF was "ingested" with 0 chunks and no word of warning, and then found
/// by nothing. It is a per-file error saying why, and the other file still ingests.
#[test]
fn regression_pdf_of_only_page_furniture_fails_with_a_reason_not_zero_chunks() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("furniture.pdf"), furniture_only_pdf()).unwrap();
    fs::write(dir.path().join("good.md"), "# Good\n\nSome text.\n").unwrap();
    let index = dir.path().join("index");
    let out = strata(&index, &["--json", "ingest", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcomes = summary["outcomes"].as_array().unwrap();
    let pdf = outcomes.iter().find(|o| o["path"].as_str().unwrap().ends_with("furniture.pdf")).unwrap();
    assert_eq!(pdf["status"], "failed", "{summary:#}");
    assert!(pdf["messages"][0].as_str().unwrap().contains("page furniture"), "{pdf}");
    assert_eq!(summary["ingested"], 1, "{summary:#}");
}

/// Issue 51, finding 6: `a<0xFF>.md` (an invalid UTF-8 byte) and a file literally named
/// `a\xff.md` got one source path, so one document id: each ingest replaced the other and
/// reported "1 ingested". The escape character is escaped too now.
#[cfg(unix)]
#[test]
fn regression_a_non_utf8_name_and_its_escaped_spelling_are_two_documents() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(docs.join(std::ffi::OsStr::from_bytes(b"a\xff.md")), "# Byte\n\nThe raw byte.\n").unwrap();
    std::fs::write(docs.join("a\\xff.md"), "# Spelled\n\nThe spelled escape.\n").unwrap();
    let index = dir.path().join("index");
    let out = strata(&index, &["--json", "ingest", docs.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["ingested"], 2, "{summary}");
    let listed = json(&index, &["docs"]);
    let paths: Vec<&str> = listed.as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 2, "{listed}");
    assert!(paths.iter().any(|p| p.ends_with("/a\\xff.md")), "{paths:?}");
    assert!(paths.iter().any(|p| p.ends_with("/a\\\\xff.md")), "{paths:?}");
    // Unchanged on a second ingest: each file still finds its own document.
    let again = strata(&index, &["--json", "ingest", docs.to_str().unwrap()]);
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["unchanged"], 2, "{again}");
}

/// Issue 55: a title holding `ESC ] 0 ; … BEL ESC [ 2 J` retitled and cleared the terminal of
/// whoever ran `strata docs` or `strata search`; headings, hit text and file names too. Human
/// output shows every control character as a visible escape; JSON keeps the text as it is.
#[cfg(unix)]
#[test]
fn regression_docs_and_search_print_no_escape_byte_from_a_document() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    let file = docs.join("evil\u{1b}[2J.md");
    let text = "# Escrow \u{1b}]0;pwned\u{7}\u{1b}[2J Agreement\n\n\
                ## Payment \u{1b}[31mterms\u{9b}0m\n\n\
                The payload \u{1b}[2J clause pays the escrow agent on closing.\n";
    std::fs::write(&file, text).unwrap();
    let index = dir.path().join("index");
    let runs: [&[&str]; 5] = [
        &["ingest", docs.to_str().unwrap()],
        &["docs"],
        &["search", "escrow payload clause"],
        &["tree", "evil"],
        &["search", "--context", "escrow payload clause"],
    ];
    for args in runs {
        let out = strata(&index, args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let shown = String::from_utf8_lossy(bytes);
            assert!(!bytes.contains(&0x1b) && !shown.contains('\u{9b}'), "{args:?} {stream}: {shown:?}");
        }
        if args[0] == "docs" || args[0] == "search" {
            let shown = String::from_utf8_lossy(&out.stdout);
            assert!(shown.contains("Escrow \\x1b]0;pwned\\x07\\x1b[2J Agreement"), "{args:?}: {shown}");
        }
    }
    let listed = json(&index, &["docs"]);
    assert_eq!(listed[0]["title"], "Escrow \u{1b}]0;pwned\u{7}\u{1b}[2J Agreement", "{listed}");
}
