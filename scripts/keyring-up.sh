#!/usr/bin/env bash
# Starts an unlocked gnome-keyring (the Secret Service) in the current D-Bus session, its
# keyrings in the folder given (XDG_DATA_HOME) and its control socket in a folder of that one
# (XDG_RUNTIME_DIR), so no daemon left by another run can answer for it. It is ready once a
# secret can be written to its default collection and deleted again, as svc's writes need
# (a CI run once found the name owned and no collection yet: every keychain suite then failed
# with "no result found"). A daemon that is not ready within 5 s is ended and started again,
# three times in all; then this script says what it saw and exits 1.
# Used by scripts/test-real.sh and scripts/test-standalone.sh inside their dbus-run-session.
#   bash scripts/keyring-up.sh KEYRINGS_DIR
set -euo pipefail
case "${1:-}" in -h | --help)
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
  ;;
esac
keyrings=$1
runtime="$keyrings/run"
mkdir -p -m 700 "$runtime"
bus() { dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus "$@" 2>/dev/null; }
owned() { bus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q 'boolean true'; }
owner_pid() { bus org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '/uint32/ {print $2}'; }
# (Asked only once the name is owned: asking earlier would have D-Bus start a daemon itself,
# locked and on the user's keyrings.)
writable() {
  printf probe | timeout 5 secret-tool store --label='svc keyring-up probe' svc-keyring-up probe >/dev/null 2>&1 &&
    timeout 5 secret-tool clear svc-keyring-up probe >/dev/null 2>&1
}
for attempt in 1 2 3; do
  printf svc-test | XDG_DATA_HOME="$keyrings" XDG_RUNTIME_DIR="$runtime" gnome-keyring-daemon --unlock --components=secrets >/dev/null
  for _ in $(seq 50); do
    owned && writable && exit 0
    sleep 0.1
  done
  echo "keyring-up: start $attempt of 3: gnome-keyring did not take a secret within 5 s (org.freedesktop.secrets owned: $(owned && echo yes || echo no))" >&2
  # The daemon that took the name without a usable collection would keep it from the next one.
  pid=$(owner_pid || true)
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  for _ in $(seq 20); do owned || break; sleep 0.1; done
done
echo "keyring-up: no usable Secret Service; its keyrings folder holds: $(ls -A "$keyrings/keyrings" 2>/dev/null | tr '\n' ' ')" >&2
exit 1
