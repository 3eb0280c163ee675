"""The audit workflow shared by the CLI and the GUI: study file in, result file out.

Reads the study file, loads documents, builds the cases, queues the requests,
runs them and computes the metrics. No Qt here: the GUI calls these functions
from worker threads.
"""
