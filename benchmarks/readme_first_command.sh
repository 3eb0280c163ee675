#!/usr/bin/env bash
# Wall time of the README's first command on a fresh clone, first and second run.
#
# Run: benchmarks/readme_first_command.sh
#
# The README's command ends by opening the app, which waits for the user. Here the
# same set-up runs verbatim, and the app is opened offscreen with --quit-after-load,
# which exits as soon as the sample study is loaded and shown. The first run builds
# llama-cpp-python unless pip's wheel cache already has it (it says which).
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
git clone -q "$src" "$work/fresh"
cd "$work/fresh"
export QT_QPA_PLATFORM=offscreen RESUME_AUDITOR_DATA_DIR="$work/data"
cached=$(ls ~/.cache/pip/wheels 2>/dev/null | wc -l)
echo "pip wheel cache entries before: $cached"
for run in first second; do
  start=$(date +%s.%N)
  python3 -m venv .venv && CMAKE_ARGS="-DGGML_NATIVE=OFF" .venv/bin/pip install -q -e '.[local]' && .venv/bin/resume-auditor gui --quit-after-load
  end=$(date +%s.%N)
  printf '%s run: %.1f s\n' "$run" "$(echo "$end - $start" | bc)"
done
rm -rf "$work"
