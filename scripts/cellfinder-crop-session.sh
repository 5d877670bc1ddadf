#!/usr/bin/env bash
# cellfinder-crop-session.sh: docs/cellfinder-crop.png, cellfinder's own
# crop (git archive of github:brainglobe/cellfinder's
# tests/data/integration/detection) worked through in a real window
# under Xvfb at 1280x800, driven with xdotool as a new user would, from
# the panel only: File ▸ Open folder for crop_planes/ch0 and ch1, 5,2,2
# typed on ch1, Detect cells, Classify cells with a model file, two
# steps of the walk and C on the second point, Ctrl+S (and "Save as CSV
# instead" for the unknown points), Training cubes, File ▸ Export layer
# to OME-Zarr, the export reopened, then grid mode. Each step waits for
# its output file (or the window) rather than for a fixed time, then the
# script checks what the window wrote: the detections, the classified
# XML and CSV, training.yaml and the export's OME-Zarr scale 5,2,2.
#
#   xvfb-run -a -s '-screen 0 1280x800x24' scripts/cellfinder-crop-session.sh CROP MODEL [bin/voxlab] [docs/cellfinder-crop.png]
#
# CROP is the folder holding crop_planes/; MODEL a model file (e.g. one
# `voxlab train` wrote from cubes of this crop). Outputs are written next
# to the crop's planes, where the forms suggest them: use a copy.
# Needs xdotool and ImageMagick's import. The coordinates are the
# window's layout at 1280x800; a changed layout shows in the PNG.
set -euo pipefail
crop=$(realpath "$1")
model=$(realpath "$2")
exe=${3:-bin/voxlab}
out=${4:-docs/cellfinder-crop.png}
planes=$crop/crop_planes
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
rm -rf "$planes"/ch0-cells*.csv "$planes"/ch0-classified* "$planes"/ch0-cubes* "$planes"/ch1-export*

# waitfor PATH: until PATH exists (3 min at most: a hang, not a timing).
waitfor() {
  for _ in $(seq 1800); do [ -e "$1" ] && { sleep 1; return; }; sleep 0.1; done
  import -window root "${out%.png}-failed.png"
  echo "cellfinder-crop-session: $1 never appeared (the window: ${out%.png}-failed.png)" >&2; exit 1
}
click() { xdotool mousemove "$1" "$2" click 1; sleep 0.8; }
scroll() { # x y clicks (positive: down)
  local b=5 n=$3; [ "$n" -lt 0 ] && { b=4; n=$((-n)); }
  xdotool mousemove "$1" "$2"
  for _ in $(seq "$n"); do xdotool click $b; sleep 0.15; done; sleep 0.8
}
pipeline() { # y of the entry in the Pipeline list
  scroll 1097 300 -30; click 1097 177; click 985 "$1"; sleep 1
}
openfolder() {
  xdotool key ctrl+shift+o; sleep 1; xdotool key ctrl+a
  xdotool type --delay 5 "$1"; xdotool key Return; sleep 2
}

HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache "$exe" gui --size 1280x800 &
pid=$!
for _ in $(seq 300); do xdotool search --name voxlab >/dev/null 2>&1 && break; sleep 0.1; done
sleep 3

openfolder "$planes/ch0"
openfolder "$planes/ch1"
click 170 186; xdotool type --delay 20 "5,2,2"; xdotool key Return; sleep 1

pipeline 289                                   # Detect cells
click 1059 511; waitfor "$planes/ch0-cells.csv"

pipeline 328                                   # Classify cells
scroll 1097 400 24
click 1070 340; xdotool type --delay 5 "$model"; xdotool key Tab; sleep 8   # the plan
click 1059 513; waitfor "$planes/ch0-classified.xml"

click 18 530                                   # hide the detections
click 800 600; xdotool key period; sleep 1; xdotool key period; sleep 1
xdotool key c; sleep 1
xdotool key ctrl+s; sleep 1.5; xdotool key Return   # Save as CSV instead
waitfor "$planes/ch0-classified.csv"

pipeline 368                                   # Training cubes
scroll 1097 400 6
click 1059 497; waitfor "$planes/ch0-cubes/training.yaml"

click 120 568                                  # ch1
click 27 14; click 60 162                      # File ▸ Export layer
click 1059 513; waitfor "$planes/ch1-export.ome.zarr/.zattrs"
xdotool key ctrl+o; sleep 1; xdotool key ctrl+a
xdotool type --delay 5 "$planes/ch1-export.ome.zarr"; xdotool key Return; sleep 3
click 18 490                                   # hide the export
click 120 530                                  # the classified points
click 354 50; sleep 2                          # Grid
import -window root "$out"
echo "wrote $out"

grep -q '"scale"' "$planes/ch1-export.ome.zarr/.zattrs"
tr -d ' \n' < "$planes/ch1-export.ome.zarr/.zattrs" | grep -q '\[5,2,2\]' ||
  { echo "cellfinder-crop-session: the export's scale is not 5,2,2" >&2; exit 1; }
echo "detections: $(($(wc -l < "$planes/ch0-cells.csv") - 1)); classified CSV: $(($(wc -l < "$planes/ch0-classified.csv") - 1)) points; cubes: $(find "$planes/ch0-cubes" -name '*Ch0.tif' | wc -l)"
