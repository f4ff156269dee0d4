//! What the OCR tests measure: edit distance, page texts, headings, table rows, pages cited.

use strata_core::BlockKind;
use strata_ingest::pipeline::Ingested;
use strata_ingest::read::Parsed;

/// Whitespace runs as one space, ends trimmed, ligatures spelt out.
pub fn ws(s: &str) -> String {
    let s = s
        .replace('\u{FB01}', "fi")
        .replace('\u{FB02}', "fl")
        .replace('\u{FB00}', "ff")
        .replace('\u{FB03}', "ffi");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Letters and digits, lower-cased.
pub fn norm(s: &str) -> String {
    ws(s).chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Levenshtein distance in characters.
pub fn cer(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + (ca != cb) as usize).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

/// Each page's text, the blocks of `skip` kinds left out.
pub fn page_texts(p: &Parsed, skip: &[BlockKind]) -> Vec<String> {
    let mut text = p.text.clone().into_bytes();
    for b in p.blocks.iter().filter(|b| skip.contains(&b.kind)) {
        text[b.span.start..b.span.end].iter_mut().for_each(|c| *c = b' ');
    }
    let text = String::from_utf8(text).unwrap();
    let mut out = Vec::new();
    let mut at = 0;
    for &b in p.page_breaks.iter().chain(std::iter::once(&p.text.len())) {
        out.push(text[at..b].to_string());
        at = b;
    }
    out
}

/// The page (1-based) of a byte offset.
fn page_of(p: &Parsed, at: usize) -> u32 {
    p.page_breaks.iter().take_while(|&&b| b <= at).count() as u32 + 1
}

/// Normalized titles of the headings that start on `pages`.
pub fn headings_on(p: &Parsed, pages: &[u32]) -> Vec<String> {
    p.headings.iter().filter(|h| pages.contains(&page_of(p, h.span.start))).map(|h| norm(&h.title)).collect()
}

/// Titles equal over their first 40 letters and digits, but for one OCR error in ten
/// (`ldentified` for `Identified`).
pub fn same_title(a: &str, b: &str) -> bool {
    let n = a.chars().count().min(b.chars().count()).min(40);
    let (a, b): (String, String) = (a.chars().take(n).collect(), b.chars().take(n).collect());
    n >= 3 && cer(&a, &b) * 10 <= n
}

/// The rows of the tables on `pages`, whitespace-normalized.
pub fn table_rows(p: &Parsed, pages: &[u32]) -> Vec<String> {
    p.blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Table && pages.contains(&page_of(p, b.span.start)))
        .flat_map(|b| {
            p.text[b.span.start..b.span.end].lines().map(ws).filter(|l| !l.is_empty()).collect::<Vec<_>>()
        })
        .collect()
}

/// Chunks whose words are mostly on another page than the ones they cite: the chunk's
/// ordinal, the pages cited (in the scan) and the page of the original its words best match.
pub fn misplaced_chunks(
    ingested: &Ingested,
    originals: &[String],
    pages: &[u32],
) -> Vec<(u32, (u32, u32), u32)> {
    let words = |s: &str| -> std::collections::HashSet<String> {
        s.split_whitespace().map(norm).filter(|w| w.chars().count() >= 5).collect()
    };
    let page_words: Vec<_> = pages.iter().map(|&p| words(&originals[p as usize - 1])).collect();
    let mut out = Vec::new();
    for c in &ingested.chunks {
        let own = words(&ingested.document.text[c.span.start..c.span.end]);
        if own.len() < 8 {
            continue;
        }
        let best = (0..pages.len()).max_by_key(|&i| own.intersection(&page_words[i]).count()).unwrap();
        let scan_page = best as u32 + 1;
        if scan_page < c.pages.first || scan_page > c.pages.last {
            out.push((c.ordinal, (c.pages.first, c.pages.last), scan_page));
        }
    }
    out
}
