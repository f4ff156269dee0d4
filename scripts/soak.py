#!/usr/bin/env python3
"""Soak test of `strata serve` on loopback: mixed searches, ingests and removals against one
server for a while, the server's RSS sampled every 10 s, and at the end the same documents
searchable as a fresh ingest of the same files.

    python3 scripts/soak.py --bin target/release/strata --minutes 30 --out bench/results/soak

- Files: corpus documents (Markdown, text, HTML, DOCX) copied into a --root folder.
- Load: 6 search clients (modes keyword, exact, hybrid, hierarchical, dense in rotation over
  the queries below, k = 10, the default expansion) and one writer that, in a loop, removes a
  random document (DELETE /v1/documents/{id}) and ingests it again (POST /v1/documents with
  its path, polling the job), or re-ingests everything (unchanged files are skipped).
- Errors: any answer but 2xx, a failed job, or a transport error.
- End: every file ingested once more; the documents (id, chunks) must equal those of a fresh
  `strata ingest` of the same files into another index, and each document's title must find
  it (keyword, top 10) on the soaked server. Keyword rankings are compared as information:
  BM25's statistics still count removed documents until tantivy merges their segments.

Writes OUT/rss.tsv (seconds, RSS MB), OUT/summary.json and OUT/rss.svg (the curve), and
prints the summary. Needs ../shared/data/corpus and the model (scripts/fetch-models.sh).
"""
import argparse, json, os, random, shutil, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared/data/corpus"
FILES = [
    "markdown/openapi-spec-3.2.0.md",
    "txt/rfc7231-http11-semantics.txt",
    "txt/rfc9000-quic-unpaginated.txt",
    "html/usc-title35-patents.htm",
    "docx/usc-title13-census-converted.docx",
]
MODES = ["keyword", "exact", "hybrid", "hierarchical", "dense"]
QUERIES = [
    "confidentiality of census information", "section 9", "\"Bureau\" means",
    "how does a client learn which methods a resource supports", "Accept-Language",
    "section 6.5.1", "content negotiation", "retry after a 503 response",
    "what does the discriminator object do", "servers and server variables",
    "conditions for patentability", "section 102(b)", "connection migration",
    "stream flow control limits", "\"effective filing date\"", "patent term adjustment",
]


class Server:
    def __init__(self, bin_path, index, root, key, log):
        env = dict(os.environ, STRATA_API_KEYS=key, RUST_LOG="warn")
        env.pop("STRATA_CONFIG", None)
        self.proc = subprocess.Popen(
            [bin_path, "--index", str(index), "serve", "--addr", "127.0.0.1:0", "--root", str(root)],
            stderr=open(log, "w"), env=env)
        for _ in range(300):
            text = Path(log).read_text()
            if "listening on " in text:
                self.base = text.split("listening on ", 1)[1].split()[0]
                break
            if self.proc.poll() is not None:
                sys.exit(f"soak: the server exited:\n{text}")
            time.sleep(0.1)
        else:
            sys.exit("soak: the server did not start in 30 s")
        self.key = key

    def call(self, method, path, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.key}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None)

    def rss_mb(self):
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def ingest(self, paths):
        job = self.call("POST", "/v1/documents", {"paths": paths})[1]["job"]
        while job["state"] in ("queued", "running"):
            time.sleep(0.5)
            _, job = self.call("GET", f"/v1/jobs/{job['id']}")
        if job["state"] != "done":
            raise RuntimeError(f"job failed: {job.get('error')}")
        return job

    def documents(self):
        return self.call("GET", "/v1/documents")[1]


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {"searches": 0, "ingests": 0, "removals": 0, "errors": 0}
        self.first_errors = []

    def add(self, what, error=None):
        with self.lock:
            self.counts[what] += 1
            if error is not None:
                self.counts["errors"] += 1
                if len(self.first_errors) < 10:
                    self.first_errors.append(f"{what}: {error}")


def searcher(server, tally, stop, seed):
    rng = random.Random(seed)
    while not stop.is_set():
        body = {"query": rng.choice(QUERIES), "mode": rng.choice(MODES), "k": 10}
        try:
            server.call("POST", "/v1/search", body)
            tally.add("searches")
        except (urllib.error.URLError, OSError, ValueError) as e:
            tally.add("searches", e)


def writer(server, tally, stop, paths):
    rng = random.Random(7)
    while not stop.is_set():
        try:
            if rng.random() < 0.2:
                server.ingest(paths)
                tally.add("ingests")
                continue
            docs = server.documents()
            if not docs:
                server.ingest(paths)
                tally.add("ingests")
                continue
            doc = rng.choice(docs)
            server.call("DELETE", f"/v1/documents/{doc['id']}")
            tally.add("removals")
            server.ingest([doc["path"]])
            tally.add("ingests")
        except (urllib.error.URLError, OSError, ValueError, RuntimeError) as e:
            tally.add("ingests", e)
            time.sleep(1)


def fresh_documents(bin_path, index, paths):
    subprocess.run([bin_path, "--index", str(index), "ingest", "--quiet", *paths], check=True)
    out = subprocess.run([bin_path, "--index", str(index), "--json", "docs"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def svg(samples, path, minutes):
    w, h, pad = 640, 240, 40
    top = max(mb for _, mb in samples) * 1.1 or 1
    end = max(minutes * 60, samples[-1][0]) or 1
    pts = " ".join(f"{pad + t / end * (w - 2 * pad):.1f},{h - pad - mb / top * (h - 2 * pad):.1f}"
                   for t, mb in samples)
    ticks = "".join(
        f'<text x="{pad + m * 60 / end * (w - 2 * pad):.0f}" y="{h - pad + 16}" font-size="10" '
        f'text-anchor="middle">{m}</text>' for m in range(0, int(end // 60) + 1, 5))
    Path(path).write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}">'
        f'<rect width="{w}" height="{h}" fill="white"/>'
        f'<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="{pts}"/>'
        f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>{ticks}'
        f'<text x="{w / 2}" y="{h - 6}" font-size="11" text-anchor="middle">minutes</text>'
        f'<text x="{pad}" y="{pad - 8}" font-size="11">server RSS, MB (max {top / 1.1:.0f})</text>'
        '</svg>\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target/release/strata"))
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--out", default="soak-out")
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print(f"soak: skipped: {CORPUS} is absent")
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="strata-soak."))
    try:
        run(args, out, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args, out, work):
    root = work / "docs"
    root.mkdir()
    paths = []
    for f in FILES:
        dst = root / Path(f).name
        shutil.copy(CORPUS / f, dst)
        paths.append(str(dst.resolve()))
    server = Server(os.path.abspath(args.bin), work / "index", root, os.urandom(16).hex(), work / "serve.log")
    tally, stop = Tally(), threading.Event()
    server.ingest(paths)
    started = time.time()
    threads = [threading.Thread(target=searcher, args=(server, tally, stop, i)) for i in range(6)]
    threads.append(threading.Thread(target=writer, args=(server, tally, stop, paths)))
    for t in threads:
        t.start()
    samples = []
    with open(out / "rss.tsv", "w") as tsv:
        tsv.write("seconds\trss_mb\n")
        while time.time() - started < args.minutes * 60:
            t = time.time() - started
            samples.append((t, server.rss_mb()))
            tsv.write(f"{t:.0f}\t{samples[-1][1]:.1f}\n")
            tsv.flush()
            time.sleep(10)
    stop.set()
    for t in threads:
        t.join()
    samples.append((time.time() - started, server.rss_mb()))
    server.ingest(paths)
    soaked = {d["id"]: d["chunks"] for d in server.documents()}
    titles = {d["id"]: d["title"] for d in server.documents()}
    fresh = {d["id"]: d["chunks"] for d in fresh_documents(args.bin, work / "fresh", paths)}
    unfound = []
    for doc, title in titles.items():
        _, r = server.call("POST", "/v1/search", {"query": title, "mode": "keyword", "k": 10})
        if doc not in {h["doc_id"] for h in r["hits"]}:
            unfound.append(doc)
    server.proc.terminate()
    server.proc.wait(timeout=60)
    at = lambda minute: min(samples, key=lambda s: abs(s[0] - minute * 60))[1]
    end_minute = samples[-1][0] / 60
    summary = {
        "minutes": round(end_minute, 1), **tally.counts, "first_errors": tally.first_errors,
        "rss_mb_at_5_min": round(at(5), 1), "rss_mb_at_end": round(samples[-1][1], 1),
        "rss_mb_max": round(max(mb for _, mb in samples), 1),
        "rss_end_over_5_min": round(samples[-1][1] / at(5), 3) if at(5) else None,
        "documents_soaked": len(soaked), "documents_fresh": len(fresh),
        "lost_documents": sorted(set(fresh) - set(soaked)),
        "extra_documents": sorted(set(soaked) - set(fresh)),
        "chunk_counts_differ": sorted(d for d in fresh if d in soaked and soaked[d] != fresh[d]),
        "not_found_by_title": unfound,
        "machine": f"{os.cpu_count()} cores, {subprocess.run(['uname', '-sr'], capture_output=True, text=True).stdout.strip()}",
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    svg(samples, out / "rss.svg", args.minutes)
    print(json.dumps(summary, indent=2))
    ok = (summary["errors"] == 0 and not summary["lost_documents"] and not summary["extra_documents"]
          and not summary["chunk_counts_differ"] and not unfound)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
