"""The start-up check that names the exact packages Qt's X11 plugin lacks."""

from __future__ import annotations

import shutil
import subprocess
import sys

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


def test_offscreen_and_other_platforms_are_not_checked() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the xcb plugin exists on Linux only")
    assert not pc.uses_xcb({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"})
    assert pc.uses_xcb({"QT_QPA_PLATFORM": "xcb"})
    assert pc.uses_xcb({"DISPLAY": ":1"})
    assert not pc.uses_xcb({})


def test_on_this_machine_the_plugin_is_found_and_ldd_agrees() -> None:
    """The real plugin of the installed PySide6, read by the real ldd."""
    plugin = pc.xcb_plugin()
    ldd = shutil.which("ldd")
    if plugin is None or ldd is None or not sys.platform.startswith("linux"):
        pytest.skip("needs Linux, ldd and PySide6's xcb plugin")
    out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, check=False).stdout
    assert pc.missing_qt_libraries() == pc.missing_libraries(out)
