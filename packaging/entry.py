"""The frozen app's entry point: the same `resume-auditor` command as a pip install.

With no arguments it opens the app; `serve-local` (which the app itself starts for
the bundled model) and every other subcommand work from the one executable.
"""

from resume_auditor.cli import main

raise SystemExit(main())
