"""What each model was found to accept or refuse, kept in `model-capabilities.json`.

providers/capabilities.py learns these findings from a server's 400 answers (and
decides how long one stays fresh); this module keeps them. Version 1 is the
format the app wrote from the start: {"version": 1, "models": {key: {feature:
{"ok": true/false, "checked": ISO time}}}}. A second program's findings written
meanwhile are merged in, not overwritten (document.JsonSettings.update).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from resume_auditor.settings.document import Format, Json, JsonSettings, require, table
from resume_auditor.settings.folder import settings_folder

CAPABILITIES_FILE = "model-capabilities.json"


@dataclass(frozen=True)
class Finding:
    """Whether a model accepted a feature, and when that was checked."""

    ok: bool
    checked: datetime


Findings = dict[str, dict[str, Finding]]  # model key -> feature -> finding


def _finding(where: str, raw: Any) -> Finding:
    entry = table(raw, where)
    ok = entry.get("ok")
    require(isinstance(ok, bool), f"{where}: ok should be true or false")
    try:
        checked = datetime.fromisoformat(str(entry.get("checked")))
    except ValueError as exc:
        raise ValueError(f"{where}: checked is not a date and time") from exc
    return Finding(bool(ok), checked)


def _parse(data: Json) -> Findings:
    models = table(data.get("models", {}), "models")
    return {
        key: {f: _finding(f"{key}: {f}", v) for f, v in table(features, key).items()}
        for key, features in models.items()
    }


def _dump(findings: Findings) -> Json:
    return {
        "models": {
            key: {
                f: {"ok": x.ok, "checked": x.checked.isoformat(timespec="seconds")}
                for f, x in features.items()
            }
            for key, features in findings.items()
        }
    }


CAPABILITIES: Format[Findings] = Format(
    name=CAPABILITIES_FILE,
    version=1,
    what="which settings each model accepts",
    parse=_parse,
    dump=_dump,
    default=dict,
    legacy_has_no_version=False,
)


def capabilities_file(path: Path | None = None) -> JsonSettings[Findings]:
    return JsonSettings(CAPABILITIES, path or settings_folder() / CAPABILITIES_FILE)


def merge_findings(current: Findings, new: Findings) -> Findings:
    """`current` with every finding of `new` laid over it, feature by feature."""
    out = {key: dict(features) for key, features in current.items()}
    for key, features in new.items():
        out.setdefault(key, {}).update(features)
    return out
