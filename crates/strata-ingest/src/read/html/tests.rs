//! Reader tests: chrome, whitespace, tables, `pre`, lists, headings, hostile input, and the
//! corpus pages in `shared/data/corpus/`.

use std::time::Instant;

use strata_core::BlockKind;

use super::*;

fn read(html: &str) -> Parsed {
    HtmlReader.read(html.as_bytes()).expect("reads")
}

/// The reader contract ([`Parsed::check`]) and what HTML adds to it: heading titles equal to
/// their spans and on one line, blocks not empty, no blank runs, no pages.
fn check(parsed: &Parsed) {
    parsed.check().unwrap();
    let text = &parsed.text;
    for h in &parsed.headings {
        assert_eq!(h.span.slice(text), h.title);
        assert!(h.level >= 1, "level {}", h.level);
        assert!(!h.title.contains('\n'));
    }
    for b in &parsed.blocks {
        assert!(b.span.start < b.span.end, "{b:?}");
    }
    assert!(!text.contains("\n\n\n"), "a run of blank lines");
    assert!(parsed.page_breaks.is_empty());
}

fn no_edge_spaces(text: &str) {
    for line in text.lines() {
        assert_eq!(line, line.trim(), "line with edge spaces: {line:?}");
    }
}

#[test]
fn chrome_and_comments_are_dropped() {
    let parsed = read(
        "<!DOCTYPE html><html><head><title> The  Title </title><style>p{color:red}</style>\
         <script>var x = '<p>no</p>';</script></head><body><header>Site banner</header>\
         <nav><a href='/'>Home</a></nav><!-- a comment --><h1>Main</h1><p>Body text.</p>\
         <noscript>Enable JS</noscript><template><p>tpl</p></template>\
         <svg><text>chart</text></svg><div hidden>secret</div>\
         <footer>Copyright</footer></body></html>",
    );
    check(&parsed);
    assert_eq!(parsed.text, "Main\n\nBody text.");
    // A leading h1 names the document before <title>.
    assert_eq!(parsed.title.as_deref(), Some("Main"));
    let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BlockKind::Heading, BlockKind::Paragraph]);
}

#[test]
fn article_header_keeps_its_heading() {
    let parsed = read("<article><header><h1>Post</h1></header><p>x</p></article>");
    assert_eq!(parsed.text, "Post\n\nx");
    assert_eq!(parsed.headings.len(), 1);
}

#[test]
fn title_falls_back_to_first_h1() {
    let parsed = read("<h2>Sub</h2><h1>First <em>one</em></h1><h1>Second</h1>");
    assert_eq!(parsed.title.as_deref(), Some("First one"));
}

#[test]
fn entities_and_whitespace() {
    let parsed = read("<p>  caf&eacute; &amp;&nbsp;&lt;tea&gt;\n\t &#x2014; done  </p><p>a<b>b</b> c</p>");
    check(&parsed);
    assert_eq!(parsed.text, "café & <tea> — done\n\nab c");
}

#[test]
fn tables_are_rows_of_cells() {
    let parsed = read(
        "<p>Before</p><table><tr><th>Code</th><th>Meaning</th></tr>\
         <tr><td> 200 </td><td><p>OK</p><p>fine</p></td></tr>\
         <tr><td></td><td></td></tr><tr><td></td><td>only second</td></tr></table><p>After</p>",
    );
    check(&parsed);
    assert_eq!(parsed.text, "Before\n\nCode | Meaning\n200 | OK fine\n| only second\n\nAfter");
    let table = parsed.blocks.iter().find(|b| b.kind == BlockKind::Table).unwrap();
    assert_eq!(table.span.slice(&parsed.text), "Code | Meaning\n200 | OK fine\n| only second");
    assert_eq!(parsed.blocks.len(), 3);
}

#[test]
fn pre_is_kept_verbatim() {
    let parsed =
        read("<p>Run:</p><pre>\nfn main() {\n    println!(\"hi\");   \n\n\n\n}\n\n</pre><p>Done</p>");
    check(&parsed);
    assert_eq!(parsed.text, "Run:\n\nfn main() {\n    println!(\"hi\");\n\n}\n\nDone");
    let code = parsed.blocks.iter().find(|b| b.kind == BlockKind::Code).unwrap();
    assert_eq!(code.span.slice(&parsed.text), "fn main() {\n    println!(\"hi\");\n\n}");
}

#[test]
fn lists_and_quotes() {
    let parsed = read(
        "<ul><li>one</li><li><p>two</p><ul><li>two.a</li></ul></li><li></li></ul>\
         <blockquote><p>q1</p><p>q2</p></blockquote><dl><dt>term</dt><dd>def</dd></dl>",
    );
    check(&parsed);
    no_edge_spaces(&parsed.text);
    assert_eq!(parsed.text, "- one\n- two\n- two.a\n\nq1\n\nq2\n\nterm\ndef");
    let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
    use BlockKind::*;
    assert_eq!(kinds, [ListItem, ListItem, Quote, Paragraph, Paragraph]);
    assert_eq!(parsed.blocks[1].span.slice(&parsed.text), "- two\n- two.a");
    // Definitions hold blocks of their own (texinfo option lists).
    let parsed = read("<dl><dt>-x</dt><dd><p>Trace.</p><pre>  set -x</pre></dd></dl>");
    check(&parsed);
    assert_eq!(parsed.text, "-x\n\nTrace.\n\n  set -x");
    let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [Paragraph, Paragraph, Code]);
}

#[test]
fn headings_skip_levels_and_slice_to_their_titles() {
    let parsed = read(
        "<h1>Top</h1><p>intro</p><h4 id='x'><a href='#section-5.6.1'>5.6.1.</a>&nbsp;<a>Sender \
         Requirements</a><a class='self' href='#x'>¶</a></h4><div><h2>  Two\n lines <br> here </h2></div>",
    );
    check(&parsed);
    let got: Vec<_> = parsed.headings.iter().map(|h| (h.level, h.title.as_str())).collect();
    assert_eq!(got, [(1, "Top"), (4, "5.6.1. Sender Requirements"), (2, "Two lines here")]);
    for h in &parsed.headings {
        assert!(parsed.text[h.span.start..h.span.end].contains(&h.title));
        assert!(h.number.is_none());
    }
}

#[test]
fn loose_text_becomes_paragraphs() {
    let parsed = read("<section><h2>What</h2>Loose text <b>here</b>.<p>p</p>tail</section>");
    check(&parsed);
    assert_eq!(parsed.text, "What\n\nLoose text here.\n\np\n\ntail");
    let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
    use BlockKind::*;
    assert_eq!(kinds, [Heading, Paragraph, Paragraph, Paragraph]);
    assert_eq!(parsed.blocks[1].span.slice(&parsed.text), "Loose text here.");
}

#[test]
fn line_breaks() {
    let parsed = read("<p>a<br>b<br><br>c<br><br><br><br>d</p>");
    check(&parsed);
    assert_eq!(parsed.text, "a\nb\n\nc\n\nd");
}

#[test]
fn nesting_to_the_limit_reads_and_deeper_is_refused() {
    // html and body are open too, and the parser holds head.
    let depth = super::MAX_DEPTH - 3;
    let html = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
    assert_eq!(read(&html).text, "deep");
    let html = format!("{}<h3>x</h3>{}", "<ul><li>".repeat(depth / 2), "</li></ul>".repeat(depth / 2));
    check(&read(&html));
    let html = format!("{}deep{}", "<div>".repeat(10_000), "</div>".repeat(10_000));
    let err = HtmlReader.read(html.as_bytes()).unwrap_err();
    assert!(matches!(err, ReadError::TooDeep { depth, limit } if depth > limit), "{err}");
}

#[test]
fn garbage_does_not_panic() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let pieces = [
        "<",
        ">",
        "</",
        "<p>",
        "<table>",
        "<td>",
        "<tr>",
        "<pre>",
        "</pre>",
        "<h2>",
        "</h3>",
        "<li>",
        "<br>",
        "&",
        "&amp",
        "&#xFFFFFF;",
        "<!--",
        "-->",
        "<script>",
        "<svg>",
        "\n",
        " ",
        "é",
        "ü",
        "<a href='#x'>",
        "¶",
        "</a>",
        "<header>",
        "<section>",
        "<template>",
        "text",
        "<![CDATA[",
    ];
    for _ in 0..300 {
        let mut doc = String::new();
        for _ in 0..60 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            doc.push_str(pieces[(seed % pieces.len() as u64) as usize]);
        }
        if let Ok(parsed) = HtmlReader.read(doc.as_bytes()) {
            check(&parsed);
        }
    }
    for bytes in [&b"\xff\xfe<\x80p>\xc3"[..], b"<", b"   ", b"<html></html>", b"<p>\x01\x02</p>"] {
        let _ = HtmlReader.read(bytes);
    }
    assert_eq!(HtmlReader.read(b"<html><script>x</script></html>").unwrap_err(), ReadError::Empty);
}

#[test]
fn core_numbers_handle_us_code_dashes() {
    use strata_text::number::from_heading;
    let chapter = from_heading("CHAPTER 10—PATENTABILITY OF INVENTIONS").unwrap();
    assert_eq!((chapter.number.as_str(), chapter.unit.as_deref()), ("10", Some("chapter")));
    let part = from_heading("PART II—PATENTABILITY OF INVENTIONS AND GRANT OF PATENTS").unwrap();
    assert_eq!((part.number.as_str(), part.unit.as_deref()), ("II", Some("part")));
    let title = from_heading("TITLE 35—PATENTS").unwrap();
    assert_eq!((title.number.as_str(), title.unit.as_deref()), ("35", Some("title")));
    assert_eq!(from_heading("§102. Conditions for patentability; novelty").unwrap().number, "102");
    assert_eq!(from_heading("5.6.1. Sender Requirements").unwrap().number, "5.6.1");
}

fn corpus(name: &str) -> Option<Vec<u8>> {
    let path = strata_core::testdata::shared(&format!("corpus/html/{name}"))?;
    Some(std::fs::read(path).unwrap())
}

fn read_corpus(name: &str) -> Option<Parsed> {
    let bytes = corpus(name)?;
    let started = Instant::now();
    let parsed = HtmlReader.read(&bytes).expect("reads");
    let elapsed = started.elapsed();
    eprintln!(
        "{name}: {} bytes in {:.1} ms, {} headings, {} blocks, text {} bytes, title {:?}",
        bytes.len(),
        elapsed.as_secs_f64() * 1000.0,
        parsed.headings.len(),
        parsed.blocks.len(),
        parsed.text.len(),
        parsed.title,
    );
    check(&parsed);
    no_edge_spaces_outside_code(&parsed);
    Some(parsed)
}

/// No line ends with a space; only `pre` text starts lines with one, and a `pre` lies in a
/// code block or in the list item, quote or table that holds it.
fn no_edge_spaces_outside_code(parsed: &Parsed) {
    use BlockKind::*;
    let mut at = 0;
    for line in parsed.text.split('\n') {
        assert_eq!(line, line.trim_end(), "trailing space at {at}");
        let may_hold_pre = parsed.blocks.iter().any(|b| {
            matches!(b.kind, Code | ListItem | Quote | Table) && b.span.start <= at && at < b.span.end
        });
        if !may_hold_pre {
            assert_eq!(line, line.trim_start(), "leading space at {at}");
        }
        at += line.len() + 1;
    }
}

#[test]
fn corpus_rfc9110() {
    let Some(parsed) = read_corpus("rfc9110-http-semantics.html") else {
        return;
    };
    assert!(parsed.headings.len() >= 290, "{} headings", parsed.headings.len());
    // The file's 5.6.1 is "Lists (#rule ABNF Extension)"; Sender Requirements is 5.6.1.1.
    assert!(parsed.headings.iter().any(|h| h.title == "5.6.1. Lists (#rule ABNF Extension)"));
    assert!(parsed.headings.iter().any(|h| h.title == "5.6.1.1. Sender Requirements"));
    assert!(!parsed.headings.iter().any(|h| h.title.contains('¶') || h.title == "Table of Contents"));
    assert!(!parsed.text.contains('¶'));
    assert_eq!(parsed.title.as_deref(), Some("RFC 9110 - HTTP Semantics"));
    // No units: refine_unit_levels left the markup levels alone.
    let h = parsed.headings.iter().find(|h| h.title.starts_with("5.6.1.1.")).unwrap();
    assert_eq!(h.level, 5);
}

#[test]
fn corpus_usc_title35() {
    let Some(parsed) = read_corpus("usc-title35-patents.htm") else {
        return;
    };
    let find = |prefix: &str| {
        parsed
            .headings
            .iter()
            .find(|h| h.title.starts_with(prefix))
            .unwrap_or_else(|| panic!("no heading {prefix:?}"))
    };
    let (title, part, chapter, section) =
        (find("TITLE 35"), find("PART II—"), find("CHAPTER 10—"), find("§102."));
    assert!(title.level < part.level, "{title:?} {part:?}");
    assert!(part.level < chapter.level, "{part:?} {chapter:?}");
    assert!(chapter.level < section.level, "{chapter:?} {section:?}");
    let i = parsed.headings.iter().position(|h| h.title.starts_with("§102.")).unwrap();
    let note = &parsed.headings[i + 1];
    assert!(note.level > section.level, "{note:?}");
}

#[test]
fn corpus_usc_title09() {
    let Some(parsed) = read_corpus("usc-title09-arbitration.htm") else {
        return;
    };
    assert!(parsed.headings.iter().any(|h| h.title.starts_with("§1.")));
}

#[test]
fn corpus_openapi() {
    let Some(parsed) = read_corpus("openapi-spec-3.2.0.html") else {
        return;
    };
    assert!(parsed.headings.iter().any(|h| h.level == 6));
    // No legal units: markup levels stand.
    let h = parsed.headings.iter().find(|h| h.title == "4.1.2.2.1 Establishing the Base URI").unwrap();
    assert_eq!(h.level, 6);
    assert!(parsed.blocks.iter().any(|b| b.kind == BlockKind::Table));
    assert!(parsed.blocks.iter().any(|b| b.kind == BlockKind::Code));
}

#[test]
fn corpus_bash_manual() {
    let Some(parsed) = read_corpus("bash-reference-manual.html") else {
        return;
    };
    let levels: Vec<_> = parsed.headings.iter().take(4).map(|h| (h.level, h.title.as_str())).collect();
    assert_eq!(
        levels,
        [(1, "Bash Features"), (2, "1 Introduction"), (3, "1.1 What is Bash?"), (3, "1.2 What is a shell?")]
    );
    assert!(!parsed.text.contains('¶'));
    assert!(!parsed.text.contains("Next: Introduction"));
}
