# lib.sh: what the parts of scripts/bench-scale.sh share. Sourced, not run.
#
# The driver sets, for each part:
#   VOXLAB  the voxlab binary (absolute path)
#   WORK    an empty folder of the part's own, deleted after the part
#   SCALE   the data size as a fraction of the field's (1 = full size)
#   PY      Debian's python3 (numpy, scipy, h5py, tifffile)
# A part generates its data in WORK, runs voxlab's command under `timed`,
# checks part of the output against an independent reference and prints
# one `result` line per case.

# A part run by hand gets the same checks and defaults as from the driver.
: "${VOXLAB:?set VOXLAB to the voxlab binary}" "${WORK:?set WORK to an empty folder}"
SCALE=${SCALE:-1}
PY=${PY:-/usr/bin/python3}

# timed NAME CMD...: runs CMD under /usr/bin/time -v, its output in
# $WORK/NAME.out and $WORK/NAME.time; sets WALL_S and PEAK_RSS_MIB. The
# command's exit status is returned.
timed() {
  local name=$1; shift
  local rc=0
  /usr/bin/time -v -o "$WORK/$name.time" "$@" >"$WORK/$name.out" 2>&1 || rc=$?
  WALL_S=$(awk -F': ' '/Elapsed \(wall clock\)/ {
      n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f", s }' "$WORK/$name.time")
  PEAK_RSS_MIB=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$WORK/$name.time")
  if [ $rc != 0 ]; then
    echo "$name: exit $rc" >&2
    tail -20 "$WORK/$name.out" >&2
  fi
  return $rc
}

# plan_ram_mib CMD...: the plan's predicted peak RAM in MiB for a
# pipeline command line (voxlab plan PIPELINE ARGS... --json).
plan_ram_mib() {
  "$VOXLAB" plan "$@" --json | "$PY" -c 'import json, sys; print("%.1f" % (json.load(sys.stdin)["peak_ram_bytes"] / 2**20))'
}

# rss_ok PEAK PLAN: "ok" when the peak RSS (MiB) is within the plan's
# prediction + 10% + 100 MB, else "OVER".
rss_ok() {
  awk -v p="$1" -v q="$2" 'BEGIN { print (p <= q * 1.1 + 100e6 / 2^20) ? "ok" : "OVER" }'
}

# result KEY=VALUE...: one line of the summary, e.g.
#   result pipeline=dezing case=chunked throughput=120.5 unit=Mvox/s wall_s=80.2 \
#     peak_rss_mib=900.1 plan_ram_mib=850.0 rss=ok check=ok
result() {
  echo "RESULT $*"
}
