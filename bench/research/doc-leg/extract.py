"""Step 1: per-filing metadata. General cover-page regexes, no per-file tables.

Run: python3 bench/research/doc-leg/extract.py   (prints a markdown table)
"""
import re
import sys

from common import company_of, pages, pdf_title, pdfs

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
DATE = rf"(?:{MONTHS})\s+\d{{1,2}}\s*,\s*\d{{4}}"
ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4}
CORP_END = r"(?:INC\.?|INCORPORATED|CORPORATION|CORP\.?|COMPANY|CO\.|INTERNATIONAL|LTD\.?|PLC|N\.V\.|S\.A\.)"
EXCH = r"(?:The\s+)?(?:New York Stock Exchange|NYSE|Nasdaq|NASDAQ)"


def stem_words(fname):
    """File-name stem split on '_', '-' and letter/digit boundaries; glued names stay glued."""
    s = re.sub(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])", " ", fname[:-4])
    return " ".join(w for w in re.split(r"[_\-\s]+", s) if w)


def title_is_junk(t):
    t = t.strip()
    return (not t or re.fullmatch(r"\d{10}-\d{2}-\d{6}", t) is not None
            or t.lower() in {"document", "for immediate release", "untitled"}
            or re.fullmatch(r"(?i)(microsoft word - )?.*\.(docx?|htm)", t) is not None)


NOT_TICKER = {"LLC", "INC", "NYSE", "THE", "AND", "OF", "USD", "EUR", "PAR", "NONE", "N", "A"}


def _clean(name):
    name = re.sub(r"\b([A-Z]) ([A-Z]{2,})\b", r"\1\2", name)  # small-caps split 'R ESORTS'
    name = re.sub(r"\s+", " ", name).strip(" ,;:-–")
    name = re.sub(r"(?i)\s+and\s+subsidiaries$", "", name)
    return name


def header(text):
    """issuer / ticker / form / period from the first pages of a filing or release."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    head = "\n".join(lines[:400])
    h = {"issuer": "", "ticker": "", "form": "", "period": "", "fy": [], "quarter": ""}

    # form type: SEC cover 'FORM 10-K' etc.; otherwise a press release
    m = re.search(r"\bFORM\s+(10-KT?|10-Q|8-K|20-F|6-K|40-F)\b", "\n".join(lines[:40]))
    if m:
        h["form"] = m.group(1).upper()
    elif re.search(r"(?is)(today\s+)?(announce[sd]?|report(s|ed)?)\b.{0,120}\bresults|"
                   r"FOR IMMEDIATE RELEASE|Exhibit 99", head):
        h["form"] = "earnings release"

    # issuer: line above '(Exact name of registrant ...)'; else 'Name (NYSE: TICK)';
    # else an all-caps line ending in a corporate suffix
    for i, l in enumerate(lines[:200]):
        if re.match(r"(?i)\(?exact name of (the )?registrant", l):
            prev = lines[i - 1] if i else ""
            if not re.search(r"(?i)commission|file n|^or$|\d{3}-\d{4,}", prev):
                h["issuer"] = _clean(prev)
            break
    mt = re.search(r"([A-Z][A-Za-z.&,' \-]{2,60}?)\s*\(\s*" + EXCH + r"\s*:\s*([A-Z.]{1,6})\s*\)", head)
    if mt:
        h["ticker"] = mt.group(2)
        if not h["issuer"]:
            cand = re.split(r"\s[-–—]+\s|\)\s*-+\s*|--", mt.group(1))[-1]
            h["issuer"] = _clean(cand)
    if not h["issuer"]:
        for l in lines[:300]:
            if re.fullmatch(rf"(THE\s+)?[A-Z][A-Z0-9.&,'\- ]{{2,60}}\s{CORP_END}(\s+AND\s+SUBSIDIARIES)?", l):
                h["issuer"] = _clean(l)
                break
    if not h["ticker"]:  # first all-caps 1-5 letter line/cell after the 'Trading Symbol' header
        seg = head.split("Trading Symbol", 1)
        if len(seg) == 2:
            for l in seg[1].splitlines()[1:60]:
                for cell in re.split(r"\s{2,}", l.strip()):
                    if re.fullmatch(r"[A-Z]{1,5}(\.[A-Z])?", cell) and cell not in NOT_TICKER:
                        h["ticker"] = cell
                        break
                if h["ticker"]:
                    break

    # period
    pats = [
        (r"(?i)for the (fiscal year|year|quarterly period|transition period) ended\s+(" + DATE + ")", None),
        (r"(?i)date of report[^:]{0,60}:\s*(" + DATE + ")", "event"),
        (r"(?is)(quarter|year|period)[^.]{0,160}?\bended\s+(" + DATE + ")", None),
    ]
    for p, kind in pats:
        m = re.search(p, head)
        if m:
            date = m.group(m.lastindex)
            h["period"] = (kind or m.group(1).lower()) + " ended " + re.sub(r"\s+", " ", date) \
                if kind is None else "report dated " + re.sub(r"\s+", " ", date)
            y = int(re.search(r"\d{4}", date).group(0))
            h["fy"] = [y]
            if kind is None:  # 52/53-week years: early-Jan end -> prior year; Jan/Feb -> ambiguous
                mon, day = date.split()[0], int(re.search(r"\s(\d{1,2})", date).group(1))
                if mon == "January" and day <= 7:
                    h["fy"] = [y - 1]
                elif mon in ("January", "February"):
                    h["fy"] = [y, y - 1]
            break
    mq = re.search(r"(?i)\b(first|second|third|fourth)[- ]quarter\b(?:\s+(?:and\s+full[- ]year\s+)?"
                   r"(?:fiscal\s+)?(\d{4}))?", head)
    myq = re.search(r"(?i)\b(\d{4})\s+(first|second|third|fourth)[- ]quarter", head)
    if h["form"] == "10-Q" or h["form"] == "earnings release":
        if myq:
            h["quarter"] = f"Q{ORD[myq.group(2).lower()]}"
            h["fy"] = h["fy"] or [int(myq.group(1))]
        elif mq:
            h["quarter"] = f"Q{ORD[mq.group(1).lower()]}"
            if mq.group(2) and not h["fy"]:
                h["fy"] = [int(mq.group(2))]
        if h["form"] == "10-Q" and not h["quarter"] and h["period"]:
            mo = re.search(MONTHS, h["period"]).group(0)
            h["quarter"] = {"March": "Q1", "June": "Q2", "September": "Q3"}.get(mo, "")
    if not h["fy"]:
        m = re.search(r"(?i)full[- ]year\s+(\d{4})|(\d{4})\s+results", head)
        if m:
            h["fy"] = [int(m.group(1) or m.group(2))]
    return h


FORM_WORDS = {"10-K": "10-K annual report", "10-Q": "10-Q quarterly report",
              "8-K": "8-K current report", "earnings release": "earnings release results"}


def header_line(h):
    """One line, the 'issuer/form/period' profile text."""
    parts = [h["issuer"], h["ticker"], FORM_WORDS.get(h["form"], h["form"]), h["period"]]
    parts += [f"FY{y} {y}" for y in h["fy"]]
    if h["quarter"]:
        parts += [h["quarter"]] + [f"{y}{h['quarter']}" for y in h["fy"][:1]]
    return " | ".join(p for p in parts if p)


def profiles():
    """fname -> dict of raw profile texts."""
    out = {}
    for f in pdfs():
        ps = pages(f)
        h = header("\n".join(ps[:3]))
        out[f] = {
            "stem": stem_words(f),
            "title": pdf_title(f),
            "p1": "\n".join(ps[:1]),
            "p2": "\n".join(ps[:2]),
            "p3": "\n".join(ps[:3]),
            "hdr": header_line(h),
            "h": h,
            "full": "\n".join(ps),
            "npages": len(ps),
        }
    return out


if __name__ == "__main__":
    P = profiles()
    print("| file | stem words | PDF Title (junk?) | extracted issuer / form / period line |")
    print("|---|---|---|---|")
    junk = 0
    for f, p in P.items():
        j = title_is_junk(p["title"])
        junk += j
        t = (p["title"] or "(none)") + (" **junk**" if j else "")
        print(f"| {f} | {p['stem']} | {t} | {p['hdr']} |")
    n = len(P)
    print(f"\nPDF titles junk or missing: {junk}/{n}", file=sys.stderr)
    ok = {k: sum(bool(p['h'][k]) for p in P.values()) for k in ("issuer", "ticker", "form", "period", "fy")}
    print(f"fields found: {ok} of {n}", file=sys.stderr)
