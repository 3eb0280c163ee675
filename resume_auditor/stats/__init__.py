"""Statistics: metrics per design with honest intervals.

Pure functions over pandas DataFrames of judgments; no disk, no network, no Qt.
The input tables are specified in inputs.py (documented in docs/stats-inputs.md);
outputs are Metric objects (metric.py) whose JSON is in docs/metrics-json.md.

- pair_choice.py — Castleman et al. 2025 (the pairwise answer read in case terms; D1's
  own statistics are in designs/d1_castleman/)
- (D2, Gaebler et al. 2024, correspondence experiment; D3, Chen et al. 2024, RABBI; D4,
  Wen et al. 2025, FAIRE; and D5 keep theirs in their folders: resume_auditor/designs/)
- intervals.py, robust.py, bootstrap.py — clustered intervals (by source resume)
- randomization.py, multiplicity.py — group tests and Holm's correction
- power.py, thresholds.py — what an audit can find; flag thresholds with sources
"""
