"""Qt item models for the tables."""
