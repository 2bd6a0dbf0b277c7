#!/usr/bin/env bash
# Runs the real-component suites (OS keychain, real browser, packaged install, real shells).
# The keychain needs a Secret Service: start a private D-Bus session with an unlocked
# gnome-keyring for the run, as design.md "Tests" describes. Without those programs the
# suites still run and skip with a visible reason (a failure when SVC_REQUIRE_REAL=1).
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
  exec dbus-run-session -- sh -c 'echo -n svc-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null; sleep 0.5; exec npx vitest run --config vitest.real.config.ts "$@"' sh "$@"
fi
echo "note: dbus-run-session or gnome-keyring-daemon not installed; the keychain suite will skip" >&2
exec npx vitest run --config vitest.real.config.ts "$@"
