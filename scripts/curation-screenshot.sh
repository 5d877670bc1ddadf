#!/usr/bin/env bash
# curation-screenshot.sh: the docs/curation.png screenshot of a curation
# session on the demo brain: the ground truth and a detection run being
# curated as two points layers (their own colours), some candidates
# marked non-cell or left unknown, the walk at its 37th point (selected,
# centred on its plane) and the review progress.
#   scripts/curation-screenshot.sh [bin/voxlab] [docs/curation.png]
set -euo pipefail
exe=${1:-bin/voxlab}
out=${2:-docs/curation.png}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exe" demo "$tmp/demo" >/dev/null
"$exe" detect "$tmp/demo/brain/planes" "$tmp/detected.csv" >/dev/null
# A session half done: every 4th candidate judged a non-cell, every 7th
# not yet decided (as a user's File ▸ Save points would leave them).
awk -F, 'NR == 1 { print; next } { t = $4; if (NR % 4 == 0) t = "non-cell"; else if (NR % 7 == 0) t = "unknown"; print $1 "," $2 "," $3 "," t }' \
  "$tmp/detected.csv" > "$tmp/curated.csv"
"$exe" view "$tmp/demo/brain/planes" "$tmp/demo/brain/cells.csv" "$tmp/curated.csv" \
  --walk 37 --screenshot "$out" --size 1400x900
