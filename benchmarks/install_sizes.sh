#!/usr/bin/env bash
# Install size of the core and of each extra: a fresh venv per line, `pip install` of a snapshot of
# HEAD, then `du -sm` of its site-packages. Prints one line per extra (MB); slow (it downloads).
#   bash benchmarks/install_sizes.sh core langchain openai-agents smolagents semantic report test
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
git -C "$root" archive HEAD | tar -x -C "$work" --one-top-level=snap
for extra in "$@"; do
  python -m venv "$work/venv"
  if [ "$extra" = core ]; then spec="$work/snap"; else spec="$work/snap[$extra]"; fi
  if "$work/venv/bin/pip" install -q --disable-pip-version-check "$spec" > "$work/pip.log" 2>&1; then ok=ok; else ok=FAILED; fi
  site="$(echo "$work"/venv/lib/python3*/site-packages)"
  echo "$extra $(du -sm "$site" | cut -f1) MB $ok"
  rm -rf "$work/venv"
done
