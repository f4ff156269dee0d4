#!/usr/bin/env python3
"""OCR speed and peak memory: `strata ingest` against `ocrmypdf`, on the same scanned pages.

Usage: bench/ocr.py STRATA_BIN OCRMYPDF_BIN SCAN.pdf... > results

Each side runs on every file in turn, twice, interleaved (strata, ocrmypdf, strata, ...),
one file at a time, with the same cores. Peak memory is the largest sum of the resident sets
of the command's whole process tree (ocrmypdf runs Tesseract and Ghostscript as child
processes, strata runs pdftoppm), sampled every 20 ms from /proc. Pages per second are the
pages of all files over the summed wall time of the faster of the two runs of each file.
After each strata run, `ingest --force` of the same file into the same index measures a
re-ingest whose pages all come from the index's OCR cache.

strata: `strata --index TMP ingest --ocr force FILE` with the dense leg off (its OCR, layout,
chunking and keyword index, one OCR worker per core). ocrmypdf: `ocrmypdf --force-ocr
--output-type pdf --optimize 0 -j CORES FILE OUT` (its default pipeline minus the PDF/A
conversion and image optimization, so it does no more than OCR and writing the text layer).
"""

import os
import subprocess
import sys
import tempfile
import time


def tree_rss(pid):
    """Resident bytes of `pid` and its descendants."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            pass
    return total


def run(cmd, env=None):
    """Wall seconds and peak tree RSS of `cmd`."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.02)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"{cmd} failed: {proc.stderr.read().decode()[-2000:]}")
    return wall, peak


def pages(pdf):
    out = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout
    return int(next(l.split()[-1] for l in out.splitlines() if l.startswith("Pages:")))


def main():
    strata, ocrmypdf, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    cores = os.cpu_count()
    env = dict(os.environ, STRATA_DENSE_ENABLED="false")
    best = {"strata": {}, "ocrmypdf": {}}
    cached = {}
    for rep in range(2):
        for pdf in files:
            with tempfile.TemporaryDirectory() as tmp:
                wall, peak = run([strata, "--index", f"{tmp}/index", "ingest", "--quiet", "--ocr", "force", pdf], env)
                print(f"run {rep + 1} strata   {os.path.basename(pdf)}: {wall:.1f} s, peak {peak / 2**20:.0f} MiB", flush=True)
                prev = best["strata"].get(pdf, (1e9, 0))
                best["strata"][pdf] = (min(prev[0], wall), max(prev[1], peak))
                wall, peak = run([strata, "--index", f"{tmp}/index", "ingest", "--quiet", "--ocr", "force", "--force", pdf], env)
                print(f"run {rep + 1} strata   {os.path.basename(pdf)} again, from the OCR cache: {wall:.2f} s", flush=True)
                cached[pdf] = min(cached.get(pdf, 1e9), wall)
                wall, peak = run([ocrmypdf, "--force-ocr", "--output-type", "pdf", "--optimize", "0", "-j", str(cores), "-q", pdf, f"{tmp}/out.pdf"])
                print(f"run {rep + 1} ocrmypdf {os.path.basename(pdf)}: {wall:.1f} s, peak {peak / 2**20:.0f} MiB", flush=True)
                prev = best["ocrmypdf"].get(pdf, (1e9, 0))
                best["ocrmypdf"][pdf] = (min(prev[0], wall), max(prev[1], peak))
    n = sum(pages(f) for f in files)
    print(f"\n{n} pages in {len(files)} files, {cores} cores")
    rates = {}
    for side, runs in best.items():
        wall = sum(w for w, _ in runs.values())
        peak = max(p for _, p in runs.values())
        rates[side] = (n / wall, peak)
        print(f"{side:9} {n / wall:.2f} pages/s ({wall:.1f} s), peak {peak / 2**20:.0f} MiB")
    wall = sum(cached.values())
    print(f"strata re-ingest from its OCR cache: {n / wall:.1f} pages/s ({wall:.2f} s)")
    print(f"ratio strata/ocrmypdf: {rates['strata'][0] / rates['ocrmypdf'][0]:.2f}x pages/s, "
          f"{rates['strata'][1] / rates['ocrmypdf'][1]:.2f}x peak memory")


if __name__ == "__main__":
    main()
