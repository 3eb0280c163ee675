"""Where a module's code (names and strings, not comments or docstrings) names a design.

Issue 27's tests (the report and the views name no design) and its benchmarks (the count
of modules outside designs/, the newcomer's path) ask the same question of a source file.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

# a design's code alone or inside an identifier: "d1", "D2", d1_cells, _D1_TITLES
DESIGN_CODE = re.compile(r"(?<![A-Za-z0-9])[dD][1-9](?![0-9])")


def docstring_lines(tree: ast.AST) -> set[int]:
    """The lines of every module, class and function docstring."""
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


def named_tokens(source: str, pattern: re.Pattern[str] = DESIGN_CODE) -> list[tuple[int, str]]:
    """(line, token) of each name or string of the code that `pattern` finds."""
    docs = docstring_lines(ast.parse(source))
    return [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type in (tokenize.NAME, tokenize.STRING)
        and tok.start[0] not in docs
        and pattern.search(tok.string)
    ]
