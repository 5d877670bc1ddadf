#!/usr/bin/env bash
# gen_crop_cubes.sh writes crop_cubes/: training cubes of cellfinder's own
# crop (cellfinder/tests/data/integration/detection: crop_planes/ch0 the
# signal, ch1 the background, 30 x 510 x 667 at 5,2,2 µm), as voxlab's
# Export training cubes writes them, for TestFitCropCubes:
#   - cells: the markers of the crop's cell_classification.xml;
#   - non-cells: `voxlab detect --threshold 6` candidates more than 20 µm
#     from every marker;
# KEEP cells (the first in z, y, x order whose cube lies inside the
# volume) and as many non-cells, each the candidate nearest a cell's
# plane (the classes then lie at the same depths), cut at --cube-size SIZE (default 20,20,8: 40 KB a cube pair,
# so that the subset can be committed; cellfinder's 50,50,20 is 16 times
# that). Usage: gen_crop_cubes.sh [CROP_DIR] (needs bin/voxlab and
# /usr/bin/python3); OUT=DIR writes there instead (the README's
# and BENCHMARKS' 116 cubes: OUT=... KEEP=1000 SIZE=50,50,20).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
crop=${1:-/work/data/cellfinder/tests/data/integration/detection}
size=${SIZE:-20,20,8} keep=${KEEP:-20}
voxlab=${VOXLAB:-$root/bin/voxlab} out=${OUT:-$here/crop_cubes}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$voxlab" detect "$crop/crop_planes/ch0" "$tmp/candidates.csv" --voxel-size 5,2,2 --threshold 6 --quiet
/usr/bin/python3 - "$crop/cell_classification.xml" "$tmp/candidates.csv" "$tmp/curated.csv" "$size" "$keep" <<'PY'
import csv, sys, xml.etree.ElementTree as ET
xml_path, cand_path, out_path, size, keep = sys.argv[1:6]
d = int(size.split(",")[2])
voxel = (5.0, 2.0, 2.0)  # z, y, x µm
cells = [(int(m.findtext("MarkerZ")), int(m.findtext("MarkerY")), int(m.findtext("MarkerX")))
         for m in ET.parse(xml_path).iter("Marker")]
cands = [(int(float(r["z"])), int(float(r["y"])), int(float(r["x"]))) for r in csv.DictReader(open(cand_path))]
def far(p):
    return all(sum(((a - b) * v) ** 2 for a, b, v in zip(p, c, voxel)) > 20.0 ** 2 for c in cells)
inside = lambda p: d // 2 <= p[0] <= 30 - d // 2  # cellfinder's cube of d planes about z
chosen = sorted(filter(inside, cells))[: int(keep)]
# Non-cells matched to the cells' planes: for each cell, the unused
# candidate nearest it in z (then in z, y, x order), so that the classes
# do not differ by where in the stack their cubes lie.
pool = sorted(p for p in cands if far(p) and inside(p))
others = []
for c in chosen:
    if pool:
        best = min(pool, key=lambda p: (abs(p[0] - c[0]), p))
        pool.remove(best)
        others.append(best)
sel = [(p, "cell") for p in chosen] + [(p, "non_cell") for p in sorted(others)]
with open(out_path, "w") as f:
    f.write("z,y,x,type\n")
    for (z, y, x), t in sel:
        f.write(f"{z},{y},{x},{t}\n")
print(f"{sum(t == 'cell' for _, t in sel)} cells, {sum(t == 'non_cell' for _, t in sel)} non-cells "
      f"({len(cells)} markers, {len(cands)} candidates)")
PY
"$voxlab" cubes "$crop/crop_planes/ch0" "$tmp/curated.csv" "$tmp/cubes" --background "$crop/crop_planes/ch1" \
  --voxel-size 5,2,2 --cube-size "$size" --quiet
rm -rf "$out/cells" "$out/non_cells"
mkdir -p "$out"
mv "$tmp/cubes/cells" "$tmp/cubes/non_cells" "$out/"
echo "$out: $(ls "$out/cells" | wc -l) cell files, $(ls "$out/non_cells" | wc -l) non-cell files"
