#!/bin/sh
# A centre sweep of httomo's k11 DIAD scan run from the window, under
# Xvfb, driven with xdotool: the Reconstruct form with --center-sweep
# 10:16:0.5 opens the 13 slices as a stack; ↑ five times steps the map
# slider to map 5 (centre 12.5), then "Use this centre" fills the form's
# centre, and Run reconstructs every row at it. Screenshots: after the
# sweep opened, at map 5, after the click, after the run.
#
#   xvfb-run -a -s '-screen 0 1280x800x24' scripts/reconstruct-sweep-session.sh \
#     [bin/voxlab] [SCAN.nxs] [OUTDIR]
# Needs xdotool and ImageMagick's import. The scan is read only; the
# sweep is written to OUTDIR (default a new temporary folder).
set -eu
exe=${1:-bin/voxlab}
scan=${2:-/work/data/httomo/tests/test_data/k11_diad/k11-18014.nxs}
dir=${3:-$(mktemp -d)}
"$exe" gui "$scan" --run reconstruct --set out="$dir/sweep.npy" --set center-sweep=10:16:0.5 >"$dir/gui.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
i=0
while [ ! -f "$dir/sweep.npy" ] && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
sleep 3 # the stack opens and its first map loads
import -window root "$dir/sweep-opened.png"
xdotool mousemove 620 400 click 1; sleep 0.4 # the canvas takes the keys
for _ in 1 2 3 4 5; do xdotool key Up; sleep 0.3; done
sleep 1
import -window root "$dir/sweep-map5.png"
xdotool mousemove 1098 388 click 1; sleep 1.5 # Use this centre
import -window root "$dir/sweep-used.png"
xdotool mousemove 1058 496 click 1 # Run: every row at that centre, into sweep-2.npy
i=0
while [ ! -f "$dir/sweep-2.npy" ] && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
sleep 3
import -window root "$dir/reconstructed.png"
echo "screenshots in $dir"
