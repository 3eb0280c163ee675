"""Resume Auditor: audit an LLM's resume screening for validity and fairness."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("resume-auditor")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"

APP_NAME = "Resume Auditor"
APP_ID = "resume-auditor"
