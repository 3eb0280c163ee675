"""How long does comparing 5 models x 10,000 answers take, and how much memory? (issue 28)

Run: .venv/bin/python benchmarks/compare_speed.py build [--answers 10000] [--models 5]
     .venv/bin/python benchmarks/compare_speed.py measure

`build` makes the audit once (kept in /tmp/compare-speed/): the sample's 4 resumes and
byte-distinct copies of them (8 source resumes), D1 pairs with enough repeats for about
`--answers` requests a model, each model answering through the real path (HTTP to the
loopback simulator, the oracle's policy with its own noise and its own skill per model).
`measure` times `workflow.compare.compare_runs` on it (the work the Results page's
"Models compared" tab and the report do, off the UI thread), five times, and the peak
memory it allocates (tracemalloc). Time it on a quiet machine: the figure is the point.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

import null_calibration as nc  # noqa: E402

HERE = Path(tempfile.gettempdir()) / "compare-speed"
AUDIT = HERE / "speed.audit"
PAIRS_A_RESUME = 44  # D1 requests one resume gives with the sample's settings, both orders


def build(answers: int, models: int) -> None:
    from devtools.seeded_audit import seeded_copy
    from devtools.simulator import Simulator
    from devtools.simulator_policies import ByModel, Oracle

    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.execute import make_runner
    from resume_auditor.workflow.prepare import _queue_run, study_of

    HERE.mkdir(parents=True, exist_ok=True)
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(HERE / "data")
    names = [f"model-{i + 1}" for i in range(models)]
    resumes = 8
    repeats = max(1, round(answers / (resumes * PAIRS_A_RESUME)))
    with Simulator(models=tuple(names), keep_requests=False, logprobs=False) as sim:
        nc.LARGER_DESIGNS = (
            '\n[designs.d1]\ngroups = ["black_woman", "black_man", "white_woman", '
            '"white_man"]\nequal_pairs = true\nunequal_pairs = true\nk = [1]\n'
        )
        nc.ONLY = ()
        work = Path(tempfile.mkdtemp(dir=HERE))
        files = nc._larger_resumes(work, None, resumes)
        saved = nc._study_text

        def with_repeats(*a: object, **kw: object) -> str:
            text = saved(*a, **kw)  # type: ignore[arg-type]
            return re.sub(r"(?m)^repeats = \d+", f"repeats = {repeats}", text, count=1)

        nc._study_text = with_repeats  # type: ignore[assignment]
        template = nc.template_audit(sim, work, "larger", "both", resumes=files)
        out, variants = seeded_copy(template, work, 1)
        with ResultFile(out) as result:
            config = study_of(result)
            for name in names[1:]:
                _queue_run(result, config, dataclasses.replace(config.model, model=name))
            runs = [r.id for r in result.runs()]
        sim.policy = ByModel(
            {
                "sim-model" if i == 0 else name: Oracle.from_variants(
                    variants, seed=1, noise_seed=100 + i, step=0.6 + 0.2 * i
                )
                for i, name in enumerate(names)
            }
        )
        for run_id in runs:
            started = time.monotonic()
            make_runner(out, run_id, concurrency=16, use_cache=False, max_retries=1).run()
            print(f"run {run_id}: {time.monotonic() - started:.0f} s", flush=True)
        out.replace(AUDIT)
    print(f"built {AUDIT}")


def measure() -> None:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.compare import compare_runs

    with ResultFile(AUDIT, readonly=True) as result:
        answered = {r.id: result.progress(r.id).done for r in result.runs()}
        times = []
        for _ in range(5):
            started = time.perf_counter()
            comparison = compare_runs(result)
            times.append(time.perf_counter() - started)
        tracemalloc.start()
        compare_runs(result)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert comparison is not None
    print(
        f"{len(answered)} models, answers each {sorted(answered.values())}: compare_runs "
        f"median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}), "
        f"peak allocation {peak / 2**20:.0f} MiB; {len(comparison['differences'])} "
        f"differences, load average {os.getloadavg()[0]:.1f}"
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("build", "measure"))
    ap.add_argument("--answers", type=int, default=10_000)
    ap.add_argument("--models", type=int, default=5)
    args = ap.parse_args(argv)
    if args.what == "build":
        build(args.answers, args.models)
    else:
        measure()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
