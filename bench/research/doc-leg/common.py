"""Shared helpers for the document-leg study (stdlib only).

Data is read in place from ../shared/data/eval/financebench-dev relative to the repo root;
pdftotext output is cached outside the repo (env DOCLEG_CACHE, default /tmp/strata-doc-leg).
"""
import json
import math
import os
import re
import subprocess
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
DATA = os.path.abspath(os.path.join(REPO, "..", "shared", "data", "eval", "financebench-dev"))
CACHE = os.environ.get("DOCLEG_CACHE", "/tmp/strata-doc-leg")


# ---------------------------------------------------------------- data
def pdfs():
    return sorted(f for f in os.listdir(DATA) if f.endswith(".pdf"))


def queries():
    out = []
    with open(os.path.join(DATA, "queries.jsonl")) as fh:
        for line in fh:
            if line.strip():
                out.append(json.loads(line))
    return out


def company_of(fname):
    """Evaluation-only label: the file-name part before the first _YYYY."""
    return re.split(r"_(?=\d{4})", fname[:-4], maxsplit=1)[0]


def _run(args):
    return subprocess.run(["nice", "-n", "10"] + args, capture_output=True, text=True,
                          errors="replace").stdout


def pdf_title(fname):
    for line in _run(["pdfinfo", os.path.join(DATA, fname)]).splitlines():
        if line.startswith("Title:"):
            return line[len("Title:"):].strip()
    return ""


def pages(fname):
    """All pages of the PDF as a list of strings (pdftotext, reading order, cached)."""
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, fname[:-4] + ".txt")
    if not os.path.exists(path):
        subprocess.run(["nice", "-n", "10", "pdftotext", os.path.join(DATA, fname), path],
                       check=True)
    with open(path, errors="replace") as fh:
        ps = fh.read().split("\f")
    if ps and not ps[-1].strip():
        ps = ps[:-1]
    return ps


# ---------------------------------------------------------------- text
STOP = set("""a about above after again against all am an and any are aren as at be because been
before being below between both but by can cannot could did didn do does doesn doing don down
during each few for from further had has have having he her here hers herself him himself his how
i if in into is isn it its itself let me more most my myself no nor not of off on once only or
other ought our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself
yourselves s t d ll m re ve""".split())


def stem(w):
    """Tiny suffix stripper (plural/ing/ed); digits untouched."""
    if w.isdigit() or len(w) <= 3:
        return w
    for suf, rep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            if suf == "s" and w.endswith(("ss", "us", "is")):
                return w
            return w[: len(w) - len(suf)] + rep
    return w


def tokens(text, do_stem=True):
    out = []
    for t in re.split(r"[^0-9a-z]+", text.lower()):
        if not t or t in STOP:
            continue
        out.append(stem(t) if do_stem else t)
    return out


# ---------------------------------------------------------------- query normalisation
def norm_fy(q):
    """FY2018 / FY18 / FY 2018 / 2023Q1 / Q3 FY2022 / H1 FY2023 -> add bare year (+ qN)."""
    def fy(m):
        y = m.group(1)
        y = ("20" + y) if len(y) == 2 else y
        return f"{m.group(0)} {y}"
    q = re.sub(r"\bFY\s?'?(\d{4}|\d{2})(?=\b|Q)", fy, q, flags=re.I)
    q = re.sub(r"\b(\d{4})\s?(Q[1-4])\b", r"\1 \2", q, flags=re.I)
    return q


def norm_glue(q):
    """Add concatenations of 2-3 adjacent capitalised words ('Foot Locker' -> 'footlocker')
    and of '&'-joined letters ('J&J' -> 'jj'); unmatched glued terms score zero in BM25."""
    extra = []
    words = re.findall(r"[A-Za-z][A-Za-z.\-]*", q)
    caps = [w for w in words]
    for n in (2, 3):
        for i in range(len(caps) - n + 1):
            grp = caps[i:i + n]
            if all(g[0].isupper() for g in grp):
                extra.append("".join(re.sub(r"[^A-Za-z]", "", g) for g in grp))
    for m in re.finditer(r"\b([A-Za-z]{1,3})\s?&\s?([A-Za-z]{1,3})\b", q):
        extra.append(m.group(1) + m.group(2))
    return q + " " + " ".join(extra)


def norm_caps(q):
    """Keep only capitalised words not at sentence start, acronyms and years (entity-ish)."""
    keep = []
    for m in re.finditer(r"(^|[.?!]\s+|\s|\()([A-Za-z0-9&'\-]+)", q):
        w, sent_start = m.group(2), (m.start() == 0 or m.group(1).strip() in ".?!")
        if re.fullmatch(r"(FY)?'?\d{2,4}(Q[1-4])?", w, re.I) or re.fullmatch(r"Q[1-4]", w):
            keep.append(w)
        elif w[0].isupper() and not sent_start:
            keep.append(w)
    return " ".join(keep)


# ---------------------------------------------------------------- BM25
class BM25:
    def __init__(self, docs_tokens, k1=1.2, b=0.75):
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs_tokens]
        self.dl = [len(d) for d in docs_tokens]
        self.N = len(docs_tokens)
        self.avgdl = (sum(self.dl) / self.N) or 1.0
        df = Counter()
        for c in self.tf:
            df.update(c.keys())
        self.idf = {t: math.log(1 + (self.N - n + 0.5) / (n + 0.5)) for t, n in df.items()}
        self.post = defaultdict(list)
        for i, c in enumerate(self.tf):
            for t, f in c.items():
                self.post[t].append((i, f))

    def scores(self, q_tokens):
        s = [0.0] * self.N
        for t in set(q_tokens):  # query terms counted once
            idf = self.idf.get(t)
            if idf is None:
                continue
            for i, f in self.post[t]:
                s[i] += idf * f * (self.k1 + 1) / (
                    f + self.k1 * (1 - self.b + self.b * self.dl[i] / self.avgdl))
        return s


def ranking(scores):
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def norm_fymax(q):
    """Multi-year questions ('FY2018 - FY2020 average') are answered from the latest filing:
    replace every FY-year by nothing and append only the latest year mentioned."""
    ys = []
    def grab(m):
        y = m.group(1)
        ys.append(int(("20" + y) if len(y) == 2 else y))
        return " "
    q2 = re.sub(r"\bFY\s?'?(\d{4}|\d{2})(?=\b|Q)", grab, q, flags=re.I)
    q2 = re.sub(r"\b(\d{4})\s?(Q[1-4])\b", r"\1 \2", q2, flags=re.I)
    return q2 + (f" {max(ys)}" if ys else "")
