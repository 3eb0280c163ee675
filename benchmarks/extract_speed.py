"""Extraction speed and peak memory on the 200-page PDF of the document corpus.

Run: .venv/bin/python benchmarks/extract_speed.py [PAGES] [REPEATS]

Writes the corpus's long PDF (default 200 pages, about 4,000 characters a page),
then reads it REPEATS times (default 3, after one warm-up) through the app's own
loader: runs with position, size and colour, reading order, clean-up with its
character map, hidden-text checks. Prints the median time, pages per second and
characters per second. Peak memory is measured in a fresh child process: its
maximum resident set size, the part added by the read, and the peak of Python
allocations seen by tracemalloc (a second read, since tracing slows it down).
Last, the whole per-resume path (load, identity slots, findings) on a sample
resume and on the Chromium-printed two-column fixture, in milliseconds.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped

# VmHWM (the high-water mark of resident memory) is per process image; ru_maxrss
# would carry the parent's figure over the fork.
CHILD = """
import json, sys, tracemalloc
import pypdf, ftfy  # imported before the baseline so it counts only the read
from resume_auditor.documents.load import load_file

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise SystemExit("no /proc/self/status: this measurement needs Linux")

path, pages = sys.argv[1], int(sys.argv[2])
before = hwm()
doc = load_file(path, max_pages=pages + 1)
after = hwm()
tracemalloc.start()
load_file(path, max_pages=pages + 1)
_, peak = tracemalloc.get_traced_memory()
print(json.dumps({"rss_before_kb": before, "rss_peak_kb": after, "traced_peak": peak}))
"""


def main(argv: list[str]) -> int:
    from devtools.corpus import long_pdf

    from resume_auditor.documents.load import load_file

    pages = int(argv[1]) if len(argv) > 1 else 200
    repeats = int(argv[2]) if len(argv) > 2 else 3
    path = Path(tempfile.mkdtemp(prefix="ra-extract-")) / f"long-{pages}.pdf"
    path.write_bytes(long_pdf(pages))
    load_file(path, max_pages=pages + 1)  # warm-up: imports, caches
    times = []
    characters = 0
    for _ in range(repeats):
        start = time.perf_counter()
        doc = load_file(path, max_pages=pages + 1)
        times.append(time.perf_counter() - start)
        characters = doc.characters
    median = statistics.median(times)
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(pages)],
        capture_output=True,
        text=True,
        check=True,
    )
    mem = json.loads(child.stdout)
    print(f"file: {path.name}, {path.stat().st_size / 1e6:.2f} MB, {pages} pages")
    print(f"characters extracted: {characters:,}")
    print(f"time (median of {repeats}): {median:.2f} s  [{', '.join(f'{t:.2f}' for t in times)}]")
    print(f"pages per second: {pages / median:.1f}")
    print(f"characters per second: {characters / median:,.0f}")
    print(
        f"peak resident memory of a fresh process: {mem['rss_peak_kb'] / 1024:.0f} MB "
        f"({(mem['rss_peak_kb'] - mem['rss_before_kb']) / 1024:.0f} MB added by the read)"
    )
    print(f"peak Python allocations during a read (tracemalloc): {mem['traced_peak'] / 1e6:.0f} MB")
    _per_resume(repeats)
    return 0


def _per_resume(repeats: int) -> None:
    from resume_auditor.documents.extract import extract_resume

    root = Path(__file__).resolve().parent.parent
    for path in (
        root / "resources" / "sample" / "resumes" / "01-jordan-ellery.pdf",
        root / "tests" / "documents_data" / "chrome-two-column.pdf",
    ):
        extract_resume(path)
        times = []
        for _ in range(max(repeats, 5)):
            start = time.perf_counter()
            extract_resume(path)
            times.append(time.perf_counter() - start)
        print(f"per resume, {path.name}: {statistics.median(times) * 1000:.0f} ms")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
