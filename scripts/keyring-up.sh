#!/usr/bin/env bash
# Starts an unlocked gnome-keyring (the Secret Service) in the current D-Bus session, its
# keyrings in the folder given (XDG_DATA_HOME), and waits until it owns org.freedesktop.secrets
# and has its default collection (a CI run once found the name owned and no collection yet).
# A daemon that has not claimed the name within 5 s is started once more: otherwise the first
# client's call would have D-Bus start a daemon of its own, locked and on the user's keyrings.
# Used by scripts/test-real.sh and scripts/test-standalone.sh inside their dbus-run-session.
#   bash scripts/keyring-up.sh KEYRINGS_DIR
set -euo pipefail
case "${1:-}" in -h | --help)
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
  ;;
esac
keyrings=$1
owned() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'
}
# (Asked only once the name is owned: asking earlier would have D-Bus start a daemon itself.)
has_default() {
  dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias string:default 2>/dev/null | grep -q 'object path "/org/freedesktop/secrets/collection/'
}
for attempt in 1 2; do
  printf svc-test | XDG_DATA_HOME="$keyrings" gnome-keyring-daemon --unlock --components=secrets >/dev/null
  for _ in $(seq 50); do
    owned && has_default && exit 0
    sleep 0.1
  done
  echo "keyring-up: gnome-keyring did not claim org.freedesktop.secrets with a default collection within 5 s (start $attempt of 2)" >&2
done
exit 0
