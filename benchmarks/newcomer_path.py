"""Issue 27's newcomer measure, taken by running the app rather than by reading it.

From the click on Start to a D1 number on the Results page (the GUI test's walk: the
sample study's small audit, a loopback simulator), every `resume_auditor` module whose
code runs is recorded, with the threads that ran it and the audit file's opens. The
modules outside `designs/` whose code (not comments or docstrings) names D1 are the ones
a newcomer following D1 must read besides its folder.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/newcomer_path.py [TREE]

TREE (default: this checkout) may be an older tree (`git archive REV | tar -x -C DIR`),
measured with the same probe.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from devtools.code_names import named_tokens  # noqa: E402

PROBE = Path(__file__).with_name("newcomer") / "path_probe.py"
NAMES = re.compile(r"(?<![a-z0-9])d1(?![0-9])", re.IGNORECASE)


def names_d1(source: str) -> bool:
    return bool(named_tokens(source, NAMES))


def main() -> int:
    tree = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    probe = tree / "tests" / "test_zz_newcomer_probe.py"
    shutil.copy(PROBE, probe)
    out = Path(tempfile.mkdtemp()) / "path.json"
    try:
        env = {**os.environ, "NEWCOMER_OUT": str(out), "QT_QPA_PLATFORM": "offscreen"}
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", str(probe)],
            cwd=tree,
            env=env,
            check=True,
        )
    finally:
        probe.unlink(missing_ok=True)
    found = json.loads(out.read_text())
    mods = found["mods"]
    outside = [
        m
        for m in mods
        if not m.startswith("designs/")
        and names_d1((tree / "resume_auditor" / m).read_text(encoding="utf-8"))
    ]
    folder = [m for m in mods if m.startswith("designs/d1")]
    print(f"tree: {tree}")
    print(f"modules run from Start to a D1 number: {len(mods)}")
    print(f"  of which outside designs/ and naming D1 in code: {len(outside)}")
    print(f"    {', '.join(outside)}")
    print(f"  in D1's folder: {len(folder)}")
    print(f"threads running our code: {found['threads']}; audit file opens: {found['opens']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
