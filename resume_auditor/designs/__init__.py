"""Audit designs as units: each design in its own folder behind one small interface.

A design (`base.Design`) owns its study settings, how its test cases are built,
the requests they imply, how its answers become a tidy table, its statistics and
metrics type, its report section and its Results panel. The registry
(`registry.DESIGNS`) lists them; the workflow, report and UI iterate over it and
know no design by name. D5 (Bloomberg's eight-name ranking) was the first design
built this way, D4 (FAIRE, `d4_faire/`) the first moved here and D3 (Chen et al.'s
pools, `d3_rabbi/`) the second; D1 and D2 still live in `variants/`, `stats/` and
`workflow/` and move here one at a time (docs/designs.md, "Designs as units").
"""
