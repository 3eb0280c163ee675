"""A document we cannot use, and what the user can do about it."""

from __future__ import annotations

from enum import StrEnum


class DocProblem(StrEnum):
    NOT_FOUND = "not_found"
    EMPTY = "empty"
    NO_TEXT = "no_text"  # scanned / image-only
    ENCRYPTED = "encrypted"
    WRONG_PASSWORD = "wrong_password"
    CORRUPT = "corrupt"
    TOO_LARGE = "too_large"
    TOO_MANY_PAGES = "too_many_pages"
    UNSUPPORTED = "unsupported"


class DocumentError(Exception):
    """Raised with a message written for the person who chose the file."""

    def __init__(self, problem: DocProblem, message: str) -> None:
        super().__init__(message)
        self.problem = problem
        self.message = message

    def __str__(self) -> str:
        return self.message
