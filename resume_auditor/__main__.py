"""`python -m resume_auditor` behaves like the `resume-auditor` command."""

from resume_auditor.cli import main

raise SystemExit(main())
