"""The one owner of concurrency: scheduling, retries, recording every answer."""

from resume_auditor.runner.runner import Answer, Event, Runner, RunState, RunStatus

__all__ = ["Answer", "Event", "RunState", "RunStatus", "Runner"]
