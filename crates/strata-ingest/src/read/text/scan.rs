//! Step 2, the scan: one pass over the normalized lines that hands each line after a blank
//! to heading detection ([`super::heading`]) and gathers the rest into paragraphs for block
//! classification ([`super::block`]).

use strata_core::{Block, BlockKind};

use super::line::{is_blank, line_at};
use super::numbered::{numbered_candidate, Num};
use crate::read::HeadingCap;

/// One pass over the normalized text: headings and blocks.
pub(super) struct Scan<'a> {
    pub(super) text: &'a str,
    pub(super) breaks: &'a [usize],
    pub(super) indented: bool,
    /// The first numbered heading must be `1`/`0`/`1.1` when the document has one.
    pub(super) strict_start: bool,
    pub(super) last: Option<Num>,
    /// A refused number that skipped one (see [`super::numbered::skips_one`]); its successor is accepted.
    pub(super) missed: Option<Num>,
    /// The last non-blank line was body text at column 0 (message dumps in RFCs).
    pub(super) prev_col0_body: bool,
    /// Legal heading kinds in order of first appearance; the position is the level.
    pub(super) kinds: Vec<String>,
    pub(super) headings: HeadingCap,
    pub(super) blocks: Vec<Block>,
}

impl<'a> Scan<'a> {
    pub(super) fn new(text: &'a str, breaks: &'a [usize], indented: bool, max_headings: usize) -> Scan<'a> {
        let mut strict_start = false;
        let (mut pos, mut prev_blank) = (0, true);
        while pos < text.len() {
            let (end, next) = line_at(text, pos);
            let line = &text[pos..end];
            if prev_blank && !line.starts_with(char::is_whitespace) {
                if let Some(n) = numbered_candidate(line) {
                    if !n.num.letter && n.num.parts.iter().all(|&v| v <= 1) {
                        strict_start = true;
                        break;
                    }
                }
            }
            prev_blank = is_blank(line);
            pos = next;
        }
        Scan {
            text,
            breaks,
            indented,
            strict_start,
            last: None,
            missed: None,
            prev_col0_body: false,
            kinds: Vec::new(),
            headings: HeadingCap::new(max_headings),
            blocks: Vec::new(),
        }
    }

    pub(super) fn run(&mut self) {
        let text = self.text;
        let (mut pos, mut prev_blank, mut brk) = (0, true, 0);
        let mut para: Option<(usize, usize)> = None;
        while pos < text.len() {
            let (end, next) = line_at(text, pos);
            let line = &text[pos..end];
            while brk < self.breaks.len() && self.breaks[brk] < pos {
                brk += 1;
            }
            let page_start = self.breaks.get(brk) == Some(&pos);
            if is_blank(line) {
                self.flush(para.take());
                prev_blank = true;
                pos = next;
                continue;
            }
            if prev_blank || page_start {
                if let Some((mark, after)) = self.heading(pos, end, next) {
                    self.flush(para.take());
                    self.blocks.push(Block::new(BlockKind::Heading, mark.span));
                    self.headings.push(mark);
                    self.prev_col0_body = false;
                    prev_blank = false;
                    pos = after;
                    continue;
                }
            }
            para = Some((para.map_or(pos, |p| p.0), end));
            self.prev_col0_body = !line.starts_with(char::is_whitespace);
            prev_blank = false;
            pos = next;
        }
        self.flush(para);
    }

    /// True when the line at `pos` is blank or the text ends there.
    pub(super) fn blank_at(&self, pos: usize) -> bool {
        pos >= self.text.len() || is_blank(&self.text[pos..line_at(self.text, pos).0])
    }

    /// True when the next non-blank line from `pos` is indented (or there is none).
    pub(super) fn next_nonblank_indented(&self, mut pos: usize) -> bool {
        while pos < self.text.len() {
            let (end, next) = line_at(self.text, pos);
            let line = &self.text[pos..end];
            if !is_blank(line) {
                return line.starts_with(char::is_whitespace);
            }
            pos = next;
        }
        true
    }
}
