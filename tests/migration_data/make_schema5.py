"""Write schema5.audit.gz and its metrics with the app on sys.path (an old commit's tree).

A schema-5 audit with every design, two runs against the provider simulator, a
re-asked answer (a response_history row) and a collected batch row; see README.md.
Usage: PYTHONPATH=OLD_TREE python make_schema5.py OUT_DIR OLD_TREE/resources/sample
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "make_previous", Path(__file__).resolve().parent / "make_previous.py"
)
assert _spec is not None and _spec.loader is not None
_previous = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_previous)

STUDY: str = _previous.STUDY  # a caller may change it before build(), as the tests do


def build(out_dir: Path, sample: Path) -> None:
    """The schema-5 file and its metrics (make_previous.py, under the name "schema5")."""
    _previous.build(out_dir, sample, "schema5", STUDY)


if __name__ == "__main__":
    build(Path(sys.argv[1]), Path(sys.argv[2]))
