#!/usr/bin/env python3
"""Import circles between the files of each crate: `scripts/file-cycles.py [CRATE_DIR...]`.

A file `a.rs` reaches `b.rs` when it names a path into `b` (`use crate::b::X`,
`super::b::f()`, `crate::{a::Y, b::X}`); declaring a child module (`mod b;`) is not a
reference. Files that reach each other, directly or round a loop, form a circle: the script
prints each circle and exits 1 when there is one, so CI keeps the house free of them.
Test files (`tests.rs`, `*_tests.rs`, `tests/`) are left out: a test reads its parent by
design.
"""

import re
import sys
from pathlib import Path

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def modules(src: Path) -> dict:
    """Module path (tuple) -> file, for every .rs file under `src`."""
    out = {}
    for f in src.rglob("*.rs"):
        parts = list(f.relative_to(src).with_suffix("").parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts.pop()
        out[tuple(parts)] = f
    return out


def strip(text: str) -> str:
    """The text without comments and string literals."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def paths(text: str):
    """Every `crate::…` and `super::…` path, use-tree groups expanded."""
    for m in re.finditer(r"\b(crate|super)((?:\s*::\s*(?:super|[A-Za-z_][A-Za-z0-9_]*))*)\s*::\s*(\{)?", text):
        head = [m.group(1)] + [p.strip() for p in m.group(2).split("::") if p.strip()]
        if m.group(3):
            yield from group(text, m.end(), head)
        else:
            tail = WORD.match(text, m.end())
            yield head + ([tail.group(0)] if tail else [])


def group(text: str, at: int, head: list):
    """Paths of the use-tree group opening at `at`."""
    depth, start, items = 1, at, []
    i = at
    while depth:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if (c == "," and depth == 1) or depth == 0:
            items.append(text[start:i])
            start = i + 1
        i += 1
    for item in items:
        item = item.strip()
        if not item:
            continue
        if "{" in item:
            prefix = [p.strip() for p in item[: item.index("{")].split("::") if p.strip()]
            yield from group(item, item.index("{") + 1, head + prefix)
        else:
            yield head + [p.strip() for p in item.split(" as ")[0].split("::") if p.strip()]


def target(mods: dict, here: tuple, path: list):
    """The file a path lands in: its longest prefix that is a module."""
    base = list(here)
    if path[0] == "crate":
        base, rest = [], path[1:]
    else:
        rest = path
        while rest and rest[0] == "super":
            base = base[:-1]
            rest = rest[1:]
    best = tuple(base)
    for k in range(1, len(rest) + 1):
        if tuple(base + rest[:k]) in mods:
            best = tuple(base + rest[:k])
    return best if best in mods else None


def is_test(f: Path) -> bool:
    return f.name == "tests.rs" or f.name.endswith("_tests.rs") or "tests" in f.parts[:-1]


def circles(src: Path) -> list:
    mods = modules(src)
    edges = {m: set() for m in mods}
    for here, f in mods.items():
        if is_test(f):
            continue
        for path in paths(strip(f.read_text())):
            to = target(mods, here, path)
            if to is not None and to != here and not is_test(mods[to]):
                # A child's module is its own; a path into a parent module is a reference.
                edges[here].add(to)
    return [c for c in sccs(edges) if len(c) > 1]


def sccs(edges: dict) -> list:
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    crates = [Path(a) for a in sys.argv[1:]] or sorted((root / "crates").iterdir())
    found = 0
    for crate in crates:
        src = crate / "src"
        if not src.is_dir():
            continue
        for c in circles(src):
            found += 1
            names = sorted("/".join(m) or "lib" for m in c)
            print(f"{crate.name}: {', '.join(names)}")
    if found:
        print(f"{found} import circle(s) between files; break each by moving the shared item to the file it belongs to")
        return 1
    print("no import circles between files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
