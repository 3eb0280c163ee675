"""Before Qt starts on Linux: are the system libraries its X11 plugin needs installed?

Without them Qt aborts with "Could not load the Qt platform plugin 'xcb'" and a hint
about `libxcb-cursor0` even when that package is installed and another one is missing.
`ldd` on the plugin names exactly which shared libraries cannot be found; we turn
them into the Debian/Ubuntu packages that ship them and print one `apt-get install`
line the user can paste. Nothing here imports Qt, so it runs before Qt can abort.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Debian package names that do not follow the usual "libfoo.so.N -> libfooN" rule.
_PACKAGE_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgmodule-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libOpenGL.so.0": "libopengl0",
    "libGLX.so.0": "libglx0",
    "libxcb-util.so.1": "libxcb-util1",
}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)


def debian_package(soname: str) -> str:
    """The Debian/Ubuntu package that ships a shared library, by Debian's naming rule.

    `libxcb-icccm.so.4` -> `libxcb-icccm4`; a name ending in a digit takes a dash
    (`libdbus-1.so.3` -> `libdbus-1-3`).
    """
    if soname in _PACKAGE_EXCEPTIONS:
        return _PACKAGE_EXCEPTIONS[soname]
    base, sep, version = soname.partition(".so.")
    if not sep:
        return soname.lower()
    major = version.split(".")[0]
    name = base.lower().replace("_", "-")
    return f"{name}-{major}" if name[-1].isdigit() else f"{name}{major}"


def missing_libraries(ldd_output: str) -> list[str]:
    """The shared libraries `ldd` could not find, in the order it listed them, once each."""
    seen: dict[str, None] = {}
    for name in _NOT_FOUND.findall(ldd_output):
        seen.setdefault(name, None)
    return list(seen)


def xcb_plugin() -> Path | None:
    """PySide6's X11 platform plugin, found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    for candidate in (
        root / "Qt" / "plugins" / "platforms" / "libqxcb.so",
        root / "plugins" / "platforms" / "libqxcb.so",
    ):
        if candidate.exists():
            return candidate
    return None


def uses_xcb(environ: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """Will Qt pick its X11 plugin? (Linux, no other platform asked for, not a frozen app.)"""
    if not sys.platform.startswith("linux") or getattr(sys, "frozen", False):
        return False
    platform = environ.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0].strip()
    if platform:
        return platform == "xcb"
    # Qt prefers Wayland when a Wayland session is running and falls back to xcb;
    # checking xcb then is still right: the fallback is what fails on a bare machine.
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def missing_qt_libraries() -> list[str]:
    """Shared libraries Qt's X11 plugin needs and this machine lacks ([] when all is
    well or when it cannot be told: no `ldd`, no plugin)."""
    plugin = xcb_plugin()
    ldd = shutil.which("ldd")
    if plugin is None or ldd is None:
        return []
    try:
        out = subprocess.run(
            [ldd, str(plugin)], capture_output=True, text=True, timeout=20, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return missing_libraries(out)


def start_problem_message(libraries: list[str]) -> str:
    """What to tell a user whose machine lacks `libraries`, with the line to paste."""
    packages = list(dict.fromkeys(debian_package(lib) for lib in libraries))
    return (
        "Resume Auditor cannot open its window: this machine lacks system libraries that "
        "Qt needs to draw on the screen (" + ", ".join(libraries) + ").\n"
        "On Debian or Ubuntu, install them, then start the app again:\n\n"
        "    sudo apt-get install " + " ".join(packages) + "\n\n"
        "On other systems, install the packages that provide those libraries. "
        "The command line (resume-auditor audit / run / report) works without them."
    )


def qt_start_problem() -> str | None:
    """A message to show instead of starting Qt, or None when Qt can start."""
    if not uses_xcb():
        return None
    libraries = missing_qt_libraries()
    return start_problem_message(libraries) if libraries else None
