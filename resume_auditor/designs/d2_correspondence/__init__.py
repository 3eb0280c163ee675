"""D2: the correspondence experiment (Gaebler et al. 2024), gathered into one design folder.

One synthetic copy of each real resume per group (a name that signals race and
gender, matching pronouns), optionally one with the identity removed, each rated
1–5; per group: the standardized difference in mean rating against White men and
the adverse impact ratio at thresholds 3, 4 and 5. `cases.py` builds the copies,
`requests.py` their requests, `table.py` the answers' tidy table, `stats.py` the
numbers, `present.py` its rows on the Results page. Not yet behind the `Design`
interface: the workflow, report and UI still reach D2 by name (docs/designs.md,
"Designs as units", lists what remains of the move).
"""
