"""Variants and test cases: demographic fills, qualification edits, design builders."""
