"""D1's breakdown measures as the glossary names them (report/terms.breakdown_title).

The Results page titles each of D1's breakdown tables ("by k", "by signal") with these
words (views.py), and so do the report's sections but for one (present.BREAKDOWN_TITLES);
moved from report/terms.py, where they were the only design words kept by name.
"""

from __future__ import annotations

BREAKDOWN_TITLES = {
    "criterion_validity_by_k": "Picks the more qualified, by number of qualifications that differ",
    "criterion_validity_by_pair_type": "Picks the more qualified, by pair type",
    "criterion_validity_by_qual_type": "Picks the more qualified, by kind of qualification",
    "criterion_validity_by_change_location": "Picks the more qualified, by where the change is",
    "criterion_validity_by_generator": "Picks the more qualified, by how the variant was made",
    "criterion_validity_by_construction": "Picks the more qualified, by how the pair was built",
    "discrim_validity_by_signal": "Treats equal candidates as equal, by how the group is signalled",
}
