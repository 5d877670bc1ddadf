#!/usr/bin/env bash
# curation-session.sh: docs/curation-select.png and docs/curation-save.png,
# a real window under Xvfb driven with xdotool: the demo brain's ground
# truth and a detection run as two points layers, three steps of the
# curation walk ('.'), the select mode (3), a box dragged over candidates
# (it takes those of the plane on show only), N to mark them non-cells, a
# click and U to leave one undecided, then Ctrl+Shift+S: Save points as,
# on the layer's own file, asking before the unknown point goes to
# cellfinder's XML.
#   xvfb-run -a -s '-screen 0 1280x800x24' scripts/curation-session.sh [bin/voxlab] [docs/curation-select.png] [docs/curation-save.png]
# Needs xdotool and ImageMagick's import.
set -euo pipefail
exe=${1:-bin/voxlab}
out=${2:-docs/curation-select.png}
save=${3:-docs/curation-save.png}
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
"$exe" demo "$tmp/demo" >/dev/null
"$exe" detect "$tmp/demo/brain/planes" "$tmp/cells.csv" --xml >/dev/null 2>&1
HOME=$tmp "$exe" view "$tmp/demo/brain/planes" "$tmp/demo/brain/cells.csv" "$tmp/cells.xml" --size 1280x800 &
pid=$!
sleep 6
xdotool mousemove 800 420 click 1; sleep 0.3     # the canvas takes the keys
for _ in 1 2 3; do xdotool key period; sleep 0.4; done
xdotool key 3; sleep 0.3
drag() { # x0 y0 x1 y1
  xdotool mousemove "$1" "$2" mousedown 1; sleep 0.2
  for i in 1 2 3 4; do xdotool mousemove $(($1 + ($3 - $1) * i / 4)) $(($2 + ($4 - $2) * i / 4)); sleep 0.1; done
  xdotool mouseup 1; sleep 0.5
}
drag 770 330 930 420
xdotool key n; sleep 0.4
xdotool mousemove 855 572 click 1; sleep 0.5
xdotool key u; sleep 0.4
drag 680 500 900 600
import -window root "$out"
echo "wrote $out"
xdotool key ctrl+shift+s; sleep 0.8
xdotool key Return; sleep 0.8     # Save: the layer's XML, which asks about the unknown point
import -window root "$save"
echo "wrote $save"
