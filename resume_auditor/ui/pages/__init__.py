"""The workflow's pages: Job → Resumes → Variants → Run → Results."""
