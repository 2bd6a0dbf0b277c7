#!/usr/bin/env bash
# `npm test` beside a CPU load: three CPU-bound processes per core, as a busy CI runner or a
# laptop compiling something has. A test that depends on how fast the machine is (a clock
# running N times real time, a delay that must outrun something) fails here. The load is ended
# however the run ends. Run by .ci/run once per run; by hand:
#   bash scripts/test-busy.sh [-- vitest arguments]
set -euo pipefail
case "${1:-}" in -h | --help)
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
  ;;
esac
[ "${1:-}" = "--" ] && shift
cd "$(dirname "$0")/.."
cores=$(node -p 'require("node:os").availableParallelism()')
loaders=$((cores * 3))
pids=()
stop_load() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_load EXIT
for _ in $(seq "$loaders"); do
  sh -c 'while :; do :; done' &
  pids+=($!)
done
echo "test-busy: npm test beside $loaders CPU-bound processes ($cores cores)" >&2
started=$(date +%s)
status=0
if (($#)); then npm test -- "$@" < /dev/null || status=$?; else npm test < /dev/null || status=$?; fi
echo "test-busy: npm test ended with $status after $(($(date +%s) - started)) s under load" >&2
exit "$status"
