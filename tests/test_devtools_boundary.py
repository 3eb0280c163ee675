"""Test support stays out of the product (issue 19).

The provider simulator, corpus builders and planted-bias generators live in
tests/devtools (imported as `devtools`) so no wheel or frozen app carries them.
Two guards keep product code from needing them again: import-linter's forbidden
contract in pyproject.toml (run by test_quality.py), and the AST walk below, which
also catches an import hidden inside a function or a string handed to importlib.
Each guard is shown failing on a planted import, so neither can pass vacuously.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ROOT / "resume_auditor"
TEST_SUPPORT = ("devtools", "tests")


def _imported(node: ast.AST) -> list[str]:
    """Module names an AST node imports, importlib/__import__ string arguments included."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
            return [node.args[0].value]
    return []


def support_imports(package: Path) -> list[str]:
    """Every `file:line module` under `package` that imports test support."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for module in _imported(node):
                if module.split(".")[0] in TEST_SUPPORT:
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno} {module}")
    return found


def test_product_code_never_imports_test_support() -> None:
    assert support_imports(PRODUCT) == []


def test_the_walk_catches_a_planted_import(tmp_path: Path) -> None:
    package = tmp_path / "resume_auditor"
    (package / "stats").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "stats" / "__init__.py").write_text("import json\n")
    (package / "stats" / "late.py").write_text(
        "def f():\n"
        "    from devtools.simulate import simulate_d1\n"
        "    return simulate_d1\n"
        "import importlib\n"
        "g = importlib.import_module('tests.devtools.synthetic')\n"
    )
    assert support_imports(package) == [
        "resume_auditor/stats/late.py:2 devtools.simulate",
        "resume_auditor/stats/late.py:5 tests.devtools.synthetic",
    ]


def test_the_import_linter_contract_breaks_on_a_planted_import(tmp_path: Path) -> None:
    """The pyproject contract, run on a copy of the product with one forbidden import added."""
    exe = Path(sys.executable).parent / "lint-imports"
    if not exe.exists():
        found = shutil.which("lint-imports")
        if found is None:
            pytest.fail("lint-imports is not installed: install the 'dev' extra")
        exe = Path(found)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if "test support" in c["name"]]
    assert set(contract["forbidden_modules"]) == set(TEST_SUPPORT)
    shutil.copytree(PRODUCT, tmp_path / "resume_auditor", ignore=shutil.ignore_patterns("*.pyc"))
    lines = [
        "[importlinter]",
        "root_package = resume_auditor",
        "include_external_packages = True",
        "[importlinter:contract:test-support]",
        f"name = {contract['name']}",
        "type = forbidden",
        "source_modules =",
        *(f"    {m}" for m in contract["source_modules"]),
        "forbidden_modules =",
        *(f"    {m}" for m in contract["forbidden_modules"]),
    ]
    (tmp_path / ".importlinter").write_text("\n".join(lines) + "\n")

    def lint() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(exe), "--no-cache"],
            cwd=tmp_path,
            env={"PYTHONPATH": str(tmp_path), "PATH": ""},
            capture_output=True,
            text=True,
            timeout=300,
        )

    clean = lint()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (tmp_path / "resume_auditor" / "report" / "planted.py").write_text(
        "def f():\n    from devtools.simulator import Simulator\n    return Simulator\n"
    )
    broken = lint()
    assert broken.returncode != 0
    assert "resume_auditor.report.planted -> devtools" in broken.stdout


def test_the_package_list_ships_no_test_support() -> None:
    """setuptools' package find (pyproject) gives the wheel resume_auditor's packages only."""
    from setuptools import find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    find = config["tool"]["setuptools"]["packages"]["find"]
    packages = find_packages(str(ROOT), include=find["include"], exclude=find.get("exclude", ()))
    assert "resume_auditor" in packages
    assert not [p for p in packages if p.split(".")[0] != "resume_auditor" or "devtools" in p]
    assert not (PRODUCT / "devtools").exists()
