"""Make up for PySide6 6.12.0's lost reference on every signal emit.

In PySide6 6.12.0 every `SignalInstance.emit()` hands back its result (`True`)
without taking a reference to it, so each emit takes one reference from `True`.
Python 3.11's `True` is an ordinary object: once its count reaches zero the
interpreter aborts ("bool_dealloc: deallocating True or False"). The Results
table emits once per answer, so a 20,000-request run aborted the app
(benchmarks/ui_stall.py). `install()` checks once whether this PySide6 has the
fault and, only then, wraps `emit` to give the reference back.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from typing import Any

from PySide6.QtCore import QObject, Signal, SignalInstance

logger = logging.getLogger(__name__)

PROBES = 8
_installed = False


class _Probe(QObject):
    ping = Signal()


def _give_back(obj: object) -> None:
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def emit_loses_a_reference() -> bool:
    """Whether `emit()` takes a reference from its result (it gives back what it took)."""
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(PROBES):
        probe.ping.emit()
    lost = before - sys.getrefcount(True)
    for _ in range(max(0, lost)):
        _give_back(True)
    return lost >= PROBES


def install() -> bool:
    """Wrap `SignalInstance.emit` if this PySide6 needs it (once; UI thread, at start-up).

    True when the wrapper is in place.
    """
    global _installed
    if _installed:
        return True
    if not emit_loses_a_reference():
        return False
    original = SignalInstance.emit

    def emit(self: SignalInstance, *args: Any) -> Any:
        result = original(self, *args)
        if isinstance(result, bool):
            _give_back(result)
        return result

    SignalInstance.emit = emit  # type: ignore[method-assign]
    _installed = True
    logger.info("this PySide6 loses a reference on every emit; emit is wrapped to give it back")
    return True
