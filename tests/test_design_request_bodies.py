"""Designs as units (issue 27): moving a design into its folder changes no request.

The ukey, repeat, cell, shown variants, reader's context and the sha256 of the
stored body of every request of the sample study (D1-D4, plus a small D5), as the
app built them before D4 moved into `designs/d4_faire/` (commit 815a586), are in
`migration_data/sample-requests.json.gz`. The response cache keys on the body and
queuing keys on the ukey, so one byte of difference would re-ask (and re-pay) every
answer a user has. Rebuilt here from the same study, every one must be the same,
in the same order (case and variant ids come from the order cases are built).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from resume_auditor.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "resources" / "sample"
WANT = ROOT / "tests" / "migration_data" / "sample-requests.json.gz"


def _study(folder: Path) -> Path:
    text = (SAMPLE / "study.toml").read_text(encoding="utf-8")
    text = text.replace('file = "job.md"', f'file = "{SAMPLE / "job.md"}"')
    text = text.replace('"resumes/*.pdf"', f'"{SAMPLE / "resumes"}/*.pdf"')
    text += '\n[designs.d5]\ngroups = ["black_woman", "white_man", "asian_woman"]\n'
    text += "orders = 3\ntop_k = 1\n"
    path = folder / "study.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _requests(audit: Path) -> list[list[Any]]:
    with sqlite3.connect(audit) as db:
        rows = db.execute(
            "SELECT ukey, rep, cell, variants_json, context_json, body, body_sha256 "
            "FROM request ORDER BY id"
        ).fetchall()
    return [
        [u, rep, cell, json.loads(v), json.loads(ctx), hashlib.sha256(body).hexdigest(), sha]
        for u, rep, cell, v, ctx, body, sha in rows
    ]


def test_the_sample_studys_requests_are_byte_for_byte_what_they_were(tmp_path: Path) -> None:
    out = tmp_path / "sample.audit"
    # Nothing is sent: --prepare-only builds the cases and queues the requests.
    args = ["--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1"]
    args += ["--model", "sim"]
    assert main(["audit", str(_study(tmp_path)), "--out", str(out), "--prepare-only", *args]) == 0
    got = _requests(out)
    want = json.loads(gzip.decompress(WANT.read_bytes()))
    assert {r[0].split(":")[0] for r in want} >= {"pair", "d2", "d3", "d4", "d5"}
    assert sum(1 for r in want if r[0].startswith("d4:batch:")) > 0
    assert len(got) == len(want)
    for mine, theirs in zip(got, want, strict=True):
        assert mine == theirs, theirs[0]
