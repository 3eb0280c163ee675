"""Issue 27's count: per design, the modules outside `designs/` whose code names it.

Names and strings count; comments and docstrings do not. A design is named by its code in
either casing, alone or inside an identifier ("D1", "d4_", "_D1_BREAKDOWNS").

    .venv/bin/python benchmarks/design_names.py [PACKAGE_DIR]   (default: resume_auditor)

Run it on an older tree (`git archive REV | tar -x -C DIR`, then DIR/resume_auditor) for
the before figure.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from pathlib import Path


def _docstring_lines(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return out


def mentions(source: str, design: int) -> int:
    pattern = re.compile(rf"(?<![a-z0-9])d{design}(?![0-9])", re.IGNORECASE)
    docs = _docstring_lines(ast.parse(source))
    return sum(
        1
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type in (tokenize.NAME, tokenize.STRING)
        and tok.start[0] not in docs
        and pattern.search(tok.string)
    )


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
