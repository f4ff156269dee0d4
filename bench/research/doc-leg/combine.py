"""Step 5 (extra): combine the doc leg with a page-level BM25 (pages as chunks, no stemming,
as in the data README's reference) over all 33 filings.

Run: python3 bench/research/doc-leg/combine.py
"""
import statistics

from common import BM25, pages, queries, ranking, tokens
from rank import FILES, Q, doc_scores

DOC_CFG = [("stem+hdr", "fy+glue"), ("stem+hdr@p2*0.1", "fymax+glue")]

PAGES = []  # (file, 1-based page)
toks = []
for f in FILES:
    for i, p in enumerate(pages(f)):
        PAGES.append((f, i + 1))
        toks.append(tokens(p, do_stem=False))
bm = BM25(toks)
page_runs = []
for q in Q:
    s = bm.scores(tokens(q["query"], do_stem=False))
    page_runs.append((s, ranking(s)))


def evaluate(rank_lists):
    out = {5: [], 10: [], 20: [], "mrr": []}
    for q, order in zip(Q, rank_lists):
        gold = {(g["doc"], g["page"]) for g in q["gold"]}
        top = [PAGES[i] for i in order[:20]]
        for k in (5, 10, 20):
            out[k].append(len(gold & set(top[:k])) / len(gold))
        rr = next((1 / (j + 1) for j, p in enumerate(top[:10]) if p in gold), 0.0)
        out["mrr"].append(rr)
    return [statistics.mean(out[k]) for k in (5, 10, 20, "mrr")]


def restrict(order, docs):
    docs = set(docs)
    return [i for i in order if PAGES[i][0] in docs]


def strategies(cfg, norm):
    rows = {}
    base = [o for _, o in page_runs]
    rows["pages only (baseline)"] = base
    rows["oracle: restrict to gold filing"] = [
        restrict(o, {g["doc"] for g in q["gold"]}) for q, (_, o) in zip(Q, page_runs)]
    dsc = [doc_scores(cfg, q["query"], norm) for q in Q]
    dord = [ranking(s) for s in dsc]
    rows["restrict to doc top-1 always"] = [
        restrict(o, [FILES[d[0]]]) for (_, o), d in zip(page_runs, dord)]
    for x in (1.1, 1.2, 1.3):
        lst = []
        for (_, o), s, d in zip(page_runs, dsc, dord):
            s1, s2 = s[d[0]], s[d[1]]
            lst.append(restrict(o, [FILES[d[0]]]) if s1 > 0 and s1 >= x * s2 else o)
        rows[f"restrict to top-1 if s1>={x}*s2, else all"] = lst
    for r in (0.8, 0.5):
        lst = []
        for (_, o), s, d in zip(page_runs, dsc, dord):
            keep = [FILES[i] for i in d if s[d[0]] > 0 and s[i] >= r * s[d[0]]]
            lst.append(restrict(o, keep) if keep else o)
        rows[f"restrict to shortlist score>={r}*s1"] = lst
    for w, kd in ((1, 60), (1, 10), (1, 2), (3, 2)):
        lst = []
        for (_, o), d in zip(page_runs, dord):
            drank = {FILES[di]: j + 1 for j, di in enumerate(d)}
            prank = {pi: j + 1 for j, pi in enumerate(o[:1000])}
            fused = {pi: 1 / (60 + prank.get(pi, 1001)) + w / (kd + drank[PAGES[pi][0]])
                     for pi in range(len(PAGES))}
            lst.append(sorted(fused, key=lambda pi: -fused[pi]))
        rows[f"RRF: 1/(60+page rank) + {w}/({kd}+doc rank)"] = lst
    return rows


if __name__ == "__main__":
    print(f"{len(PAGES)} pages\n")
    for cfg, norm in DOC_CFG:
        print(f"## Step 5: page BM25 combined with doc leg `{cfg}`, query norm `{norm}`\n")
        print("| strategy | page R@5 | R@10 | R@20 | MRR@10 |")
        print("|---|---|---|---|---|")
        for name, lst in strategies(cfg, norm).items():
            m = evaluate(lst)
            print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in m) + " |")
        print()
