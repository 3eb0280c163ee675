"""Before Qt starts on Linux: can it open a window here, and if not, what to do?

Without the system libraries of its X11 plugin, or without any display, Qt aborts
with "Could not load the Qt platform plugin 'xcb'" and a hint about `libxcb-cursor0`
even when that package is installed and something else is wrong. `ldd` on the plugin
names exactly which shared libraries cannot be found; we turn them into the
Debian/Ubuntu packages that ship them and print one `apt-get install` line the user
can paste; with no display we say so. Nothing here imports Qt, so it runs before Qt
can abort. Checked on a bare Debian 12 with benchmarks/bare_machine.sh.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
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


def platform_plugin(name: str) -> Path | None:
    """PySide6's platform plugin `name` ("xcb", "wayland"), found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    # Qt before 6.10 named the Wayland plugin libqwayland-generic.so.
    files = [f"libq{name}.so"] + (["libqwayland-generic.so"] if name == "wayland" else [])
    for folder in (root / "Qt" / "plugins" / "platforms", root / "plugins" / "platforms"):
        for file in files:
            if (folder / file).exists():
                return folder / file
    return None


def xcb_plugin() -> Path | None:
    """PySide6's X11 platform plugin, found without importing Qt."""
    return platform_plugin("xcb")


def missing_plugin_libraries(name: str) -> list[str]:
    """Shared libraries Qt's platform plugin `name` needs and this machine lacks ([] when
    all is well or when it cannot be told: no `ldd`, no plugin)."""
    plugin = platform_plugin(name)
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


def missing_qt_libraries() -> list[str]:
    """Shared libraries Qt's X11 plugin needs and this machine lacks."""
    return missing_plugin_libraries("xcb")


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


NO_DISPLAY_MESSAGE = (
    "Resume Auditor cannot open its window: there is no screen to draw on "
    "(neither DISPLAY nor WAYLAND_DISPLAY is set). Start it from a desktop session, "
    "or over SSH connect with `ssh -X` (the server needs the xauth package). "
    "The command line (resume-auditor audit / run / report) works without a screen."
)


def _platforms(environ: Mapping[str, str]) -> list[str]:
    """The platform plugins Qt will try, in order (its QT_QPA_PLATFORM rule, simplified)."""
    asked = environ.get("QT_QPA_PLATFORM", "").strip()
    if asked:
        return [name.split(":")[0].strip() for name in asked.split(";") if name.strip()]
    # Qt tries Wayland first in a Wayland session and falls back to X11 (XWayland);
    # elsewhere it uses X11. Wayland alone (no DISPLAY) is read as a Wayland session.
    session = environ.get("XDG_SESSION_TYPE")
    if session == "wayland" or (environ.get("WAYLAND_DISPLAY") and not environ.get("DISPLAY")):
        return ["wayland", "xcb"]
    return ["xcb"]


def _has_wayland_display(environ: Mapping[str, str]) -> bool:
    """Is a Wayland compositor there? (libwayland falls back to $XDG_RUNTIME_DIR/wayland-0.)"""
    if environ.get("WAYLAND_DISPLAY"):
        return True
    runtime = environ.get("XDG_RUNTIME_DIR")
    return runtime is not None and bool(runtime) and (Path(runtime) / "wayland-0").exists()


def qt_start_problem(
    environ: Mapping[str, str] = os.environ,
    missing: Callable[[str], list[str]] = missing_plugin_libraries,
) -> str | None:
    """A message to show instead of starting Qt, or None when Qt can start.

    Qt starts when one plugin it tries can reach its display and has its libraries.
    Otherwise it aborts with a message that misleads (it blames `libxcb-cursor0` even
    when the real problem is another library or no display at all); we say which.
    A platform other than X11 or Wayland (offscreen, vnc, eglfs...) is not checked.
    """
    if not sys.platform.startswith("linux") or getattr(sys, "frozen", False):
        return None
    platforms = _platforms(environ)
    if not platforms or not platforms[0].startswith(("xcb", "wayland")):
        return None
    wants_wayland = any(name.startswith("wayland") for name in platforms)
    wayland_display = wants_wayland and _has_wayland_display(environ)
    wayland_missing = missing("wayland") if wayland_display else []
    if wayland_display and not wayland_missing:
        return None  # Qt draws through Wayland
    xcb_missing = missing("xcb") if "xcb" in platforms else []
    if "xcb" in platforms and environ.get("DISPLAY") and not xcb_missing:
        return None  # Qt draws through X11
    parts = []
    if xcb_missing or wayland_missing:
        parts.append(start_problem_message(xcb_missing or wayland_missing))
    if not wayland_display and not ("xcb" in platforms and environ.get("DISPLAY")):
        parts.append(NO_DISPLAY_MESSAGE)
    return "\n\n".join(parts) or None
