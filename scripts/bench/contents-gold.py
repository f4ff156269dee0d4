#!/usr/bin/env python3
"""Gold for the filing-structure test: the Items each 10-K and 10-Q lists on its own
contents page, with the printed page and the physical page that printed it.

Read with pdfplumber (an extractor independent of strata). The contents page is the first
page of the first twelve with at least five `Item N … page` lines; each Item's printed page
is mapped to the physical page whose first or last line is that number (the page footer or
header), searched after the contents page. When the Item's heading (a line starting
`Item N`) is not on that page but on the page before or after, the contents is off by one
there and the heading's page is the gold. Items whose printed page no page prints are
written with physical page 0 and left out of the score.

    pip install pdfplumber
    scripts/bench/contents-gold.py ../shared/data/eval/financebench-dev > bench/results/filings/contents-gold.tsv
"""
import glob
import os
import re
import sys

import pdfplumber

ITEM = re.compile(r"^(?:item)\s+(\d{1,2}[A-D]?)\b.*?\s(\d{1,3})\s*$", re.I)
NUMBER = re.compile(r"^\s*(?:page\s+)?(\d{1,3})\s*$", re.I)


def lines(page):
    return [l for l in (page.extract_text() or "").split("\n") if l.strip()]


class Pages:
    """Page texts (lists of non-empty lines), extracted when first asked for."""

    def __init__(self, pdf):
        self.pdf, self.cache = pdf, {}

    def __len__(self):
        return len(self.pdf.pages)

    def __getitem__(self, n):
        if n not in self.cache:
            self.cache[n] = lines(self.pdf.pages[n])
        return self.cache[n]


def heads(texts, physical, key):
    """Whether a line of 1-based page `physical` starts with `Item KEY`."""
    if not 1 <= physical <= len(texts):
        return False
    pattern = re.compile(rf"^\s*item\s+{key}\b", re.I)
    return any(pattern.match(l) for l in texts[physical - 1])


def printed_page(texts, start, number):
    """The first 1-based page from index `start` on whose first or last line is `number`."""
    for n in range(start, len(texts)):
        for l in texts[n][:1] + texts[n][-1:]:
            m = NUMBER.match(l)
            if m and int(m.group(1)) == number:
                return n + 1
    return 0


def main(folder):
    print("file\titem\tprinted\tphysical")
    for path in sorted(glob.glob(os.path.join(folder, "*.pdf"))):
        name = os.path.basename(path)
        if not re.search(r"_10K|_10Q", name):
            continue
        with pdfplumber.open(path) as pdf:
            texts = Pages(pdf)
            contents, items = None, []
            for n in range(min(12, len(texts))):
                found = [m.groups() for m in map(ITEM.match, texts[n]) if m]
                if len(found) >= 5:
                    contents, items = n, found
                    break
            if contents is None:
                print(f"{name}: no contents page found", file=sys.stderr)
                continue
            seen = set()
            for key, printed in items:
                key = key.upper()
                if key in seen:
                    continue
                seen.add(key)
                physical = printed_page(texts, contents + 1, int(printed))
                if physical and not heads(texts, physical, key):
                    physical = next((p for p in (physical - 1, physical + 1) if heads(texts, p, key)), physical)
                print(f"{name}\t{key}\t{printed}\t{physical}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/eval/financebench-dev")
