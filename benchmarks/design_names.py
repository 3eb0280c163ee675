"""Issue 27's count: per design, the modules outside `designs/` whose code names it.

Names and strings count; comments and docstrings do not. A design is named by its code in
either casing, alone or inside an identifier ("D1", "d4_", "_D1_BREAKDOWNS").

    .venv/bin/python benchmarks/design_names.py [PACKAGE_DIR]   (default: resume_auditor)

Run it on an older tree (`git archive REV | tar -x -C DIR`, then DIR/resume_auditor) for
the before figure.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from devtools.code_names import named_tokens  # noqa: E402


def mentions(source: str, design: int) -> int:
    return len(named_tokens(source, re.compile(rf"(?<![a-z0-9])d{design}(?![0-9])", re.I)))


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "resume_auditor")
    files = [f for f in sorted(root.rglob("*.py")) if "designs" not in f.relative_to(root).parts]
    sources = {str(f.relative_to(root)): f.read_text(encoding="utf-8") for f in files}
    for design in range(1, 6):
        hits = {name: n for name, src in sources.items() if (n := mentions(src, design))}
        listed = ", ".join(f"{k} ({v})" for k, v in sorted(hits.items(), key=lambda kv: -kv[1]))
        print(f"D{design}: {len(hits)} modules outside designs/ name it in code: {listed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
