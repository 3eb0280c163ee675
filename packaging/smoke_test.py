"""Smoke-test a frozen build before calling it built.

Run: .venv/bin/python packaging/smoke_test.py [dist/resume-auditor]

Against the frozen executable, with a fresh data folder and Qt offscreen:
1. it reports its version;
2. the app starts, opens the sample study and quits;
3. a 10-request audit runs against the provider simulator (a loopback server
   started here), and the simulator counts exactly 10 answers;
4. `metrics --json` reads the result back;
5. `report` writes the HTML and PDF report (when the build has the command);
6. the bundled local model starts from inside the bundle and answers a 2-request
   audit (the frozen executable serves it as its own child process).
Exits 0 only if every step passed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped


def main(argv: list[str]) -> int:
    app_dir = Path(argv[1]) if len(argv) > 1 else ROOT / "dist" / "resume-auditor"
    exe = app_dir / ("resume-auditor.exe" if os.name == "nt" else "resume-auditor")
    if not exe.exists():
        print(f"no frozen app at {exe}; build it with packaging/build.py", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="ra-smoke-"))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", RESUME_AUDITOR_DATA_DIR=str(tmp / "data"))
    failures: list[str] = []

    def step(name: str, args: list[str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
        started = time.monotonic()
        proc = subprocess.run(
            [str(exe), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        took = time.monotonic() - started
        ok = proc.returncode == 0 and "Traceback" not in proc.stderr
        print(f"{'ok  ' if ok else 'FAIL'} {name} ({took:.1f} s, exit {proc.returncode})")
        if not ok:
            failures.append(name)
            print(proc.stdout[-2000:], proc.stderr[-2000:], sep="\n", file=sys.stderr)
        return proc

    step("version", ["--version"])
    gui = step("open the sample study", ["gui", "--quit-after-load"], timeout=120)
    if "loaded" not in gui.stdout:
        failures.append("sample study shown")

    sample = app_dir / "_internal" / "resources" / "sample"
    if not sample.exists():
        sample = ROOT / "resources" / "sample"
    study = tmp / "study.toml"
    study.write_text(
        f"""format = 1
[study]
name = "Smoke test"
seed = 3
[job]
file = "{(sample / "job.md").as_posix()}"
[resumes]
files = ["{(sample / "resumes" / "01-jordan-ellery.pdf").as_posix()}"]
[run]
orders = "both"
[designs.d1]
groups = ["black_woman", "white_man"]
# pairs from the resume's own text only (no qualifications block): the counts below
summary_block = "never"
""",
        encoding="utf-8",
    )
    from devtools.simulator import Simulator

    result = tmp / "smoke.audit"
    with Simulator() as sim:
        step(
            "10-request audit against the simulator",
            [
                "audit",
                str(study),
                "--out",
                str(result),
                "--provider",
                "openai-compatible",
                "--base-url",
                sim.base_url,
                "--model",
                "sim-model",
            ],
        )
        if sim.answered != 10:
            failures.append(f"simulator answered {sim.answered}, not 10")
    metrics = step("metrics --json", ["metrics", str(result), "--json"])
    try:
        if json.loads(metrics.stdout)["counts"]["answered"] != 10:
            failures.append("metrics count")
    except (ValueError, KeyError):
        failures.append("metrics output")
    help_text = subprocess.run(
        [str(exe), "--help"], env=env, capture_output=True, text=True, timeout=60
    ).stdout
    if (
        " report " in help_text
        or "report," in help_text
        or "{" in help_text
        and "report" in help_text
    ):
        step(
            "report",
            ["report", str(result), "--html", str(tmp / "r.html"), "--pdf", str(tmp / "r.pdf")],
        )
        for name in ("r.html", "r.pdf"):
            if not (tmp / name).exists() or (tmp / name).stat().st_size < 1000:
                failures.append(f"report file {name}")
    else:
        print("skip report (this build has no report command)")
    local_study = tmp / "local.toml"
    local_study.write_text(
        study.read_text(encoding="utf-8")
        .replace('orders = "both"', 'orders = "ab"')
        .replace(
            'groups = ["black_woman", "white_man"]',
            'groups = ["black_woman", "white_man"]\nequal_pairs = false',
        ),
        encoding="utf-8",
    )
    local_result = tmp / "local.audit"
    step(
        "bundled local model answers from inside the bundle",
        ["audit", str(local_study), "--out", str(local_result)],
        timeout=600,
    )
    local = step("metrics of the local run", ["metrics", str(local_result), "--json"])
    try:
        if json.loads(local.stdout)["counts"]["answered"] != 2:
            failures.append("local model answers")
    except (ValueError, KeyError):
        failures.append("local metrics output")

    print("smoke test passed" if not failures else f"smoke test FAILED: {failures}")
    return 0 if not failures else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
