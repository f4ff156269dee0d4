#!/usr/bin/env python3
"""Summarizes a run of scripts/bench/eval-sets.sh: one table of set x strategy.

Usage: scripts/bench/suite-summary.py OUT [SET...]

Reads OUT/SET/report.json for each set (all five by default) and OUT.times, and writes
OUT/summary.md and OUT/summary.json (also printed):

- recall@10 / MRR@10 of every strategy on every set, the recall being the one the set's
  gold calls for: page recall on financebench-dev, span recall (the share of gold bytes
  covered) on the span sets (chroma, cuad, qasper), the share of gold chunks on
  anthropic-codebase;
- for each set, the default mode's distance to the best strategy on each of the two;
- the guardrails: anthropic recall@10 and chroma span recall@5;
- what each ingest embedded and reused (the vector cache), and each set's wall time.
"""
import json
import os
import sys

SETS = ["anthropic", "chroma", "finance", "cuad", "qasper"]
RECALL = {
    "anthropic": "recall@10",
    "chroma": "span_recall@10",
    "finance": "page_recall@10",
    "cuad": "span_recall@10",
    "qasper": "span_recall@10",
}
GUARDS = {"anthropic": "recall@10", "chroma": "span_recall@5"}
DEFAULT = os.environ.get("SUITE_DEFAULT", "hierarchical")


def times(out):
    path = out.rstrip("/") + ".times"
    found = {}
    if os.path.exists(path):
        for line in open(path):
            parts = line.split()
            if len(parts) == 3:
                found[parts[0]] = (parts[1], parts[2])
    return found


def summarize(out, sets):
    wall = times(out)
    summary = {"sets": {}}
    for s in sets:
        path = os.path.join(out, s, "report.json")
        if not os.path.exists(path):
            summary["sets"][s] = {"missing": path, "wall": wall.get(s)}
            continue
        report = json.load(open(path))
        rows = {}
        for row in report["rows"]:
            m = row["metrics"]
            rows.setdefault(row["ingest"], {})[row["strategy"]] = {
                "recall": m.get(RECALL[s]),
                "mrr": m.get("mrr@10"),
                "guard": m.get(GUARDS[s]) if s in GUARDS else None,
            }
        ingests = {
            label: {k: stats.get(k) for k in ("chunks", "embedded", "reused", "seconds", "embed_seconds")}
            for label, stats in report["ingests"].items()
        }
        summary["sets"][s] = {
            "dataset": report["dataset"],
            "recall_metric": RECALL[s],
            "rows": rows,
            "ingests": ingests,
            "wall": wall.get(s),
            "seconds": report.get("seconds"),
        }
    return summary


def fmt(x):
    return "—" if x is None else f"{x:.3f}"


def markdown(summary, out):
    lines = [f"# Suite run: {out}", ""]
    strategies = []
    for s in summary["sets"].values():
        for by in s.get("rows", {}).values():
            strategies += [k for k in by if k not in strategies]
    lines.append("recall@10 / MRR@10; the recall is the set's own (`recall` column).")
    lines.append("")
    lines.append("| set | ingest | recall | " + " | ".join(strategies) + " | default − best (recall, MRR) |")
    lines.append("|---|---|---|" + "---|" * len(strategies) + "---|")
    for name, s in summary["sets"].items():
        if "missing" in s:
            lines.append(f"| {name} | missing: {s['missing']} |")
            continue
        for ingest, by in s["rows"].items():
            cells = []
            for k in strategies:
                r = by.get(k)
                cells.append("" if r is None else f"{fmt(r['recall'])} / {fmt(r['mrr'])}")
            gap = "—"
            if DEFAULT in by:
                best_r = max(r["recall"] or 0 for r in by.values())
                best_m = max(r["mrr"] or 0 for r in by.values())
                d = by[DEFAULT]
                gap = f"{(d['recall'] or 0) - best_r:+.3f}, {(d['mrr'] or 0) - best_m:+.3f}"
            lines.append(f"| {name} | {ingest} | {s['recall_metric']} | " + " | ".join(cells) + f" | {gap} |")
    lines += ["", "Guardrails (no loss over .01): anthropic recall@10, chroma span recall@5.", ""]
    for name in GUARDS:
        s = summary["sets"].get(name, {})
        for ingest, by in s.get("rows", {}).items():
            cells = ", ".join(f"{k} {fmt(r['guard'])}" for k, r in by.items())
            lines.append(f"- {name} ({ingest}), {GUARDS[name]}: {cells}")
    lines += ["", "| set | ingest | chunks | embedded | reused | embed s | set wall |", "|---|---|---|---|---|---|---|"]
    for name, s in summary["sets"].items():
        for label, i in s.get("ingests", {}).items():
            wall = s.get("wall")
            wall = f"{wall[1]} ({wall[0]})" if wall else "—"
            embed = i.get("embed_seconds")
            lines.append(
                f"| {name} | {label} | {i.get('chunks')} | {i.get('embedded')} | {i.get('reused')} | "
                f"{'—' if embed is None else f'{embed:.0f}'} | {wall} |"
            )
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    sets = sys.argv[2:] or SETS
    summary = summarize(out, sets)
    text = markdown(summary, out)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(text)


main()
