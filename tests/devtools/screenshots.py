"""Save a 1280x800 screenshot of every page, for looking at before calling a page done.

Run: QT_QPA_PLATFORM=offscreen PYTHONPATH=tests python -m devtools.screenshots [OUT_DIR]

It runs the sample study against the provider simulator (a scripted model on
loopback) so that the Run and Results pages show real answers.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from pathlib import Path


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    out_dir = Path(argv[1]) if len(argv) > 1 else Path("screenshots")
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="ra-shots-"))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp)

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from devtools.simulator import Simulator
    from devtools.simulator_gen import generator_policy
    from devtools.simulator_kinds import every_kind_policy
    from resume_auditor.domain.generation import GenerationSpec
    from resume_auditor.domain.study import ModelSpec, study_to_dict
    from resume_auditor.resources import sample_study
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.ui.main_window import MainWindow
    from resume_auditor.variants.generate import generate_for_audit
    from resume_auditor.workflow.cases import build_cases
    from resume_auditor.workflow.execute import make_runner
    from resume_auditor.workflow.prepare import prepare, queue_run, study_of
    from resume_auditor.workflow.studyfile import read_study

    app = QApplication.instance() or QApplication(["screenshots"])

    def settle(ms: int = 400) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    with Simulator(
        models=("sim-model",), policy=generator_policy(fallback=every_kind_policy())
    ) as sim:
        study = read_study(sample_study())
        config = study.config.with_model("openai-compatible", sim.base_url, "sim-model")
        result = tmp / "sample.audit"
        prepare(study, result, config.model)
        # the simulator also plays a generator model, so the variants tab has texts to show
        generator = ModelSpec("openai-compatible", sim.base_url, "sim-model", max_tokens=4096)
        with_gen = dataclasses.replace(config, generation=GenerationSpec(generators=(generator,)))
        generate_for_audit(result, with_gen)
        with ResultFile(result) as rf:
            rf.save_config(study_to_dict(with_gen), with_gen.name)
            build_cases(rf, study_of(rf))
        # a position-biased model on the same cases, to compare with
        from devtools.simulator import always

        with Simulator(policy=always("first"), models=("always-first",)) as biased:
            other = config.with_model("openai-compatible", biased.base_url, "always-first")
            run2, _ = queue_run(result, other.model)
            make_runner(result, run2, concurrency=4).run()
        # the model shown first (the latest run) answers every design's prompts
        run_id, _ = queue_run(result, config.model)
        make_runner(result, run_id, concurrency=4).run()

        window = MainWindow()
        window.resize(1280, 800)
        window.show()
        window.open_path(result)
        for _ in range(50):
            settle(100)
            if window.session.data is not None:
                break
        names = ["1-job", "2-resumes", "3-variants", "4-run", "5-results", "6-report"]
        for index, name in enumerate(names):
            window.show_page(index)
            settle(2500 if name in ("5-results", "6-report") else 1000)
            path = out_dir / f"{name}.png"
            window.grab().save(str(path))
            print(path)
            if name == "3-variants":  # its other two tabs
                tabs = window.variants_page.tabs
                for tab, suffix in ((1, "texts"), (2, "pairs")):
                    tabs.setCurrentIndex(tab)
                    settle(800)
                    path = out_dir / f"{name}-{suffix}.png"
                    window.grab().save(str(path))
                    print(path)
                tabs.setCurrentIndex(0)
        window.show_page(4)
        page = window.results_page
        page.compare_combo.setCurrentIndex(page.compare_combo.count() - 1)
        page.compare_combo.activated.emit(page.compare_combo.currentIndex())
        page.detail.setCurrentIndex(page.detail.count() - 1)
        settle(1500)
        path = out_dir / "5-results-compare.png"
        window.grab().save(str(path))
        print(path)
        dialog = window.open_settings()
        dialog.resize(1000, 600)
        settle(400)
        path = out_dir / "9-settings.png"
        dialog.grab().save(str(path))
        print(path)
        dialog.close()
        presenter = window.open_presenter(full_screen=False)
        presenter.resize(1280, 800)
        from resume_auditor.domain.case import Label
        from resume_auditor.runner import Answer
        from resume_auditor.store.resultfile import ResultFile

        with ResultFile(result) as rf:
            frame = rf.answers(run_id, design="D1").tail(8)
        presenter.show_answers(
            [
                Answer(int(r.request_id), int(r.case_id), r.ord, Label(r.label), r.justification)
                for r in frame.itertuples()
            ]
        )
        settle(400)
        presenter.show_panels()
        settle(800)
        path = out_dir / "8-presenter.png"
        presenter.grab().save(str(path))
        print(path)
        presenter.close()
        window.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
