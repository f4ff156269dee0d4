#!/usr/bin/env python3
"""strata's PDF tables against pdfplumber's extract_tables() on financial statement pages.

Usage: scripts/bench/tables.py READ_BIN FILINGS_DIR OUT_TSV [PDFPLUMBER_CACHE_JSON]

READ_BIN is the `read` example of strata-ingest (run with `--tables`), built in release:
    cargo build --release -p strata-ingest --example read
FILINGS_DIR is ../shared/data/eval/financebench-dev. Needs `pip install pdfplumber`.

The pages: in every 10-K and 10-Q, the first two pages whose text (by pdfplumber) has a line
that starts with a primary statement's title (balance sheet, operations or income, cash flows)
and that hold at least 30 amounts; contents pages (many "Item" lines) are left out. The rule
names no filing or page.

Cells are compared as a multiset per page, after normalizing both sides the same way:
whitespace collapsed, currency signs dropped, `( 433 )` written `(433)`, a `)` or `%` alone
joined to the cell before it (pdfplumber splits `(38` `)`), empty cells dropped. Agreement = matched cells / pdfplumber's
cells (recall) and / strata's cells (precision), summed over pages.

Time: pdfplumber's is page.extract_tables() on each chosen page (the file opened once);
strata's is its whole read of the filing (every stage, every page) divided by the pages.
"""

import collections
import json
import os
import re
import subprocess
import sys
import time

import pdfplumber

TITLE = re.compile(
    r"^\s*consolidated\s+(statements?\s+of\s+(cash\s+flows|operations|income|earnings)|balance\s+sheets?)\b",
    re.I | re.M,
)
AMOUNT = re.compile(r"\(?\$?\s*\d{1,3}(,\d{3})+(\.\d+)?\)?|\(\d+\)")
PER_FILING = 2
MIN_AMOUNTS = 30


def norm(cell):
    if cell is None:
        return ""
    t = " ".join(str(cell).split())
    t = re.sub(r"[$€£¥]", "", t)
    t = re.sub(r"\(\s+", "(", t)
    t = re.sub(r"\s+\)", ")", t)
    t = re.sub(r"\s+%", "%", t)
    return " ".join(t.split())


def cells(row):
    """A row's cells, normalized, with the rule strata applies to its own: a `)` or `%`
    alone joins the cell before it (a currency sign alone is dropped by `norm`)."""
    out = []
    for c in row:
        raw = " ".join(str(c or "").split())
        if raw in (")", "%", ")%", "%)") and out:
            out[-1] = norm(out[-1] + raw)
            continue
        n = norm(raw)
        if n:
            out.append(n)
    return out


def chosen_pages(pdf):
    out = []
    for i, page in enumerate(pdf.pages):
        text = page.extract_text() or ""
        if len(re.findall(r"(?im)^\s*item\s+\d", text)) >= 4:
            continue
        if TITLE.search(text) and len(AMOUNT.findall(text)) >= MIN_AMOUNTS:
            out.append(i + 1)
            if len(out) == PER_FILING:
                break
    return out


def strata_tables(binary, path):
    run = subprocess.run([binary, path, "--tables"], capture_output=True, text=True, check=True)
    by_page = collections.defaultdict(list)
    summary = None
    for line in run.stdout.splitlines():
        d = json.loads(line)
        if d.get("summary"):
            summary = d
            continue
        by_page[d["page"]].extend(d["rows"])
    return by_page, summary["seconds"] / summary["pages"]


def pdfplumber_side(folder, files, cache):
    """Per filing: the chosen pages, pdfplumber's rows on each and the time it took. Kept in
    `cache` (a JSON file) when given, since choosing the pages reads every page's text."""
    if cache and os.path.exists(cache):
        with open(cache) as f:
            return json.load(f)
    out = {}
    for name in files:
        with pdfplumber.open(os.path.join(folder, name)) as pdf:
            pages = []
            for number in chosen_pages(pdf):
                started = time.perf_counter()
                tables = pdf.pages[number - 1].extract_tables()
                seconds = time.perf_counter() - started
                pages.append({"page": number, "rows": [r for t in tables for r in t], "seconds": seconds})
            out[name] = pages
    if cache:
        with open(cache, "w") as f:
            json.dump(out, f)
    return out


def main():
    binary, folder, out_path = sys.argv[1:4]
    cache = sys.argv[4] if len(sys.argv) > 4 else None
    files = sorted(f for f in os.listdir(folder) if re.search(r"_(10K|10Q)\.pdf$", f))
    theirs_all = pdfplumber_side(folder, files, cache)
    rows = []
    totals = collections.Counter()
    plumber_times, strata_times = [], []
    for name in files:
        if not theirs_all.get(name):
            continue
        ours, per_page = strata_tables(binary, os.path.join(folder, name))
        for page in theirs_all[name]:
            number = page["page"]
            plumber_times.append(page["seconds"])
            strata_times.append(per_page)
            theirs = collections.Counter(c for r in page["rows"] for c in cells(r))
            mine = collections.Counter(c for r in ours.get(number, []) for c in cells(r))
            matched = sum((theirs & mine).values())
            p, s = sum(theirs.values()), sum(mine.values())
            totals.update({"matched": matched, "plumber": p, "strata": s, "pages": 1})
            rows.append((name, number, p, s, matched))
    with open(out_path, "w") as out:
        out.write("file\tpage\tpdfplumber_cells\tstrata_cells\tmatched\n")
        for r in rows:
            out.write("\t".join(map(str, r)) + "\n")
    recall = totals["matched"] / max(1, totals["plumber"])
    precision = totals["matched"] / max(1, totals["strata"])
    covered = [r for r in rows if r[2] > 0]
    print(f"pages: {totals['pages']} ({len(covered)} where pdfplumber finds a table)")
    print(f"cells: pdfplumber {totals['plumber']}, strata {totals['strata']}, matched {totals['matched']}")
    print(f"agreement: {recall:.3f} of pdfplumber's cells, {precision:.3f} of strata's")
    pt = sum(plumber_times) / len(plumber_times)
    st = sum(strata_times) / len(strata_times)
    print(f"time per page: pdfplumber extract_tables {pt * 1000:.1f} ms, strata read {st * 1000:.2f} ms, ratio {pt / st:.0f}x")


if __name__ == "__main__":
    main()
