"""Split corpus markdown/txt files into ~200-token passages -> passages.json (list of str).
Paragraphs (blank-line separated) are joined until adding the next would pass 200 wordpiece
tokens; a single paragraph over 220 tokens is cut by words. Files are interleaved round-robin so
the first 256 passages (speed set) mix all 7 files."""
import glob, json, os, re
from tokenizers import Tokenizer

tok = Tokenizer.from_file(os.path.expanduser("~/.cache/strata/models/all-MiniLM-L6-v2/tokenizer.json"))
tok.no_truncation(); tok.no_padding()
n = lambda s: len(tok.encode(s, add_special_tokens=False).ids)
files = sorted(glob.glob("/work/shared/data/corpus/markdown/*.md") + glob.glob("/work/shared/data/corpus/txt/*.txt"))
per_file = []
for f in files:
    text = open(f, encoding="utf-8", errors="replace").read()
    paras = [re.sub(r"[ \t]+", " ", p).strip() for p in re.split(r"\n\s*\n", text)]
    paras = [p for p in paras if len(p) > 20]
    out, cur, cn = [], [], 0
    for p in paras:
        pn = n(p)
        if pn > 220:
            words, chunk = p.split(), []
            for wd in words:
                chunk.append(wd)
                if len(chunk) % 20 == 0 and n(" ".join(chunk)) >= 200:
                    out.append(" ".join(chunk)); chunk = []
            if chunk: p, pn = " ".join(chunk), n(" ".join(chunk))
            else: continue
        if cn + pn > 200 and cur:
            out.append("\n\n".join(cur)); cur, cn = [], 0
        cur.append(p); cn += pn
    if cur: out.append("\n\n".join(cur))
    out = [o for o in out if n(o) >= 30]
    per_file.append(out)
    print(f, len(out))
mixed = []
i = 0
while any(i < len(x) for x in per_file):
    for x in per_file:
        if i < len(x): mixed.append(x[i])
    i += 1
lens = [n(m) for m in mixed]
print("passages", len(mixed), "mean tokens", sum(lens) / len(lens), "first256 mean", sum(lens[:256]) / 256)
json.dump(mixed, open("./passages.json", "w"))
