#!/usr/bin/env bash
# screenshots-compare.sh: renders the screenshots of README.md (and a few
# more sizes and modes) with two voxlab binaries, runs interleaved, and
# compares them pixel for pixel (ImageMagick's compare -metric AE: the
# number of pixels that differ) and by wall time and peak RSS
# (/usr/bin/time). Use it when the offscreen rendering or Fyne changes:
#
#   git stash; go build -o /tmp/voxlab-old ./app; git stash pop
#   go build -o /tmp/voxlab-new ./app
#   scripts/screenshots-compare.sh /tmp/voxlab-old /tmp/voxlab-new [ROUNDS]
#
# ROUNDS (default 3, at least 2) runs of each binary per shot, OLD and NEW
# alternating; the PNGs of the first two are compared. `old-old` is the
# difference between two runs of OLD: the panel shots after `gui --run`
# show the job's duration and measured peak memory, which differ from run
# to run: look at those (compare A B diff.png) to see that they differ
# only there. Each run gets a fresh copy of the demo data (outputs of
# earlier runs would change the panel's default output names). It exits
# 1 when a shot that OLD draws the same twice differs in NEW.
set -euo pipefail
old=$1 new=$2 rounds=${3:-3}
[ "$rounds" -ge 2 ] || { echo "screenshots-compare: ROUNDS must be 2 or more" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$new" demo "$tmp/pristine" >/dev/null

shots=(
  "brain|view D/brain/planes D/brain/cells.csv --slice 30"
  "brain-y-1600|view D/brain/planes D/brain/cells.csv --slice 30 --axis y --size 1600x1000"
  "maps-inferno|view D/maps/gt.npy --map 2 --slice 16 --colormap inferno"
  "cmp-grid|view D/maps/gt.npy D/maps/submitted.npy --grid --screenshot OUT --size 1400x700"
  "tomo|view D/tomo/scan.nxs --size 1280x800"
  "ortho|view D/brain/planes D/brain/cells.csv --ortho --point 30,100,120"
  "3d-mip|view D/brain/planes D/brain/cells.csv --3d mip --angles 30,25"
  "3d-iso|view D/maps/gt.npy --map 2 --3d iso --angles 35,25 --iso-threshold 0.25 --colormap inferno"
  "turntable|view D/maps/gt.npy --map 1 --3d mip --turntable 6 --screenshot OUT/ --size 1280x800"
  "gui-demo|gui --demo D"
  "gui-dezing|gui --demo D --run dezing --slice 43 --size 1600x1000"
  "gui-detect|gui --demo D --run detect --slice 30 --size 1280x800"
  "gui-distance|gui --demo D --run distance --size 1600x1000"
)

# render BIN NAME ARGS OUTDIR: one run in a fresh copy of the demo data.
render() {
  local bin=$1 name=$2 args=$3 out=$4
  rm -rf "$tmp/D" && cp -a "$tmp/pristine" "$tmp/D" && mkdir -p "$out"
  args=" $args "
  args=${args// D / $tmp/D }
  args=${args//D\//$tmp/D/}
  case $args in
    *OUT/*) mkdir -p "$out/$name"; args=${args//OUT\//$out/$name/} ;;
    *OUT*) args=${args//OUT/$out/$name.png} ;;
    *) args="$args --screenshot $out/$name.png" ;;
  esac
  # shellcheck disable=SC2086 # args are words
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" $args >"$tmp/log" 2>&1 ||
    { echo "$name: $bin failed:" >&2; cat "$tmp/log" >&2; return 1; }
  cat "$tmp/time"
}

# pixels A B: the pixels that differ between two PNGs, or folders of them.
pixels() {
  local n=0 f d
  for f in $([ -d "$1" ] && ls "$1"/*.png || echo "$1"); do
    d=$(compare -metric AE "$f" "${f/$1/$2}" null: 2>&1 >/dev/null || true)
    n=$((n + ${d%% *}))
  done
  echo $n
}

bad=0
printf '%-14s %9s %9s  %-18s %-18s\n' shot old-new old-old "old s/RSS KiB" "new s/RSS KiB"
for s in "${shots[@]}"; do
  name=${s%%|*} args=${s#*|}
  ot="" nt=""
  for r in $(seq 1 "$rounds"); do
    ot="$ot $(render "$old" "$name" "$args" "$tmp/old$r" | tr ' ' /)"
    nt="$nt $(render "$new" "$name" "$args" "$tmp/new$r" | tr ' ' /)"
  done
  a=$tmp/old1/$name b=$tmp/new1/$name c=$tmp/old2/$name
  [ -d "$a" ] || { a=$a.png b=$b.png c=$c.png; }
  on=$(pixels "$a" "$b") oo=$(pixels "$a" "$c")
  [ "$oo" -gt 0 ] || [ "$on" -eq 0 ] || bad=1
  printf '%-14s %9s %9s %s |%s\n' "$name" "$on" "$oo" "$ot" "$nt"
done
exit $bad
