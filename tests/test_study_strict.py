"""A study file is read strictly: typos are errors, and only resumes are sent.

A misspelt `provder` once ran the audit on the bundled model, and `~/.ssh/id_rsa`
listed as a resume was sent to the server the study named. These tests go
through `resume-auditor audit` as a user runs it.
"""

from __future__ import annotations

import io
import sqlite3
import zlib
from pathlib import Path

import pytest
from devtools.corpus import PASSWORD, build_corpus
from devtools.simulator import Simulator
from fake_keys import fake_key, fake_private_key

from resume_auditor.cli import main
from resume_auditor.documents.resumecheck import resume_refusal, secret_problem
from resume_auditor.domain.study import StudyError, study_from_dict
from resume_auditor.workflow.studyfile import read_study

PRIVATE_KEY = fake_private_key()


def _audit(study: Path, out: Path, *extra: str) -> int:
    return main(["audit", str(study), "--out", str(out), "--prepare-only", *extra])


def _edit(study: Path, old: str, new: str) -> None:
    text = study.read_text()
    assert old in text
    study.write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('provider = "local"', 'provder = "openai-compatible"', "Did you mean 'model.provider'"),
        ('groups = ["black_woman", "white_man"]', 'grups = ["black_woman"]', "'designs.d1.groups'"),
        ("[study]", 'provider = "openai"\n[study]', "did you mean 'model.provider'"),
        ("[run]", "[runn]", "Did you mean 'run'"),
        ("concurrency = 2", 'concurrency = "2"', "run.concurrency should be a whole number"),
        ("k = [1]", "k = [1]\nequal_pairs = 1", "designs.d1.equal_pairs should be true or false"),
        ("[model]", "[designs.d9]\nx = 1\n[model]", "Known keys here: d1, d2, d3, d4, d5"),
        ("[model]", "[designs.d5]\nbatchs = 2\n[model]", "designs.d5.batches"),
        (
            "[model]",
            '[generation]\ngenerators = [{provider = "openai", modle = "m"}]\n[model]',
            "generation.generators[0].modle",
        ),
        ('files = ["resumes/*.pdf"]', "files = 3", "resumes.files should be a string or a list"),
        # an empty list built no unequal pair and said nothing: validity unmeasured
        ("k = [1]", "k = []", "designs.d1: Unequal pairs need a size of difference"),
        ("k = [1]", "k = [1]\npair_types = []", "designs.d1: Unequal pairs need at least one"),
    ],
)
def test_typos_and_wrong_types_are_errors_that_say_what_to_fix(
    small_study: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    expected: str,
) -> None:
    _edit(small_study, old, new)
    out = tmp_path / "typo.audit"
    assert _audit(small_study, out) == 2
    err = capsys.readouterr().err
    assert expected in err, err
    assert "Traceback" not in err
    assert not out.exists()


def test_every_problem_is_listed_at_once(small_study: Path) -> None:
    _edit(small_study, "[run]", '[run]\nrepeets = 2\ntimeout = 3\nrepeats = "5"')
    with pytest.raises(StudyError) as caught:
        read_study(small_study)
    message = str(caught.value)
    assert "3 problems" in message
    assert "run.repeets" in message and "'run.repeats'" in message
    assert "run.timeout" in message and "'run.timeout_s'" in message
    assert "run.repeats should be a whole number, not the string '5'" in message


def test_settings_kept_in_an_audit_file_are_read_leniently() -> None:
    """A newer app may add settings; an older one still opens the file."""
    data = {"job": {"text": "x"}, "resumes": {"files": []}, "future": {"x": 1}}
    assert study_from_dict(data, require_sources=False).name == "Untitled audit"
    with pytest.raises(StudyError, match="future is not a study-file setting"):
        study_from_dict(data, require_sources=False, strict=True)


def test_a_key_file_and_a_dotenv_listed_as_resumes_are_never_sent(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    secret_key = home / ".ssh" / "id_rsa"
    secret_key.write_text(PRIVATE_KEY)
    api_key = fake_key("dotenv")
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={api_key}\nDEBUG=1\n")
    (tmp_path / "settings.txt").write_text(f"OPENAI_API_KEY={api_key}\nDEBUG=1\n")
    (tmp_path / "deploy_key.txt").write_text(PRIVATE_KEY)
    (tmp_path / "notes.md").write_text(f"remember the key {api_key} for the demo\n")
    (tmp_path / "photo.txt").write_bytes(bytes(range(256)) * 20)
    _edit(
        small_study,
        'files = ["resumes/*.pdf"]',
        f'files = ["resumes/*.pdf", "{secret_key}", ".env", "settings.txt", '
        '"deploy_key.txt", "notes.md", "photo.txt"]',
    )
    _edit(small_study, 'provider = "local"', 'provider = "openai-compatible"')
    out = tmp_path / "s.audit"
    with Simulator() as sim:
        _edit(small_study, "max_tokens = 160", f'max_tokens = 160\nbase_url = "{sim.base_url}"')
        code = main(["audit", str(small_study), "--out", str(out), "--model", "m"])
        err = capsys.readouterr().err
        assert code == 0, err
        sent = "".join(str(r.body) for r in sim.requests)
    assert sim.answered == 10  # the real resume was audited
    for secret in ("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXkt", api_key, "DEBUG=1"):
        assert secret not in sent
    assert "Skipped id_rsa: id_rsa is in the .ssh folder" in err
    assert "Skipped .env: .env is a hidden file" in err
    assert "Skipped settings.txt: settings.txt looks like a settings file" in err
    assert "Skipped deploy_key.txt: deploy_key.txt holds a private key" in err
    assert "Skipped notes.md: notes.md contains what looks like an API key" in err
    assert "Skipped photo.txt" in err and "binary" in err
    # the refused files' bytes are not kept in the audit file (it travels as a bundle)
    db = sqlite3.connect(out)
    try:
        blobs = b"".join(
            _inflate(bytes(row[0]))
            for row in db.execute("SELECT bytes FROM resume WHERE bytes IS NOT NULL")
        )
        rows = db.execute("SELECT filename, status FROM resume ORDER BY id").fetchall()
    finally:
        db.close()
    assert b"PRIVATE KEY" not in blobs and api_key.encode() not in blobs
    assert ("id_rsa", "error") in rows


def _inflate(blob: bytes) -> bytes:
    try:
        return zlib.decompress(blob)
    except zlib.error:
        return blob


def test_a_study_of_only_refused_files_sends_nothing(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".env").write_text("TOKEN=abc\n")
    _edit(small_study, 'files = ["resumes/*.pdf"]', 'files = [".env"]')
    assert _audit(small_study, tmp_path / "none.audit") == 2
    assert "Traceback" not in capsys.readouterr().err


def test_the_job_file_is_screened_too(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "id_ed25519").write_text(PRIVATE_KEY)
    _edit(small_study, 'file = "job.md"', 'file = "id_ed25519"')
    assert _audit(small_study, tmp_path / "job.audit") == 2
    err = capsys.readouterr().err
    assert "holds a private key" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("id_rsa", PRIVATE_KEY.encode(), "private key"),
        ("cert.txt", b"-----BEGIN CERTIFICATE-----\nMIIB\n", "private key or certificate"),
        ("id_ed25519.pub", b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 me@host\n", "private key"),
        (".bashrc", b"export PATH=/usr/bin\n", "hidden file"),
        ("config", b"[core]\nbare = false\n", "no type"),
        ("app.env.txt", b"DATABASE_URL=postgres://x\nPORT=8000\nMODE=prod\n", "settings file"),
        ("one.txt", b"# settings\nSECRET_KEY=abc\n", "settings file"),
        ("data.json", b'{"a": 1}', "'.json' files"),
        ("/home/me/.aws/notes.txt", b"Experience\n2019-2020 analyst", ".aws folder"),
    ],
)
def test_files_that_may_hold_secrets_are_refused_with_the_reason(
    name: str, data: bytes, reason: str
) -> None:
    problem = secret_problem(name, data)
    assert problem is not None and reason in problem


def test_text_that_is_no_resume_is_refused() -> None:
    config = "server:\n  host: localhost\n  port: 8080\nlogging:\n  level: debug\n"
    assert "is not a resume" in (resume_refusal(config, "server.txt") or "")
    token = "Jane Roe\nExperience\nAnalyst 2019-2023\nkey ghp_" + "a1B2" * 10
    assert "API key" in (resume_refusal(token, "cv.txt") or "")


def test_every_resume_of_the_generated_corpus_is_accepted() -> None:
    for doc in build_corpus(include_long=False):
        if doc.name.endswith((".pdf", ".docx", ".txt", ".md")):
            assert secret_problem(doc.name, doc.data) is None, doc.name


def test_every_real_resume_is_accepted() -> None:
    """Material we did not make: real layouts, in English and other languages."""
    from shared_data import corpus_dir

    from resume_auditor.documents.errors import DocumentError
    from resume_auditor.documents.load import load_file

    folder = corpus_dir("resumes-dev")
    checked = 0
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".pdf", ".docx", ".txt") and not path.name.endswith(".md"):
            continue
        if path.name == "SOURCES.md":
            continue
        assert secret_problem(str(path), path.read_bytes()) is None, path.name
        try:
            doc = load_file(path)
        except DocumentError:
            continue  # scanned: refused for another reason, with its own message
        assert resume_refusal(doc.text, path.name) is None, path.name
        checked += 1
    assert checked >= 30


def _corpus_study(small_study: Path, tmp_path: Path, *names: str) -> dict[str, bytes]:
    docs = {d.name: d.data for d in build_corpus(include_long=False)}
    for name in names:
        (tmp_path / "resumes" / name).write_bytes(docs[name])
    return docs


def test_audit_reads_protected_pdfs_with_a_password(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _corpus_study(small_study, tmp_path, "marisol-encrypted.pdf")
    out = tmp_path / "no-password.audit"
    assert _audit(small_study, out) == 0
    err = capsys.readouterr().err
    assert "Skipped marisol-encrypted.pdf" in err and "--password" in err
    out = tmp_path / "password.audit"
    assert _audit(small_study, out, "--password", PASSWORD) == 0
    err = capsys.readouterr().err
    assert "Skipped" not in err, err
    # the password is not kept in the audit file
    assert PASSWORD.encode() not in out.read_bytes()


def test_the_study_file_gives_a_password_per_file_and_it_is_not_stored(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _corpus_study(small_study, tmp_path, "marisol-encrypted.pdf")
    _edit(
        small_study,
        'files = ["resumes/*.pdf"]',
        'files = ["resumes/*.pdf"]\npassword = "not-this-one"\n'
        f'passwords = {{"marisol-encrypted.pdf" = "{PASSWORD}"}}',
    )
    _edit(
        small_study, '"marisol-encrypted.pdf" = ', '"marisol-encrypted.pdf" = "x", "marisol.pdf" = '
    )
    assert _audit(small_study, tmp_path / "typo.audit") == 0
    err = capsys.readouterr().err
    assert "resumes.passwords names 'marisol.pdf', which is not among the resumes" in err
    assert "Skipped marisol-encrypted.pdf" in err  # "x" is not its password
    out = tmp_path / "p.audit"
    _edit(
        small_study, '"marisol-encrypted.pdf" = "x", "marisol.pdf" = ', '"marisol-encrypted.pdf" = '
    )
    assert _audit(small_study, out) == 0
    assert "Skipped" not in capsys.readouterr().err
    db = sqlite3.connect(out)
    try:
        toml, config = db.execute("SELECT toml, config_json FROM study").fetchone()
    finally:
        db.close()
    assert PASSWORD not in toml and "not-this-one" not in toml and PASSWORD not in config
    assert "[redacted]" in toml
    # the same study again reuses the file (the stored text is stable)
    assert _audit(small_study, out) == 0


def _long_resume(pages: int) -> bytes:
    """A resume's page, many times over: a long PDF that still reads as a resume."""
    from pypdf import PdfReader, PdfWriter

    one = next(
        d.data for d in build_corpus(include_long=False) if d.name == "darnell-one-column.pdf"
    )
    writer = PdfWriter()
    page = PdfReader(io.BytesIO(one)).pages[0]
    for _ in range(pages):
        writer.add_page(page)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def test_audit_takes_a_page_limit(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "resumes" / "long.pdf").write_bytes(_long_resume(60))
    assert _audit(small_study, tmp_path / "a.audit") == 0
    err = capsys.readouterr().err
    assert "Skipped long.pdf" in err and "--max-pages" in err
    assert _audit(small_study, tmp_path / "b.audit", "--max-pages", "80") == 0
    assert "Skipped long.pdf" not in capsys.readouterr().err
    _edit(small_study, 'files = ["resumes/*.pdf"]', 'files = ["resumes/*.pdf"]\nmax_pages = 80')
    assert _audit(small_study, tmp_path / "c.audit") == 0
    assert "Skipped long.pdf" not in capsys.readouterr().err
    assert _audit(small_study, tmp_path / "d.audit", "--max-pages", "0") == 2
    assert "--max-pages should be at least 1" in capsys.readouterr().err


def test_every_real_job_posting_is_accepted_as_a_job_file() -> None:
    from shared_data import corpus_dir

    from resume_auditor.documents.load import load_file
    from resume_auditor.documents.resumecheck import token_problem

    checked = 0
    for path in sorted(corpus_dir("jobs-dev").iterdir()):
        if path.suffix not in (".txt", ".md", ".pdf", ".docx") or path.name == "SOURCES.md":
            continue
        assert secret_problem(str(path), path.read_bytes()) is None, path.name
        assert token_problem(load_file(path).text, path.name) is None, path.name
        checked += 1
    assert checked >= 20


def test_credentials_never_reach_the_settings_an_audit_file_keeps() -> None:
    """Settings from an older audit file open (credentials dropped); new ones never hold any."""
    from dataclasses import replace

    from resume_auditor.domain.study import study_to_dict

    data = {
        "model": {"provider": "openai-compatible", "base_url": "http://u:S3CRET@h/v1?key=S3CRET"},
        "generation": {
            "generators": [{"provider": "openai", "model": "g", "base_url": "http://h?token=S3"}]
        },
    }
    config = study_from_dict(data, require_sources=False)
    assert config.model.base_url == "http://h/v1"
    assert config.generation is not None
    assert config.generation.generators[0].base_url == "http://h"
    with pytest.raises(StudyError, match="holds a key or password") as caught:
        study_from_dict({**data, "job": {"text": "j"}, "resumes": {"files": ["a.pdf"]}})
    assert "S3CRET" not in str(caught.value)
    leaky = replace(config, model=replace(config.model, base_url="http://u:S3CRET@h/v1"))
    assert "S3CRET" not in str(study_to_dict(leaky))
