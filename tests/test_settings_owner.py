"""Nothing outside resume_auditor/settings writes the per-user settings files.

Import-linter cannot see a file write, so this reads the code: outside the
settings package, no module may reach the data folder (`data_dir`) except those
listed here with their reason, and none may name a settings file.
"""

from __future__ import annotations

import ast
from pathlib import Path

from resume_auditor.settings.app import APP_FILE, LEGACY_INI
from resume_auditor.settings.capabilities import CAPABILITIES_FILE
from resume_auditor.settings.memory import LIMITS_FILE, SPEED_FILE
from resume_auditor.settings.power import POWER_FILE
from resume_auditor.settings.prices import PRICE_FILE
from resume_auditor.settings.thresholds import USER_THRESHOLDS

PACKAGE = Path(__file__).resolve().parents[1] / "resume_auditor"
SETTINGS_FILES = {
    APP_FILE,
    LEGACY_INI,
    CAPABILITIES_FILE,
    LIMITS_FILE,
    SPEED_FILE,
    POWER_FILE,
    PRICE_FILE,
    USER_THRESHOLDS,
}
# Modules outside settings/ that may use the data folder, and why.
DATA_DIR_USERS = {
    "paths.py": "defines it",
    "store/cache.py": "the shared answer cache: a SQLite store, not a setting (it sets a "
    "damaged database aside itself)",
    "prompts/presets.py": "reads the user's own prompt presets folder; never writes it",
}


def _outside_settings() -> list[tuple[str, ast.Module]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("settings/"):
            continue
        out.append((rel, ast.parse(path.read_text(encoding="utf-8"))))
    return out


def test_only_the_listed_modules_reach_the_data_folder() -> None:
    users = set()
    for rel, tree in _outside_settings():
        for node in ast.walk(tree):
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.attr
                if isinstance(node, ast.Attribute)
                else None
            )
            imported = isinstance(node, ast.ImportFrom) and any(
                a.name == "data_dir" for a in node.names
            )
            if name == "data_dir" or imported:
                users.add(rel)
    assert users == set(DATA_DIR_USERS), (
        "a module outside resume_auditor/settings uses data_dir(): settings files are "
        "read and written through resume_auditor/settings only"
    )


def test_no_module_outside_settings_names_a_settings_file() -> None:
    named = []
    for rel, tree in _outside_settings():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in SETTINGS_FILES:
                named.append((rel, str(node.value)))
    assert named == []


WRITES = {"write_text", "write_bytes", "unlink", "rename", "rmdir", "mkstemp"}


def _writes(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        return "open"
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in WRITES:
        return func.attr
    # os.replace renames a file; str.replace and dataclasses.replace do not
    if func.attr == "replace" and isinstance(func.value, ast.Name) and func.value.id == "os":
        return "os.replace"
    return None


def test_inside_settings_only_files_py_writes() -> None:
    """The package's other modules say what to write; files.py does every write."""
    writers = set()
    for path in sorted((PACKAGE / "settings").glob("*.py")):
        if path.name == "files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and (what := _writes(node)):
                writers.add((path.name, what))
    assert writers == set()
