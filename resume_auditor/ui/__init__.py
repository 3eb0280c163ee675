"""The Qt user interface. Only this package imports Qt.

Widgets and models are touched only from the main thread; background work goes
through `tasks.run_in_background` or the runner, and comes back through signals.
"""
