"""Charts fit their place: never cropped, drawn again once a resize settles."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from resume_auditor.report.charts import render_rates
from resume_auditor.ui.widgets.charts import ChartView

METRIC = {"value": 0.8, "ci": [0.7, 0.9], "n": 40}


def test_a_chart_drawn_too_big_is_scaled_down_and_asks_to_be_drawn_again(qtbot: QtBot) -> None:
    view = ChartView("Validity")
    qtbot.addWidget(view)
    view.resize(300, 200)
    view.show()
    image = render_rates("Validity", [("CriterionValidity", METRIC)], size=(600, 400))
    with qtbot.waitSignal(view.resized, timeout=3000):
        view.show_image(image, 1.0)
        view.resize(310, 210)  # the layout moved after the image was drawn
    shown = view.pixmap()
    assert shown.width() <= view.width() and shown.height() <= view.height()


def test_a_chart_drawn_at_its_size_is_left_alone(qtbot: QtBot) -> None:
    view = ChartView("Validity")
    qtbot.addWidget(view)
    view.resize(400, 260)
    view.show()
    image = render_rates("Validity", [("CriterionValidity", METRIC)], size=(400, 260))
    with qtbot.assertNotEmitted(view.resized, wait=600):
        view.show_image(image, 1.0)
        view.resize(404, 262)
    assert view.pixmap().width() == 400
