#!/usr/bin/env bash
# svc without Node: builds the standalone binaries and .debs once (`npm run dist`), then runs
# - test/standalone/ (the x64 binary with no node on PATH, as a user with no home (setpriv),
#   alternating with another version of itself; the arm64 one under qemu-user; the .deb with
#   lintian, dpkg -i / -V / --purge, man and bash completion; a second build compared byte for
#   byte; the signed apt repository used by apt-get in a throwaway root: verified, tampered,
#   unsigned, a key rotation, an upgrade to the next version built for real, the .deb beside
#   the npm install), and
# - the spawned-binary suites (test/bin/) and the real-terminal suite against the x64 binary
#   (SVC_BIN), with SVC_PATH a PATH on which no node is found.
# Under a private D-Bus session with an unlocked gnome-keyring, as scripts/test-real.sh: the
# daemon keeps its keyrings in a folder of its own (XDG_DATA_HOME, removed after), never the
# user's login keyring, which the run's password could not unlock ("unlock prompt was dismissed").
# Extra arguments go to every vitest run (e.g. --reporter=json --outputFile.json=…: see scripts/test.mjs).
set -euo pipefail
case "${1:-}" in -h | --help)
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
  ;;
esac
cd "$(dirname "$0")/.."
if [ -z "${SVC_IN_DBUS:-}" ] && command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
  keyrings=$(mktemp -d "${TMPDIR:-/tmp}/svc-test-keyrings.XXXXXX")
  trap 'rm -rf "$keyrings"' EXIT
  status=0
  dbus-run-session -- sh -c 'keyrings=$1; shift; bash scripts/keyring-up.sh "$keyrings"; SVC_IN_DBUS=1 exec bash scripts/test-standalone.sh "$@"' sh "$keyrings" "$@" || status=$?
  exit "$status"
fi

node scripts/build.mjs
# A test build: signed by a throwaway key (a release is RELEASING.md's, with the release key).
SVC_THROWAWAY_KEY=1 node scripts/dist.mjs

# A PATH with every program of this machine's but Node's.
no_node="$(mktemp -d)"
trap 'rm -rf "$no_node"' EXIT
for dir in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
  [ -d "$dir" ] || continue
  for file in "$dir"/*; do
    name="${file##*/}"
    case "$name" in node | nodejs | npm | npx | corepack) continue ;; esac
    [ -e "$no_node/$name" ] || ln -s "$file" "$no_node/$name"
  done
done
if PATH="$no_node" command -v node >/dev/null; then
  echo "test-standalone: node is still on the PATH meant to have none" >&2
  exit 1
fi

version="$(node -p 'require("./package.json").version')"
export SVC_PATH="$no_node"
status=0
report() { if [ -n "${SVC_REPORT_PREFIX:-}" ]; then echo "--reporter=default --reporter=json --outputFile.json=${SVC_REPORT_PREFIX}-$1.json"; fi; }
# shellcheck disable=SC2046
npx vitest run --config vitest.standalone.config.ts $(report standalone) "$@" || status=1
# shellcheck disable=SC2046
SVC_BIN="$PWD/release/$version/svc-$version-linux-x64" npx vitest run $(report standalone-bin) test/bin/ "$@" || status=1
# shellcheck disable=SC2046
SVC_BIN="$PWD/release/$version/svc-$version-linux-x64" npx vitest run --config vitest.real.config.ts $(report standalone-terminal) test/real/terminal.test.ts "$@" || status=1
exit "$status"
