#!/usr/bin/env python3
"""Functions longer than a screenful: `scripts/long-functions.py [LIMIT] [CRATE_DIR...]`.

Reads every `.rs` file under each crate's `src/` (all crates by default; benches, examples
and `tests/` folders are not under `src/`) and measures each `fn` from its first line to the
closing brace at its own indentation, as `cargo fmt` lays it out. Prints each function over
LIMIT lines (100 by default) with its length, longest first, and exits 1 when there is one,
so that CI keeps the house's rule.
"""

import re
import sys
from pathlib import Path

FN = re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)")


def long_functions(path: Path, limit: int):
    lines = path.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m or line.rstrip().endswith(";"):
            continue
        indent = m.group(1)
        end = i + 1
        while end < len(lines):
            closing = lines[end]
            if closing.startswith(indent + "}") and len(closing) - len(closing.lstrip()) == len(indent):
                break
            end += 1
        length = end - i + 1
        if length > limit:
            yield length, m.group(2)


def main() -> int:
    args = sys.argv[1:]
    limit = int(args.pop(0)) if args and args[0].isdigit() else 100
    root = Path(__file__).resolve().parent.parent
    crates = [Path(a) for a in args] or sorted((root / "crates").iterdir())
    found = []
    for crate in crates:
        for path in sorted((crate / "src").rglob("*.rs")):
            for length, name in long_functions(path, limit):
                found.append((length, f"{path.relative_to(root)}::{name}"))
    for length, where in sorted(found, reverse=True):
        print(f"{length:5} lines  {where}", file=sys.stderr)
    if found:
        print(f"{len(found)} function(s) over {limit} lines: split each into named steps", file=sys.stderr)
        return 1
    print(f"no function over {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
