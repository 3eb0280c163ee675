"""The settings package: today's files read and migrated, damage kept aside, two writers at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.runner import limits_memory, speed_memory
from resume_auditor.runner.speed_memory import Pace
from resume_auditor.settings import take_notices
from resume_auditor.settings.capabilities import CAPABILITIES_FILE, capabilities_file
from resume_auditor.settings.document import Format, JsonSettings
from resume_auditor.settings.memory import (
    LIMITS_FILE,
    SPEED_FILE,
    RateLimits,
    limits_file,
    remember_limits,
    speeds_file,
)
from resume_auditor.settings.power import POWER_FILE, PowerCache

ROOT = Path(__file__).resolve().parents[1]
NOW = time.time()


def _json(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


# -- files in the formats the app wrote before the settings had versions ---------------


def test_a_rate_limits_file_of_today_is_read_and_migrated_on_first_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path))
    key = "openai||gpt-4.1-mini"
    # exactly what limits_memory.write_entry wrote: flat, 0 for an unknown rate
    (tmp_path / LIMITS_FILE).write_text(
        json.dumps({key: {"rpm": 500, "tpm": 0, "seen": NOW}}, indent=1, sort_keys=True)
    )
    assert limits_memory.recall("openai", "", "gpt-4.1-mini") == (500.0, None)
    limits_memory.remember("anthropic", "", "claude", 50, 40000)
    data = _json(tmp_path / LIMITS_FILE)
    assert data["version"] == 1
    models = data["models"]
    assert isinstance(models, dict)
    assert models[key] == {"rpm": 500.0, "tpm": None, "seen": NOW}
    assert limits_memory.recall("anthropic", "", "claude") == (50.0, 40000.0)
    assert not list(tmp_path.glob("*.damaged*"))


def test_an_answer_speed_file_of_today_is_read_and_migrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path))
    old = {
        "local||m": {
            "answers": 5,
            "seconds": 20.0,
            "input_tokens": 5000,
            "output_tokens": 250,
            "seen": NOW,
        },
        # an entry from before tokens were recorded
        "local||old": {"answers": 4, "seconds": 8.0, "seen": NOW},
    }
    (tmp_path / SPEED_FILE).write_text(json.dumps(old))
    assert speed_memory.recall("local", "", "m") == Pace(5, 20.0, 5000, 250)
    assert speed_memory.recall("local", "", "old") == Pace(4, 8.0, 0, 0)
    speed_memory.remember("local", "", "new", Pace(3, 3.0, 30, 3))
    models = _json(tmp_path / SPEED_FILE)["models"]
    assert isinstance(models, dict) and set(models) == {"local||m", "local||old", "local||new"}


def test_a_capability_file_of_today_is_read_as_it_is(tmp_path: Path) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    path = tmp_path / CAPABILITIES_FILE
    path.write_text(
        json.dumps(
            {"version": 1, "models": {"k": {"seed": {"ok": False, "checked": now.isoformat()}}}},
            indent=1,
            sort_keys=True,
        )
    )
    cache = CapabilityCache(path)
    assert cache.get("k", "seed") is False
    cache.set("k", "temperature", True)
    models = _json(path)["models"]
    assert isinstance(models, dict)
    assert models["k"] == {
        "seed": {"ok": False, "checked": now.isoformat()},
        "temperature": {"ok": True, "checked": models["k"]["temperature"]["checked"]},
    }


def test_a_power_cache_of_today_is_read_and_migrated(tmp_path: Path) -> None:
    path = tmp_path / POWER_FILE
    path.write_text(json.dumps({'[3, {"design": "D1"}]': 0.81, "other": 0.5}))
    cache = PowerCache(path)
    assert cache.get('[3, {"design": "D1"}]') == pytest.approx(0.81)
    cache.put("new", 0.25)
    assert _json(path) == {
        "version": 1,
        "powers": {'[3, {"design": "D1"}]': 0.81, "other": 0.5, "new": 0.25},
    }
    assert PowerCache(path).get("new") == pytest.approx(0.25)


def test_the_default_files_live_in_the_data_folder_the_user_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path / "mine"))
    remember_limits("k", 1, 2)
    assert limits_file().path == tmp_path / "mine" / LIMITS_FILE
    assert (tmp_path / "mine" / LIMITS_FILE).exists()
    assert PowerCache().path == tmp_path / "mine" / POWER_FILE
    assert capabilities_file().path == tmp_path / "mine" / CAPABILITIES_FILE


# -- damaged and hand-edited files -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[1, 2]",
        '{"version": 1, "models": {"k": {"rpm": "fast", "tpm": 1, "seen": 0}}}',
        '{"version": 1, "models": []}',
        '{"version": "one", "models": {}}',
        '{"version": 1, "models": {"k": {"rpm": -5, "tpm": 1, "seen": 0}}}',
    ],
)
def test_a_damaged_file_is_kept_aside_the_user_told_and_the_defaults_used(
    tmp_path: Path, text: str
) -> None:
    take_notices()
    path = tmp_path / LIMITS_FILE
    path.write_text(text)
    assert limits_file(path).read() == {}
    kept = tmp_path / (LIMITS_FILE + ".damaged")
    assert kept.read_text() == text, "the damaged file is kept byte for byte"
    assert not path.exists()
    notices = take_notices()
    assert len(notices) == 1 and str(kept) in notices[0] and LIMITS_FILE in notices[0]
    # a second damaged copy does not overwrite the first
    path.write_text(text)
    remember_limits("k", 10, None, path)
    assert (tmp_path / (LIMITS_FILE + ".damaged.1")).read_text() == text
    assert limits_file(path).read() == {
        "k": RateLimits(10.0, None, limits_file(path).read()["k"].seen)
    }


def test_a_file_that_is_not_text_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / SPEED_FILE
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert speeds_file(path).read() == {}
    assert (tmp_path / (SPEED_FILE + ".damaged")).read_bytes() == b"\xff\xfe\x00garbage"


def test_a_file_from_a_newer_app_is_used_as_defaults_and_never_written_over(
    tmp_path: Path,
) -> None:
    path = tmp_path / LIMITS_FILE
    newer = '{"version": 7, "something": "we do not know"}'
    path.write_text(newer)
    assert limits_file(path).read() == {}
    remember_limits("k", 1, 1, path)
    assert path.read_text() == newer
    assert not list(tmp_path.glob("*.damaged*"))


def test_every_migration_step_is_applied_in_order(tmp_path: Path) -> None:
    fmt: Format[list[str]] = Format(
        name="x.json",
        version=3,
        what="a test",
        parse=lambda d: list(d["steps"]),
        dump=lambda v: {"steps": v},
        default=list,
        migrations={
            0: lambda d: {"steps": ["0->1"]},
            1: lambda d: {"steps": [*d["steps"], "1->2"]},
            2: lambda d: {"steps": [*d["steps"], "2->3"]},
        },
    )
    path = tmp_path / "x.json"
    path.write_text('{"anything": 1}')
    assert JsonSettings(fmt, path).read() == ["0->1", "1->2", "2->3"]
    path.write_text('{"version": 2, "steps": ["kept"]}')
    assert JsonSettings(fmt, path).read() == ["kept", "2->3"]


def test_a_folder_that_cannot_be_written_costs_a_warning_not_a_crash(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be")
    remember_limits("k", 1, 1, blocker / LIMITS_FILE)
    PowerCache(blocker / POWER_FILE).put("k", 0.5)
    CapabilityCache(blocker / CAPABILITIES_FILE).set("k", "seed", True)
    assert blocker.read_text() == "a file where the folder should be"


def test_capability_findings_keep_their_age(tmp_path: Path) -> None:
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    path = tmp_path / "c.json"
    CapabilityCache(path, now=lambda: now[0]).set("k", "seed", False)
    now[0] += timedelta(days=20)
    assert CapabilityCache(path, now=lambda: now[0]).get("k", "seed") is None


# -- two programs at once ---------------------------------------------------------------

_WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from resume_auditor.providers.capabilities import CapabilityCache
    from resume_auditor.settings.memory import remember_limits
    from resume_auditor.settings.power import PowerCache

    folder, name, count, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():  # start together, to make the writes overlap
        time.sleep(0.001)
    caps = CapabilityCache(folder / "model-capabilities.json")
    powers = PowerCache(folder / "power-cache.json")
    for i in range(count):
        remember_limits(f"{name}-{i}", i + 1, None, folder / "rate-limits.json")
        caps.set(f"{name}-{i}", "seed", i % 2 == 0)
        powers.put(f"{name}-{i}", i / count)
    """
)


def test_two_programs_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    go = tmp_path / "go"
    count = 40
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(tmp_path), name, str(count), str(go)],
            cwd=ROOT,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("app", "cli")
    ]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    wanted = {f"{name}-{i}" for name in ("app", "cli") for i in range(count)}
    assert set(limits_file(tmp_path / LIMITS_FILE).read()) == wanted
    assert set(capabilities_file(tmp_path / CAPABILITIES_FILE).read()) == wanted
    powers = json.loads((tmp_path / POWER_FILE).read_text())["powers"]
    assert set(powers) == wanted
    assert not list(tmp_path.glob("*.damaged*")) and not list(tmp_path.glob(".*.partial"))


def test_threads_of_one_program_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    import threading

    path = tmp_path / LIMITS_FILE

    def write(name: str) -> None:
        for i in range(15):
            remember_limits(f"{name}-{i}", i + 1, None, path)

    threads = [threading.Thread(target=write, args=(f"t{n}",)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(limits_file(path).read()) == 6 * 15
