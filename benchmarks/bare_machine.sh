#!/usr/bin/env bash
# The README's first command on a bare Debian 12 (bookworm, Python 3.11), as a new user meets it.
#
# Run (as root; needs debootstrap and Xvfb on the host):
#   benchmarks/bare_machine.sh CHROOT [messages|readme]
#
#   messages (default)  start from a bare system with only python3, git and CA
#                       certificates; run the README's command; whenever it stops, install
#                       exactly the `apt-get install` line its message gives, run it again.
#                       Shows what the user sees at each step and that the lines suffice.
#   readme              install the line of README's "On a bare Debian/Ubuntu machine"
#                       first, then run the README's command once: it must open the app.
#
# CHROOT is made afresh on every run from a pristine minbase system kept in CHROOT.pristine
# (made once with `debootstrap --variant=minbase bookworm`; delete it to start over). The
# project is cloned into CHROOT/root/ra with `git clone` (its committed HEAD, not the working
# files). The host's pip cache is mounted read-only underneath an overlay, so pip reuses the
# llama-cpp-python wheel it built before (a cold build needs a compiler and ~12 min on 2
# cores; the script says whether the cached wheel was used) and the host cache is not written.
# The app is opened on Xvfb display :${BARE_DISPLAY:-77} (started if it is not running) with
# `gui --quit-after-load`, which exits once the sample study is loaded ("loaded ..."). The PDF
# report is then tried without Pango, and again after installing the line its message gives.
# Every mount is undone on exit (trap), so the script is safe to interrupt (Ctrl-C, or SIGINT to
# its process group) and to re-run.
# Everything runs under `nice -n 19`. Prints wall times per step; logs go to CHROOT.logs/.
set -euo pipefail

chroot_dir=$(realpath -m "${1:?usage: $0 CHROOT [messages|readme]}")
mode=${2:-messages}
[[ $mode == messages || $mode == readme ]] || { echo "mode must be messages or readme" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "run as root (debootstrap, chroot and mounts need it)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "apt-get install debootstrap first" >&2; exit 2; }
command -v Xvfb >/dev/null || { echo "apt-get install xvfb first" >&2; exit 2; }
[[ $chroot_dir != / && $chroot_dir != "$HOME" ]] || { echo "refusing CHROOT=$chroot_dir" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
pristine="$chroot_dir.pristine"
overlay="$chroot_dir.overlay"
logs="$chroot_dir.logs"
pip_cache=${BARE_PIP_CACHE:-/root/.cache/pip}
display_num=${BARE_DISPLAY:-77}
xvfb_pid=""
mounted=()

cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
  done
  mounted=()
  if [[ -n $xvfb_pid ]]; then kill "$xvfb_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mnt() {  # mnt TARGET MOUNT-ARGS...: mount and remember it for cleanup
  local target=$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounted+=("$target")
}

unmount_leftovers() {  # mounts left by an earlier run that was killed with SIGKILL
  local target
  while read -r target; do
    umount "$target" 2>/dev/null || umount -l "$target"
  done < <(awk -v root="$chroot_dir/" 'index($2, root) == 1 {print $2}' /proc/mounts | sort -r)
}

declare -A seconds
timed() {  # timed NAME CMD...: run, record wall seconds, keep going whatever it exits with
  local name=$1 start end code=0
  shift
  start=$(date +%s.%N)
  "$@" || code=$?
  end=$(date +%s.%N)
  seconds[$name]=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
  order+=("$name")
  return $code
}
order=()

# A user's shell inside the bare system: no host environment leaks in.
in_chroot() {
  nice -n 19 chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive DISPLAY=":$display_num" "$@"
}

apt_line_in() {  # the packages of the first `apt(-get) install` line in a log ("" when none)
  grep -m1 -oE 'apt(-get)? install [a-z0-9.+ -]+' "$1" | sed -E 's/^apt(-get)? install //; s/ *$//' || true
}

# The README's first command, verbatim except for the last part: the app opens the sample
# and exits by itself (`gui --quit-after-load`) instead of waiting for the user.
readme_command="python3 -m venv .venv && CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" .venv/bin/pip install -e '.[local]' && .venv/bin/resume-auditor gui --quit-after-load"
readme_run() {  # readme_run LOG: run it in the clone, tee its output into LOG
  local code=0
  in_chroot timeout --foreground 1800 sh -c "cd /root/ra && $readme_command" >"$1" 2>&1 || code=$?
  sed 's/^/    | /' "$1" | grep -v -E '^    \| +(Collecting|Downloading|Using cached|Requirement already|━)' | tail -25
  echo "    (exit $code)"
  return 0
}

# --- the bare system -------------------------------------------------------------------------
unmount_leftovers
mkdir -p "$logs"
if [[ ! -x $pristine/bin/sh ]]; then
  echo "== debootstrap --variant=minbase bookworm $pristine (once)"
  rm -rf "$pristine"
  timed debootstrap nice -n 19 debootstrap --variant=minbase bookworm "$pristine" >"$logs/debootstrap.log" 2>&1
fi
if awk -v root="$chroot_dir/" 'index($2, root) == 1' /proc/mounts | grep -q .; then
  echo "something is still mounted under $chroot_dir; not deleting it" >&2
  exit 1
fi
rm -rf --one-file-system "$chroot_dir" "$overlay"
cp -a "$pristine" "$chroot_dir"
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
# Host-only set-up, not a user step: certificate authorities the host's network needs.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$chroot_dir/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$chroot_dir/usr/local/share/ca-certificates/"
fi

mnt "$chroot_dir/proc" -t proc proc
mnt "$chroot_dir/dev" --bind /dev
mnt "$chroot_dir/dev/pts" --bind /dev/pts
if [[ ! -S /tmp/.X11-unix/X$display_num ]]; then
  Xvfb ":$display_num" -screen 0 1280x800x24 >"$logs/xvfb.log" 2>&1 &
  xvfb_pid=$!
  for _ in $(seq 50); do [[ -S /tmp/.X11-unix/X$display_num ]] && break; sleep 0.2; done
fi
mnt "$chroot_dir/tmp/.X11-unix" --bind /tmp/.X11-unix
if [[ -d $pip_cache ]]; then
  mkdir -p "$overlay/upper" "$overlay/work"
  mnt "$chroot_dir/root/.cache/pip" -t overlay overlay \
    -o "lowerdir=$pip_cache,upperdir=$overlay/upper,workdir=$overlay/work"
else
  echo "!! no pip cache at $pip_cache: llama-cpp-python would be built from source"
fi

echo "== user: apt-get install python3 git ca-certificates (what the README assumes)"
timed base-packages in_chroot sh -c 'apt-get update -q && apt-get install -y -q python3 git ca-certificates' \
  >"$logs/apt-base.log" 2>&1
git clone -q "$repo" "$chroot_dir/root/ra"
echo "   python: $(in_chroot python3 --version), project at $(git -C "$chroot_dir/root/ra" log --oneline -1)"

if [[ $mode == readme ]]; then
  line=$(awk '/^### On a bare Debian\/Ubuntu machine/ {f = 1} f && /^```/ {n++; next} f && n == 1' "$repo/README.md" |
    tr '\\\n' '  ' | sed 's/^ *sudo apt-get install //')
  [[ -n $line ]] || { echo "README has no 'On a bare Debian/Ubuntu machine' apt line" >&2; exit 1; }
  echo "== user: the README's line: apt-get install $line"
  timed readme-apt-line in_chroot apt-get install -y -q $line >"$logs/apt-readme.log" 2>&1
fi

# --- the README's command, again after each message ------------------------------------------
for attempt in 1 2 3 4; do
  echo "== user: $readme_command   (attempt $attempt)"
  timed "readme-command-$attempt" readme_run "$logs/run-$attempt.log"
  if grep -q "Using cached llama_cpp_python" "$logs/run-$attempt.log"; then
    echo "   pip reused the cached llama-cpp-python wheel"
  elif grep -q "Building wheel for llama-cpp-python" "$logs/run-$attempt.log"; then
    echo "!! pip built llama-cpp-python from source (wheel cache missed)"
  fi
  if grep -q "^loaded " "$logs/run-$attempt.log"; then
    echo "   the app opened and loaded the sample"
    break
  fi
  packages=$(apt_line_in "$logs/run-$attempt.log")  # Debian's venv says "apt install python3.11-venv"
  if [[ -z $packages || $mode == readme ]]; then
    echo "!! the command stopped without an apt-get line to follow" >&2
    exit 1
  fi
  echo "== user: apt-get install $packages"
  timed "apt-$attempt" in_chroot apt-get install -y -q $packages >"$logs/apt-$attempt.log" 2>&1
  grep -E "newly installed" "$logs/apt-$attempt.log" | sed 's/^/   /'
done
grep -q "^loaded " "$logs/run-$attempt.log" || { echo "!! the app never opened" >&2; exit 1; }

missing=$(in_chroot sh -c 'cd /root/ra/.venv/lib/python3.11/site-packages/PySide6 &&
  ldd Qt/plugins/platforms/libqxcb.so QtPdf.abi3.so QtPdfWidgets.abi3.so | grep "not found" | sort -u')
echo "   libraries still missing for Qt's X11 plugin and QtPdf: ${missing:-none}"

echo "== user, over SSH without a display: .venv/bin/resume-auditor"
code=0
in_chroot env -u DISPLAY /root/ra/.venv/bin/resume-auditor >"$logs/no-display.log" 2>&1 || code=$?
sed 's/^/    | /' "$logs/no-display.log"
echo "    (exit $code)"
[[ $code == 3 ]] || { echo "!! without a display the app did not stop with its message" >&2; exit 1; }

# --- the PDF report --------------------------------------------------------------------------
audit=/root/.local/share/resume-auditor/audits/sample.audit
for attempt in 1 2; do
  echo "== user: resume-auditor report $audit --pdf /root/report.pdf   (attempt $attempt)"
  code=0
  timed "pdf-$attempt" in_chroot /root/ra/.venv/bin/resume-auditor report "$audit" --pdf /root/report.pdf \
    >"$logs/pdf-$attempt.log" 2>&1 || code=$?
  sed 's/^/    | /' "$logs/pdf-$attempt.log"
  echo "    (exit $code)"
  [[ $code == 0 ]] && break
  packages=$(apt_line_in "$logs/pdf-$attempt.log")
  [[ -n $packages && $mode == messages ]] || { echo "!! no apt-get line to follow" >&2; exit 1; }
  echo "== user: apt-get install $packages"
  timed "apt-pdf" in_chroot apt-get install -y -q $packages >"$logs/apt-pdf.log" 2>&1
done
[[ -s $chroot_dir/root/report.pdf ]] || { echo "!! no PDF written" >&2; exit 1; }

echo
echo "== wall times (s), warm pip wheel cache, nice -n 19 on a shared machine"
for name in "${order[@]}"; do printf '   %-20s %8s\n' "$name" "${seconds[$name]}"; done
