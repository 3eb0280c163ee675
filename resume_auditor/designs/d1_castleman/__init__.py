"""D1: pairwise choice between two candidates (Castleman et al. 2025), as one design folder.

Validity on unequal pairs (does the model pick the better-qualified candidate?) and
fairness on equal pairs (does it pick one group's candidate more often?). The move
into this folder is under way (docs/designs.md, "Designs as units"): its statistics,
its case building and its requests live here (`stats`, `groups`, `breakdowns`,
`agreement`, `cases`, `requests`); its settings, metrics type, report section and
Results panel still live in `domain/study.py`, `stats/model.py`, `workflow/` and
`report/`, which reach it by name, and D1 is not in `registry.DESIGNS` yet.
"""
