"""Storage: the SQLite result file (one audit = one file) and its migrations."""
