"""The start-up check that names the exact packages Qt's X11 plugin lacks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from resume_auditor.ui import platform_check as pc

# What `ldd libqxcb.so` printed on a Debian machine without two of Qt's libraries.
LDD_BARE = """\
\tlinux-vdso.so.1 (0x00007ffd4a5f2000)
\tlibQt6XcbQpa.so.6 => /x/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f0e3c400000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f0e3c3f0000)
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibdbus-1.so.3 => not found
\tlibglib-2.0.so.0 => not found
"""


def test_the_libraries_ldd_cannot_find_are_listed_once_in_order() -> None:
    assert pc.missing_libraries(LDD_BARE) == [
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
        "libdbus-1.so.3",
        "libglib-2.0.so.0",
    ]
    assert pc.missing_libraries("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


@pytest.mark.parametrize(
    ("soname", "package"),
    [
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxcb-render-util.so.0", "libxcb-render-util0"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libX11-xcb.so.1", "libx11-xcb1"),
        ("libEGL.so.1", "libegl1"),
        ("libdbus-1.so.3", "libdbus-1-3"),
        ("libglib-2.0.so.0", "libglib2.0-0"),
        ("libfontconfig.so.1", "libfontconfig1"),
    ],
)
def test_a_library_maps_to_the_debian_package_that_ships_it(soname: str, package: str) -> None:
    assert pc.debian_package(soname) == package


def test_the_message_gives_one_line_to_paste() -> None:
    message = pc.start_problem_message(pc.missing_libraries(LDD_BARE))
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1 libdbus-1-3 libglib2.0-0" in message
    assert "libxcb-cursor0" not in message, "a package that is installed is not named"


linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="Qt's xcb and Wayland plugins exist on Linux only"
)


class FakeLdd:
    """What `ldd` would find missing, per platform plugin; records which were asked."""

    def __init__(self, **missing: list[str]) -> None:
        self.missing = missing
        self.asked: list[str] = []

    def __call__(self, plugin: str) -> list[str]:
        self.asked.append(plugin)
        return self.missing.get(plugin, [])


@linux_only
def test_offscreen_and_other_platforms_are_not_checked() -> None:
    ldd = FakeLdd(xcb=["libxcb-icccm.so.4"])
    for platform in ("offscreen", "minimal", "vnc", "eglfs", "offscreen;xcb"):
        assert pc.qt_start_problem({"QT_QPA_PLATFORM": platform, "DISPLAY": ":0"}, ldd) is None
    assert ldd.asked == []


@linux_only
def test_an_x11_display_with_every_library_starts() -> None:
    assert pc.qt_start_problem({"DISPLAY": ":1"}, FakeLdd()) is None
    assert (
        pc.qt_start_problem({"QT_QPA_PLATFORM": "xcb:nograb", "DISPLAY": ":1"}, FakeLdd()) is None
    )


@linux_only
def test_an_x11_display_without_a_library_names_the_package() -> None:
    message = pc.qt_start_problem({"DISPLAY": ":1"}, FakeLdd(xcb=["libxcb-icccm.so.4"]))
    assert message is not None and "sudo apt-get install libxcb-icccm4\n" in message
    assert pc.NO_DISPLAY_MESSAGE not in message


@linux_only
def test_no_display_says_so_instead_of_qts_misleading_xcb_cursor_hint() -> None:
    # A bare server reached over SSH: every library installed, no DISPLAY.
    for environ in ({}, {"QT_QPA_PLATFORM": "xcb"}, {"QT_QPA_PLATFORM": "wayland"}):
        message = pc.qt_start_problem(environ, FakeLdd())
        assert message == pc.NO_DISPLAY_MESSAGE, environ
    both = pc.qt_start_problem({}, FakeLdd(xcb=["libEGL.so.1"]))
    assert both is not None and "sudo apt-get install libegl1" in both
    assert pc.NO_DISPLAY_MESSAGE in both


@linux_only
def test_a_wayland_session_is_not_stopped_for_missing_x11_libraries(tmp_path: Path) -> None:
    ldd = FakeLdd(xcb=["libxcb-cursor.so.0"])
    assert pc.qt_start_problem({"WAYLAND_DISPLAY": "wayland-0"}, ldd) is None
    # libwayland's default socket, with only the session type set
    (tmp_path / "wayland-0").touch()
    session = {"XDG_SESSION_TYPE": "wayland", "XDG_RUNTIME_DIR": str(tmp_path)}
    assert pc.qt_start_problem(session, ldd) is None


@linux_only
def test_a_wayland_session_falls_back_to_x11_and_names_what_both_lack() -> None:
    environ = {"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}
    assert pc.qt_start_problem(environ, FakeLdd(wayland=["libwayland-client.so.0"])) is None
    message = pc.qt_start_problem(
        environ, FakeLdd(wayland=["libwayland-client.so.0"], xcb=["libxcb-icccm.so.4"])
    )
    assert message is not None and "sudo apt-get install libxcb-icccm4\n" in message
    # Outside a Wayland session Qt uses X11 whatever WAYLAND_DISPLAY says.
    x11 = {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}
    assert pc.qt_start_problem(x11, FakeLdd(xcb=["libxcb-icccm.so.4"])) is not None
    only_wayland = pc.qt_start_problem(
        {"QT_QPA_PLATFORM": "wayland", "WAYLAND_DISPLAY": "w"},
        FakeLdd(wayland=["libwayland-cursor.so.0"]),
    )
    assert only_wayland is not None and "sudo apt-get install libwayland-cursor0" in only_wayland


def test_on_this_machine_the_plugin_is_found_and_ldd_agrees() -> None:
    """The real plugin of the installed PySide6, read by the real ldd."""
    plugin = pc.xcb_plugin()
    ldd = shutil.which("ldd")
    if plugin is None or ldd is None or not sys.platform.startswith("linux"):
        pytest.skip("needs Linux, ldd and PySide6's xcb plugin")
    out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, check=False).stdout
    assert pc.missing_qt_libraries() == pc.missing_libraries(out)
