"""Documents in: reading PDF, DOCX and text into clean text; identity slots; findings.

Start at `load.py` (files to clean text), `identity.py` (identity slots),
`screening.py` and `demographics.py` (findings), `jobparse.py` (the job's
checklist) and `extract.py`, which puts them together for the CLI and the GUI.
See docs/documents.md.
"""
