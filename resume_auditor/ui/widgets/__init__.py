"""Reusable widgets: metric cards, charts, side-by-side diffs."""
