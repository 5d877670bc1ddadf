#!/usr/bin/env bash
# race-exec.sh is the race pass's `go test -exec` (scripts/test.sh): it
# runs each test binary as go test would, in the package's folder, but
# app's, the longest of the pass, as two processes side by side: its
# heaviest command-line tests (APP_RACE_APART) under an X display of
# their own (server numbers from 300, so that no screen grab sees the
# other part's windows), and the rest on the pass's display. Every test
# runs once; the exit status is a failing part's. APP_RACE_APART and
# XVFB_ARGS (the server's arguments) come from scripts/test.sh.
set -uo pipefail
bin=$1
shift
case $(basename "$bin") in
app.test) ;;
*) exec "$bin" "$@" ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
xvfb-run -a -n 300 -s "$XVFB_ARGS" "$bin" "$@" -test.run "$APP_RACE_APART" >"$out/apart" 2>&1 &
apart=$!
"$bin" "$@" -test.skip "$APP_RACE_APART" >"$out/rest" 2>&1
r=$?
wait $apart || r=$?
echo "--- app under -race, the heaviest command-line tests (APP_RACE_APART):"
cat "$out/apart"
echo "--- app under -race, the other tests:"
cat "$out/rest"
exit $r
