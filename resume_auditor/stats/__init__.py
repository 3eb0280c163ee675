"""Statistics: metrics per design with honest intervals.

Pure functions over pandas DataFrames of judgments; no disk, no network, no Qt.
The input tables are specified in inputs.py (documented in docs/stats-inputs.md);
outputs are Metric objects (metric.py) whose JSON is in docs/metrics-json.md.

- pair_choice.py — Castleman et al. 2025 (D1's own: designs/d1_castleman/)
- d2.py — Gaebler et al. 2024 (correspondence experiment)
- d3.py, d3_scores.py — Chen et al. 2024 (RABBI and allocation gaps)
- (D4, Wen et al. 2025, FAIRE, and D5 keep theirs in their folders: resume_auditor/designs/)
- intervals.py, robust.py, bootstrap.py — clustered intervals (by source resume)
- randomization.py, multiplicity.py — group tests and Holm's correction
- power.py, thresholds.py — what an audit can find; flag thresholds with sources
"""
