"""`--quit-after-load` works where a user types it, and says so where it cannot apply."""

from __future__ import annotations

from typing import Any

import pytest

from resume_auditor import cli


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []

    def fake_gui(argv: list[str] | None = None) -> int:
        calls.append(list(argv or []))
        return 0

    monkeypatch.setattr("resume_auditor.app.main", fake_gui)
    return calls


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--quit-after-load"], ["--quit-after-load"]),
        (["gui", "--quit-after-load"], ["--quit-after-load"]),
        (["--quit-after-load", "gui", "x.audit"], ["x.audit", "--quit-after-load"]),
        (["gui", "x.audit"], ["x.audit"]),
    ],
)
def test_the_option_reaches_the_app(
    started: list[list[str]], argv: list[str], expected: list[str]
) -> None:
    assert cli.main(argv) == 0
    assert started == [expected]


def test_with_another_command_it_says_what_it_is_for(started: list[list[str]], capsys: Any) -> None:
    assert cli.main(["--quit-after-load", "metrics", "x.audit"]) == cli.EXIT_INPUT
    err = capsys.readouterr().err
    assert "opens the desktop app" in err and "resume-auditor gui FILE --quit-after-load" in err
    assert "Traceback" not in err and started == []
