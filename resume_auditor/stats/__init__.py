"""Statistics: metrics per design with honest intervals.

Pure functions over pandas DataFrames of judgments; no disk, no network, no Qt.
"""
