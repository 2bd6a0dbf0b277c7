#!/usr/bin/env bash
# Runs the real-component suites (OS keychain, real browser, packaged install, real shells).
# The keychain needs a Secret Service: start a private D-Bus session with an unlocked
# gnome-keyring for the run, as docs/design.md "Tests" describes. The daemon keeps its keyrings in
# a folder of its own (XDG_DATA_HOME, removed after): it never opens the user's login keyring,
# which it could not unlock with the run's password ("unlock prompt was dismissed").
# Without those programs the suites still run and skip with a visible reason (a failure when
# SVC_REQUIRE_REAL=1).
set -euo pipefail
case "${1:-}" in -h | --help)
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
  ;;
esac
cd "$(dirname "$0")/.."
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
  keyrings=$(mktemp -d "${TMPDIR:-/tmp}/svc-test-keyrings.XXXXXX")
  trap 'rm -rf "$keyrings"' EXIT
  status=0
  dbus-run-session -- sh -c 'keyrings=$1; shift; bash scripts/keyring-up.sh "$keyrings" || export SVC_KEYRING_UP=failed; exec npx vitest run --config vitest.real.config.ts "$@"' sh "$keyrings" "$@" || status=$?
  exit "$status"
fi
echo "note: dbus-run-session or gnome-keyring-daemon not installed; the keychain suite will skip" >&2
exec npx vitest run --config vitest.real.config.ts "$@"
