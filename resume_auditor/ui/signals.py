"""Emit Qt signals without PySide6 6.12.0's lost reference to True.

In PySide6 6.12.0 every `SignalInstance.emit()` hands back `True` without taking
a reference to it, so each emit takes one reference from `True`. Python 3.11's
`True` is an ordinary object: once its count reaches zero the interpreter aborts
("bool_dealloc: deallocating True or False"). A run emits several signals four
times a second, and a 100,000-request run aborted the app within minutes
(benchmarks/ui_stall.py). `emit` checks once whether this PySide6 has the fault
and, if so, gives the reference back after each emit; with a fixed PySide6 it
only emits.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from typing import Any

from PySide6.QtCore import QObject, Signal, SignalInstance

logger = logging.getLogger(__name__)

_steals: bool | None = None


class _Probe(QObject):
    ping = Signal()


def _emit_steals_true() -> bool:
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    lost = before - sys.getrefcount(True)
    for _ in range(max(0, lost)):  # give back what the probe took
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(True))
    if lost >= 8:
        logger.info("this PySide6 loses a reference to True per emit; compensating")
    return lost >= 8


def emit(signal: SignalInstance, *args: Any) -> None:
    """`signal.emit(*args)`, leaving True's reference count as it was."""
    global _steals
    if _steals is None:
        _steals = _emit_steals_true()
    signal.emit(*args)
    if _steals:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(True))
