use std::time::{Duration, Instant};

use super::*;

/// A sentence with eight quote and bracket characters.
const QUOTED: &str = "Each party (the “Party”) shall keep it [as “Secret”] for 5 yrs. after Jan. 1. ";

fn split(text: &str) -> Vec<&str> {
    sentences(text, Span::new(0, text.len())).iter().map(|s| s.slice(text)).collect()
}

/// What sentencex finds reading `text` whole, as [`sentence_starts`] reports it.
fn whole(text: &str) -> Vec<usize> {
    let mut out: Vec<usize> = sentencex::get_sentence_boundaries("en", text)
        .into_iter()
        .map(|b| b.start_byte)
        .filter(|&s| s > 0 && s < text.len() && text.is_char_boundary(s))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Asserts that [`sentence_starts`] finds what [`whole`] finds in `text`, naming the first
/// starts that differ. A start is taken where its text does, past whitespace: where
/// sentencex reads a long text in runs of paragraphs, it drops the paragraph separator between
/// two runs as a start of its own (the next paragraph still starts one), and one that ends
/// the text.
fn same_as_whole(text: &str, what: &str) {
    let text_at = |starts: Vec<usize>| {
        let mut at: Vec<usize> = starts
            .into_iter()
            .map(|s| s + (text[s..].len() - text[s..].trim_start().len()))
            .filter(|&s| s < text.len())
            .collect();
        at.dedup();
        at
    };
    let (ours, theirs) = (text_at(sentence_starts(text)), text_at(whole(text)));
    let only_ours = ours.iter().filter(|s| theirs.binary_search(s).is_err());
    let only_theirs = theirs.iter().filter(|s| ours.binary_search(s).is_err());
    let differ: Vec<(usize, &str)> =
        only_ours.map(|&s| (s, "ours")).chain(only_theirs.map(|&s| (s, "whole"))).take(6).collect();
    assert!(
        differ.is_empty(),
        "{what}: {} starts against {}; only in one: {differ:?}",
        ours.len(),
        theirs.len()
    );
}

#[test]
fn abbreviations_do_not_end_sentences() {
    let text = "Dr. Smith filed on Jan. 5. The claim cites Sec. 5 of 35 U.S.C. and ends here. Next one.";
    let parts = split(text);
    assert_eq!(parts.concat(), text);
    assert!(parts.iter().any(|p| p.contains("Dr. Smith filed on Jan. 5.")), "{parts:?}");
    assert!(parts.iter().any(|p| p.contains("Sec. 5 of 35 U.S.C. and ends here.")), "{parts:?}");
}

#[test]
fn sentences_tile_the_span() {
    let text = "One. Two!\n\nThree? Four";
    assert_eq!(split(text).concat(), text);
    assert!(split(text).len() >= 3);
}

/// Issue 55: `'T\n\n'` and then runs of 1, 2, … backticks took 0.64 s at 31 KB, 74 s at
/// 500 KB, and did not end at 2 MB: sentencex's quote regex rescans to the paragraph's end
/// from every opener. Doubling the text now at most a little more than doubles the time
/// (best of three, against the text alone; the square would be four times).
#[test]
fn regression_backtick_runs_split_in_linear_time() {
    let runs: String = (1..250).map(|i| "`".repeat(i) + " ").collect();
    let once = format!("T\n\n{runs}");
    let twice = format!("{once}{runs}");
    let time = |text: &str| {
        (0..3)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(sentence_starts(text));
                started.elapsed()
            })
            .min()
            .unwrap_or(Duration::ZERO)
    };
    let (t1, t2) = (time(&once), time(&twice));
    let ratio = t2.as_secs_f64() / t1.as_secs_f64().max(1e-6);
    assert!(ratio < 3.0, "{} bytes in {t1:?}, twice that in {t2:?}: ratio {ratio:.2}", once.len());
}

/// `«` runs were slow too (issue 55); the windows hold them to the same bound.
#[test]
fn regression_guillemet_runs_split_in_linear_time() {
    let text: String = (0..60_000).map(|i| if i % 3 == 0 { "« " } else { "word " }).collect();
    let started = Instant::now();
    let starts = sentence_starts(&text);
    let small = &text[..text.len() / 8];
    let started_small = Instant::now();
    sentence_starts(small);
    let (big, little) = (started.elapsed().as_secs_f64(), started_small.elapsed().as_secs_f64());
    assert!(starts.iter().all(|&s| text.is_char_boundary(s)));
    assert!(big < 8.0 * 3.0 * little.max(1e-4), "8 times the text took {big:.3} s against {little:.3} s");
}

/// Paragraphs of up to [`PARAGRAPH`] bytes are read as sentencex reads the whole text; a
/// longer one among them is read in windows, and the paragraphs around it still find what a
/// whole read finds.
#[test]
fn text_around_a_long_paragraph_is_read_as_a_whole_read_reads_it() {
    let short = "The Licensee shall pay the fee (see Sec. 4.2) within 30 days. It may not assign \
                 \"this Agreement\" without consent! Does it renew? Yes.\n\n";
    let long = QUOTED.repeat(140);
    let text = format!("{}{long}\n\n{}", short.repeat(3), short.repeat(3));
    assert!(long.len() > PARAGRAPH && text.len() < 2 * PARAGRAPH, "one chunk of sentencex's");
    assert!(quotes(&long) > MAX_QUOTES, "read in windows");
    same_as_whole(&text, "short, long, short");
}

/// A text without a paragraph longer than [`PARAGRAPH`] is read exactly as sentencex reads
/// it; checked on the shared corpus's text and Markdown files when it is present.
#[test]
fn corpus_texts_split_as_sentencex_splits_them_whole() {
    let Some(root) = strata_core::testdata::shared("corpus") else { return };
    let mut checked = 0;
    for folder in ["txt", "markdown"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            same_as_whole(&text, &path.display().to_string());
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked} files");
}

/// A paragraph longer than [`PARAGRAPH`] is read whole when it holds few quotes and
/// brackets, and in windows when it holds many: the sentences of ordinary prose come out the
/// same either way.
#[test]
fn a_long_paragraph_is_read_in_windows_with_the_same_sentences() {
    let prose =
        "Each party shall keep the Confidential Information (as defined) secret for 5 yrs. after Jan. 1. ";
    let text = prose.repeat(1 + 4 * PARAGRAPH / prose.len());
    assert!(quotes(&text) <= MAX_QUOTES, "read whole");
    same_as_whole(&text, "a long paragraph of prose");
    let text = QUOTED.repeat(1 + 4 * PARAGRAPH / QUOTED.len());
    same_as_whole(&text, "a long paragraph of quotes");
    assert!(sentence_starts(&text).len() > 100);
}
