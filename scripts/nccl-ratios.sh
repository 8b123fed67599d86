#!/usr/bin/env bash
# Reads a log of scripts/nccl-gpu.sh (run with NCCL_GPU_TIMINGS=R, and NCCL_GPU_BATCHED=1 for
# the batched column) and prints, per collective and size, custack's figures against nccl-tests'
# of the same log: BENCHMARKS.md's NCCL ratio tables, computed rather than copied by hand.
#
#   bash scripts/nccl-ratios.sh LOG
#
# Columns: custack's median GPU time per call (µs; the blocking mode, the example's `--timings`
# medians), nccl-tests' median time over its `-N R` rows of that size (the in-place column for
# all_reduce and broadcast, out-of-place for the others, as custack's safe calls cannot alias a
# send and a receive buffer), their ratio on the GPU's clock and on the host's (custack's median
# wall time per call, the clock nccl-tests times with), custack's batched time per call
# (`Comm::batch`, groups of k ≤ 20) against nccl-tests `-m K` (K calls in one group; 20 by default) and that
# ratio. A ratio above 1 is custack slower. Runs anywhere (awk and sort); no GPU needed.
set -euo pipefail
log=${1:?usage: scripts/nccl-ratios.sh LOG}
[[ -r $log ]] || { echo "scripts/nccl-ratios.sh: cannot read $log" >&2; exit 2; }
awk '
function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    if (n == 0) return ""
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
/^== 20_nccl_ranks --sweep --blocking --op / { mode = "custack"; op = $6; next }
/^== 20_nccl_ranks / { mode = ""; next }
/^== nccl-tests .* -m [0-9]+ / { mode = "batched"; op = $3; sub(/_perf$/, "", op); next }
/^== nccl-tests / { mode = "reference"; op = $3; sub(/_perf$/, "", op); next }
/^==/ { mode = ""; next }
mode == "custack" && NF == 9 && $1 ~ /^[0-9]+$/ {
    ops[op] = 1; sizes[$1] = 1
    gpu[op, $1] = $2; wall[op, $1] = $3; k[op, $1] = $5; batched[op, $1] = $6
    next
}
(mode == "reference" || mode == "batched") && $1 ~ /^[0-9]+$/ && NF >= 13 {
    col = (op == "all_reduce" || op == "broadcast") ? $10 : $6
    if (mode == "reference") ref[op, $1] = ref[op, $1] " " col
    else mref[op, $1] = col
    next
}
END {
    order = "all_reduce all_gather reduce_scatter broadcast reduce sendrecv"
    n = split(order, names, " ")
    for (i = 1; i <= n; i++) {
        o = names[i]
        if (!(o in ops)) continue
        printf "%s\n%12s %10s %10s %10s %8s %8s %4s %12s %12s %8s\n", o, "bytes", "custack", "wall", "nccl-tests", "gpu x", "wall x", "k", "batched", "-m K", "x"
        for (s = 1048576; s <= 1073741824; s *= 2) {
            # all_gather and reduce_scatter print a size that divides by the rank count.
            key = ""
            for (z in sizes) if (z + 0 <= s && z + 0 > s * 0.99 && (o SUBSEP z) in gpu) key = z
            if (key == "") continue
            r = median(ref[o, key])
            g = gpu[o, key]; w = wall[o, key]
            m = mref[o, key]
            printf "%12s %10.1f %10.1f %10s %8s %8s %4s %12.1f %12s %8s\n", key, g, w, r, \
                (r == "" ? "-" : sprintf("%.2f", g / r)), (r == "" ? "-" : sprintf("%.2f", w / r)), \
                k[o, key], batched[o, key], (m == "" ? "-" : m), (m == "" ? "-" : sprintf("%.2f", batched[o, key] / m))
        }
    }
}' "$log"
