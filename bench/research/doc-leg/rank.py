"""Steps 2-4: BM25 over document profiles, query normalisations, confidence, no-company queries.

Run: python3 bench/research/doc-leg/rank.py > /tmp/rank.md
"""
import re
import statistics

from common import BM25, company_of, norm_caps, norm_fy, norm_fymax, norm_glue, queries, ranking, tokens
from extract import profiles

P = profiles()
FILES = list(P)
Q = queries()


def text_of(f, variant):
    p = P[f]
    return "\n".join(p[k] for k in variant.split("+"))


VARIANTS = ["stem", "title", "p1", "p2", "p3", "hdr", "stem+hdr", "hdr+p1", "hdr+p2", "hdr+p3",
            "stem+hdr+p2", "full", "stem+hdr@p2*0.1", "stem+hdr@p2*0.25", "stem+hdr@p2*0.5",
            "stem+hdr@full*0.1", "stem+hdr@full*0.25"]
NORMS = {
    "raw": lambda q: q,
    "fy": norm_fy,
    "glue": norm_glue,
    "fy+glue": lambda q: norm_glue(norm_fy(q)),
    "caps(fy+glue)": lambda q: norm_glue(norm_fy(norm_caps(q))),
    "fymax+glue": lambda q: norm_glue(norm_fymax(q)),
}


_IDX = {}


def index(variant, do_stem):
    if (variant, do_stem) not in _IDX:
        _IDX[variant, do_stem] = BM25([tokens(text_of(f, variant), do_stem) for f in FILES])
    return _IDX[variant, do_stem]


def doc_scores(variant, qtext, norm="fy+glue", do_stem=True):
    """variant 'A' or fielded 'A@B*w' = BM25(A) + w*BM25(B), separate indexes."""
    qt = tokens(NORMS[norm](qtext), do_stem)
    if "@" in variant:
        a, rest = variant.split("@")
        b, w = rest.split("*")
        sa, sb = index(a, do_stem).scores(qt), index(b, do_stem).scores(qt)
        return [x + float(w) * y for x, y in zip(sa, sb)]
    return index(variant, do_stem).scores(qt)


def run(variant, norm="fy+glue", do_stem=True):
    res = []
    for q in Q:
        gold = {g["doc"] for g in q["gold"]}
        s = doc_scores(variant, q["query"], norm, do_stem)
        r = ranking(s)
        rank = next(i for i, d in enumerate(r) if FILES[d] in gold) + 1
        res.append({"id": q["id"], "rank": rank, "s": s, "order": r, "gold": gold,
                    "top": FILES[r[0]], "s1": s[r[0]], "s2": s[r[1]],
                    "co_ok": company_of(FILES[r[0]]) in {company_of(g) for g in gold}})
    return res


def metrics(res):
    n = len(res)
    return (sum(r["rank"] == 1 for r in res) / n, sum(r["rank"] <= 3 for r in res) / n,
            sum(1 / r["rank"] for r in res) / n, sum(r["co_ok"] for r in res) / n)


def table_variants():
    print("## Step 2a: profile variants (query norm fy+glue, stemming on)\n")
    print("| profile | top-1 | top-3 | MRR | company top-1 | top-1 (no stem) | MRR (no stem) |")
    print("|---|---|---|---|---|---|---|")
    for v in VARIANTS:
        a = metrics(run(v))
        b = metrics(run(v, do_stem=False))
        print(f"| {v} | {a[0]:.3f} | {a[1]:.3f} | {a[2]:.3f} | {a[3]:.3f} | {b[0]:.3f} | {b[2]:.3f} |")
    print()


def table_norms(vs=("stem", "hdr", "p2", "stem+hdr", "hdr+p2", "stem+hdr+p2", "stem+hdr@p2*0.1",
                    "stem+hdr@p2*0.25", "stem+hdr@full*0.25")):
    print("## Step 2b: query normalisations (top-1 / MRR)\n")
    print("| profile | " + " | ".join(NORMS) + " |")
    print("|---|" + "---|" * len(NORMS))
    for v in vs:
        cells = []
        for n in NORMS:
            m = metrics(run(v, n))
            cells.append(f"{m[0]:.3f} / {m[2]:.3f}")
        print(f"| {v} | " + " | ".join(cells) + " |")
    print()


def confidence(v, norm="fy+glue"):
    res = run(v, norm)
    # no doc scores at all -> ratio 1 (no signal); only one doc scores -> inf
    ratio = lambda r: 1.0 if r["s1"] == 0 else (r["s1"] / r["s2"] if r["s2"] > 0 else float("inf"))
    ok = [ratio(r) for r in res if r["rank"] == 1]
    bad = [ratio(r) for r in res if r["rank"] != 1]
    fin = lambda xs: [x for x in xs if x != float("inf")]
    print(f"## Step 3: confidence, profile `{v}`, query norm `{norm}`\n")
    print(f"top-1 right: n={len(ok)}, s1/s2 median {statistics.median(ok):.2f}, "
          f"min {min(ok):.2f}; top-1 wrong: n={len(bad)}, median "
          f"{statistics.median(bad) if bad else float('nan'):.2f}, max {max(fin(bad)) if fin(bad) else float('nan'):.2f}\n")
    print("wrong top-1 cases: " + "; ".join(
        f"{r['id'][-5:]} top={r['top'][:-4]} gold={'/'.join(g[:-4] for g in r['gold'])} "
        f"ratio={ratio(r):.2f} goldrank={r['rank']}" for r in res if r["rank"] != 1) + "\n")
    print("| rule: use doc leg if s1 >= X*s2 | accepted | precision (top-1 right) | recall (of right top-1s) |")
    print("|---|---|---|---|")
    for x in (1.0, 1.05, 1.1, 1.15, 1.2, 1.3, 1.5, 2.0):
        acc = [r for r in res if r["s1"] > 0 and ratio(r) >= x]
        good = sum(r["rank"] == 1 for r in acc)
        print(f"| X={x} | {len(acc)}/{len(res)} | {good / len(acc) if acc else 0:.3f} | "
              f"{good / max(1, len(ok)):.3f} |")
    print()
    print("| shortlist: docs with score >= r*s1 | gold in shortlist | mean size |")
    print("|---|---|---|")
    for rr in (1.0, 0.9, 0.8, 0.7, 0.6, 0.5):
        hit, size = 0, []
        for r in res:
            sl = [FILES[i] for i in r["order"] if r["s"][i] >= rr * r["s1"] and r["s1"] > 0]
            hit += bool(set(sl) & r["gold"])
            size.append(len(sl))
        print(f"| r={rr} | {hit}/{len(res)} | {statistics.mean(size):.2f} |")
    print()


def no_company():
    """Queries sharing no issuer-name / ticker / glued-stem term with any filing."""
    generic = {"inc", "corporation", "corp", "company", "co", "international", "holding",
               "holdings", "group", "ltd", "plc", "llc"}
    names = set()
    for f, p in P.items():
        h = p["h"]
        names |= set(tokens(h["issuer"] + " " + h["ticker"], False)) - generic
        names |= set(tokens(company_of(f).replace("_", " "), False))
    print("## Step 4: queries naming no company\n")
    rows = []
    for q in Q:
        qt = set(tokens(norm_glue(q["query"]), False))
        hit = sorted(qt & names)
        if not hit:
            rows.append(q)
    print(f"{len(rows)}/{len(Q)} queries contain no issuer name, ticker or file-stem company word:\n")
    for q in rows:
        print(f"- {q['id'][-5:]} ({q['gold'][0]['doc']}): {q['query'][:110]}")
    print()
    return rows


if __name__ == "__main__":
    table_variants()
    table_norms()
    confidence("stem+hdr")
    confidence("stem+hdr@p2*0.1", "fymax+glue")
    no_company()
