//! The PDF reader on the shared corpus (`../shared/data/corpus/pdf`). Each test skips, with a
//! message, when the corpus is not next to this checkout. `--nocapture` shows the counts.
//!
//! How headings are counted: a gold heading is *recovered* when a heading of the reader has
//! the same section number and the same level (the number's depth: `3.1.7` is level 3) and
//! its title, letters and digits only, lower-cased, starts with the gold title's. A heading
//! of the reader that matches no gold heading is a *body line taken as a heading*; its
//! share of all the reader's headings is the false-heading rate.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use strata_core::{Config, Document};
use strata_ingest::pipeline::Pipeline;
use strata_ingest::read::{reader_for, Parsed};

fn corpus() -> Option<PathBuf> {
    strata_core::testdata::shared("corpus")
}

fn read(path: &Path) -> Parsed {
    let bytes = std::fs::read(path).unwrap();
    reader_for(strata_core::Format::Pdf)
        .unwrap()
        .read(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn document(path: &Path) -> Document {
    Pipeline::new(&Config::default()).unwrap().document_file(path).unwrap()
}

/// Letters and digits, lower-cased, ligatures spelt out (poppler keeps `ﬁ` as one letter).
fn norm(s: &str) -> String {
    let spelt = s
        .replace('\u{FB00}', "ff")
        .replace('\u{FB01}', "fi")
        .replace('\u{FB02}', "fl")
        .replace('\u{FB03}', "ffi")
        .replace('\u{FB04}', "ffl");
    spelt.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// `(number, title)` of a numbered heading: `3.1.7. Applications …` → `("3.1.7", "Applications …")`.
fn split_number(title: &str) -> Option<(String, String)> {
    let t = title.trim();
    let end = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let number = t[..end].trim_end_matches('.');
    (!number.is_empty() && number.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .then(|| (number.to_string(), t[end..].trim().to_string()))
}

/// Recovered share of `gold` (number, title) and false-heading share of `found`.
fn score(gold: &[(String, String)], found: &[(u32, String)]) -> (f64, f64, Vec<String>) {
    let mut matched = vec![false; found.len()];
    let mut missing = Vec::new();
    let mut hits = 0;
    for (number, title) in gold {
        let depth = number.split('.').count() as u32;
        let hit = found.iter().enumerate().position(|(i, (level, t))| {
            !matched[i]
                && *level == depth
                && split_number(t)
                    .is_some_and(|(n, rest)| n == *number && norm(&rest).starts_with(&norm(title)))
        });
        match hit {
            Some(i) => {
                matched[i] = true;
                hits += 1;
            }
            None => missing.push(format!("{number} {title}")),
        }
    }
    let false_share = matched.iter().filter(|m| !**m).count() as f64 / found.len().max(1) as f64;
    (hits as f64 / gold.len() as f64, false_share, missing)
}

/// NIST SP 800-207: the tree is the outline (69 entries, depth 3), every bookmark is found on
/// its page, and every node's pages run from its bookmark's page to where the next section
/// at its level or above begins.
#[test]
fn nist_tree_matches_the_outline_with_right_pages() {
    let Some(corpus) = corpus() else { return };
    let path = corpus.join("pdf/nist-sp-800-207-zero-trust-architecture.pdf");
    let outline = lopdf::Document::load(&path).unwrap().get_toc().unwrap().toc;
    assert_eq!(outline.len(), 69);
    assert_eq!(outline.iter().map(|t| t.level).max(), Some(3));
    let doc = document(&path);
    let nodes: Vec<_> = doc.tree.nodes().iter().skip(1).collect();
    assert_eq!(nodes.len(), outline.len(), "one node per bookmark");
    let mut placed = 0;
    for (i, (node, entry)) in nodes.iter().zip(&outline).enumerate() {
        assert_eq!(node.level, entry.level as u32, "{}", entry.title);
        assert!(
            norm(&node.title).contains(&norm(&entry.title))
                || norm(&entry.title).contains(&norm(&node.title)),
            "{:?} vs {:?}",
            node.title,
            entry.title
        );
        assert_eq!(node.pages.first as usize, entry.page, "first page of {:?}", entry.title);
        let next =
            outline[i + 1..].iter().find(|t| t.level <= entry.level).map_or(doc.pages.len(), |t| t.page);
        let last = node.pages.last as usize;
        assert!(
            last == next || last + 1 == next || (last == entry.page && next == entry.page),
            "{:?}: pages {:?}, next section on page {next}",
            entry.title,
            node.pages
        );
        placed += usize::from(!node.heading.is_empty());
    }
    eprintln!("NIST SP 800-207: {placed} of {} bookmarks found on their page", outline.len());
    assert!(placed >= outline.len() - 1, "{placed}");
}

/// NIST SP 800-207 has no `/PageLabels`, but prints roman numbers on its front matter and
/// arabic ones from its first chapter: those become the printed labels.
#[test]
fn nist_printed_page_numbers_become_labels() {
    let Some(corpus) = corpus() else { return };
    let parsed = read(&corpus.join("pdf/nist-sp-800-207-zero-trust-architecture.pdf"));
    let label = |page: usize| parsed.page_labels.get(page - 1).cloned().flatten();
    assert_eq!(label(4).as_deref(), Some("ii"));
    assert_eq!(label(9).as_deref(), Some("vii"));
    assert_eq!(label(10).as_deref(), Some("1"));
    assert_eq!(label(58).as_deref(), Some("49"));
    let labelled = parsed.page_labels.iter().filter(|l| l.is_some()).count();
    eprintln!("NIST SP 800-207: {labelled} of {} pages labelled", parsed.page_breaks.len() + 1);
    assert!(labelled >= 50);
}

/// The AOSA bash chapter has no outline. Its 43 numbered headings, read off the printed
/// chapter (`pdftotext -layout`, checked by hand), are recovered at the right level.
#[test]
fn aosa_numbered_headings_are_recovered_without_an_outline() {
    let Some(corpus) = corpus() else { return };
    const GOLD: &str = "1 Introduction|1.1 Bash|1.2 Posix|2 Shell Syntactic Units and Primitives|2.1 Shell Primitives|2.2 Variables and Parameters|2.3 The Shell Programming Language|2.4 A Further Note|3 Input Processing|3.1 Readline and Command Line Editing|3.1.1 Editing Modes|3.1.2 Prompting|3.1.3 Key Bindings and Macros|3.1.4 Command History|3.1.5 Word Completion|3.1.6 Readline Structure|3.1.7 Applications Extending Readline|3.2 Non-interactive Input Processing|3.3 Multibyte Characters|4 Parsing|5 Word Expansions|5.1 Brace Expansion|5.2 Tilde Expansion|5.3 Parameter and Variable Expansions|5.4 Command Substitution|5.5 Process Substitution|5.6 Arithmetic Expansion|5.7 Word Splitting|5.8 Filename Generation (globbing)|5.9 Implementation|6 Command Execution|6.1 Redirection|6.2 Builtin Commands|6.3 Simple Command Execution|6.4 Job Control|6.5 Compound Commands|6.6 Coprocesses|6.7 Signals and Traps|6.8 Complex Examples|7 Lessons Learned|7.1 What I’ve Found is Important|7.2 What I Would Have Done Differently|8 Conclusions";
    let gold: Vec<(String, String)> = GOLD.split('|').map(|g| split_number(g).unwrap()).collect();
    let parsed = read(&corpus.join("pdf/aosa-bash-chapter-no-outline.pdf"));
    let found: Vec<(u32, String)> = parsed.headings.iter().map(|h| (h.level, h.title.clone())).collect();
    let (recall, false_share, missing) = score(&gold, &found);
    eprintln!(
        "AOSA bash: recovered {recall:.3} of {}, false headings {false_share:.3} of {}; missing {missing:?}",
        gold.len(),
        found.len()
    );
    assert!(recall >= 0.9 && false_share <= 0.05);
}

/// The USLM user guide PDF has no outline; its Markdown twin's numbered headings are the
/// gold (`## 1.1 Overview` is `1.1`, level 2). Its contents pages (dotted leaders) must give
/// no heading, and its attribute tables (rows `1 @type …`) neither.
#[test]
fn uslm_user_guide_headings_are_recovered_like_its_markdown_twin() {
    let Some(corpus) = corpus() else { return };
    let md = std::fs::read_to_string(corpus.join("markdown/uslm-user-guide.md")).unwrap();
    let gold: Vec<(String, String)> = md
        .lines()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| split_number(l.trim_start_matches('#')))
        .collect();
    assert!(gold.len() > 100, "{}", gold.len());
    let parsed = read(&corpus.join("pdf/uslm-user-guide-no-outline.pdf"));
    let found: Vec<(u32, String)> = parsed.headings.iter().map(|h| (h.level, h.title.clone())).collect();
    let (recall, false_share, missing) = score(&gold, &found);
    let unmatched: Vec<&String> = found.iter().map(|f| &f.1).filter(|t| split_number(t).is_none()).collect();
    eprintln!(
        "USLM user guide: recovered {recall:.3} of {}, false headings {false_share:.3} of {}; missing {missing:?}; unnumbered {unmatched:?}",
        gold.len(),
        found.len()
    );
    assert!(recall >= 0.9 && false_share <= 0.05);
    let toc_end = parsed.page_breaks[4];
    assert!(
        parsed.headings.iter().all(|h| h.span.start >= toc_end || split_number(&h.title).is_none()),
        "no numbered heading from the contents pages"
    );
}

/// The bash manual as PDF (outline) and as HTML: the section titles agree.
#[test]
fn bash_manual_pdf_and_html_trees_agree() {
    let Some(corpus) = corpus() else { return };
    let pdf = document(&corpus.join("pdf/bash-reference-manual.pdf"));
    let html = document(&corpus.join("html/bash-reference-manual.html"));
    let titles =
        |d: &Document| -> Vec<String> { d.tree.nodes().iter().skip(1).map(|n| norm(&n.title)).collect() };
    let (p, h) = (titles(&pdf), titles(&html));
    let html_set: std::collections::HashSet<&String> = h.iter().collect();
    let same = p.iter().filter(|t| html_set.contains(t)).count();
    let ratio = same as f64 / p.len() as f64;
    let differ: Vec<&String> = p.iter().filter(|t| !html_set.contains(t)).take(12).collect();
    eprintln!("bash manual: {same} of {} PDF section titles are HTML section titles ({ratio:.3}); HTML has {}; differing: {differ:?}", p.len(), h.len());
    assert!(ratio >= 0.9);
}

/// The yellow paper is set in two columns: sentences of the left column read whole, and
/// the right column's text never lands inside them; its ligatures read as letters.
#[test]
fn yellow_paper_columns_are_not_interleaved() {
    let Some(corpus) = corpus() else { return };
    let parsed = read(&corpus.join("pdf/ethereum-yellow-paper-2col.pdf"));
    let text = parsed.text.split_whitespace().collect::<Vec<_>>().join(" ");
    for sentence in [
        // Page 2, left column, then its continuation at the top of the right column.
        "Other projects still aim to build upon the Bitcoin network itself, leveraging the large amount of value placed in the system and the vast amount of computation that goes into the consensus mechanism.",
        "Ethereum, taken as a whole, can be viewed as a transaction-based state machine: we begin with a genesis state and incrementally execute transactions to morph it into some current state.",
        "Early work on smart contracts has been done by Szabo [1997] and Miller [1997].",
        "Transactions are collated into blocks; blocks are chained together using a cryptographic hash as a means of reference.",
        // Computer Modern fonts have no ToUnicode: ligatures and quotes come from the
        // font program's built-in encoding.
        "The Mastercoin project, first proposed by Willett [2013], aims to build a richer protocol",
        "has sought to create a “federated” system for currency exchange, effectively creating a new financial clearing system.",
    ] {
        assert!(text.contains(sentence), "not read whole: {sentence}");
    }
}

/// Every page of every corpus PDF, cut into chunks by the pipeline: each chunk's words are
/// on the pages it cites. The check is independent of the reader: `pdftotext` (poppler)
/// extracts the cited pages, and the chunk's longer words must all be found there, in order.
#[test]
fn chunk_text_is_on_its_cited_pages() {
    let Some(corpus) = corpus() else { return };
    if std::process::Command::new("pdftotext").arg("-v").output().is_err() {
        eprintln!("skipping: pdftotext (poppler-utils) is not installed");
        return;
    }
    let pipeline = Pipeline::new(&Config::default()).unwrap();
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(corpus.join("pdf")).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    for path in files {
        let ing = pipeline.ingest_file(&path).unwrap();
        let mut pages: BTreeMap<u32, String> = BTreeMap::new();
        let mut page_text = |n: u32| -> String {
            pages
                .entry(n)
                .or_insert_with(|| {
                    let out = std::process::Command::new("pdftotext")
                        .args(["-f", &n.to_string(), "-l", &n.to_string(), "-enc", "UTF-8"])
                        .arg(&path)
                        .arg("-")
                        .output()
                        .unwrap();
                    norm(&String::from_utf8_lossy(&out.stdout))
                })
                .clone()
        };
        let (mut checked, mut bad) = (0, Vec::new());
        for c in ing.chunks.iter().step_by(3) {
            let words: Vec<String> = c
                .span
                .slice(&ing.document.text)
                .split_whitespace()
                .filter(|w| {
                    w.chars().count() >= 7 && w.chars().all(|ch| ch.is_alphabetic() || ",.;:()".contains(ch))
                })
                .map(norm)
                .collect();
            if words.is_empty() {
                continue;
            }
            let cited: String = (c.pages.first..=c.pages.last).map(&mut page_text).collect();
            let found = words.iter().filter(|w| cited.contains(w.as_str())).count();
            checked += 1;
            if (found as f64) < 0.9 * words.len() as f64 {
                bad.push(format!(
                    "chunk {} (pages {}-{}): {found} of {} words",
                    c.id,
                    c.pages.first,
                    c.pages.last,
                    words.len()
                ));
            }
        }
        eprintln!("{}: {checked} chunks checked, {} off their pages", path.display(), bad.len());
        assert!(bad.len() * 100 <= checked, "{}: {bad:?}", path.display());
    }
}
