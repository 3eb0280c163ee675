"""Plain dataclasses for an audit: job, resumes, identities, variants, cases, judgments.

Nothing here imports anything else of ours, touches the disk or the network.
"""
