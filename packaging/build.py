"""Build the one-folder app with PyInstaller: dist/resume-auditor/.

Run: .venv/bin/python packaging/build.py [OUT_DIR]  (needs: pip install -e '.[local,packaging]')

OUT_DIR defaults to the project folder (dist/ and build/ there).

Then smoke-test it: .venv/bin/python packaging/smoke_test.py dist/resume-auditor
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT
    work = out / "build" / "pyinstaller"
    dist = out / "dist"
    cmd = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--clean",
        "--workpath",
        str(work),
        "--distpath",
        str(dist),
        str(ROOT / "packaging" / "resume-auditor.spec"),
    ]
    print(" ".join(cmd), flush=True)
    code = subprocess.call(cmd, cwd=ROOT)
    if code:
        return code
    app = dist / "resume-auditor"
    if sys.platform.startswith("linux"):
        share = app / "share"
        (share / "applications").mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "packaging" / "resume-auditor.desktop", share / "applications")
        icons = share / "icons" / "hicolor"
        for size, name in ((256, "resume-auditor.png"), (512, "resume-auditor-512.png")):
            target = icons / f"{size}x{size}" / "apps"
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / "resources" / "icons" / name, target / "resume-auditor.png")
    print(f"built {app}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
