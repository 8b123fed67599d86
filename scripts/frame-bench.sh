#!/usr/bin/env bash
# The frame loop, Rust against C, in one run on the GPU machine: after `bash .gpu/run.sh` built
# .gpu/frame.cubin and .gpu/bin/c-safety_frame (benches/safety_frame.c) there,
#
#   bash scripts/frame-bench.sh RUST_BIN [FRAMES] [REPS] [ROUNDS]
#
# runs the C loop and RUST_BIN (the safety profile's frame example, packed by
# `scripts/gpu-bundle.sh --example NAME` as .gpu/bin/example-NAME) alternately, C first, ROUNDS
# times each (default 6), so that drift hits both; each process gets `CUBIN FRAMES REPS`
# (defaults 200 and 5) and prints, last,
#
#   frame c ns_per_frame=<median> min=<n> max=<n> reps=<REPS> frames=<FRAMES> device_bytes_delta=<n>
#   frame rust ns_per_frame=<median> ... device_bytes_delta=<n> host_allocs_per_frame=<n>
#
# Prints those lines, then a markdown table: each side's median over its rounds of the
# per-process medians (ns per frame), the rounds' range, the spread (max - min of the per-round
# medians over their median, as ±%), device_bytes_delta and (Rust) host_allocs_per_frame, and
# the ratio rust ÷ c. The table is also written to $OUT/frame-bench.md when OUT is set. Exits
# non-zero if a run fails or prints no final line. The cubin is $CUSTACK_FRAME_CUBIN (from
# .gpu/env.sh, which run.sh writes), else .gpu/frame.cubin.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { echo "scripts/frame-bench.sh: $*" >&2; exit 2; }
(($# >= 1 && $# <= 4)) || die "usage: bash scripts/frame-bench.sh RUST_BIN [FRAMES] [REPS] [ROUNDS]"
rust=$1 frames=${2:-200} reps=${3:-5} rounds=${4:-6}
for n in "$frames" "$reps" "$rounds"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "FRAMES, REPS and ROUNDS are positive counts, not '$n'"
done
# shellcheck disable=SC1091 # written by .gpu/run.sh
if [[ -f .gpu/env.sh ]]; then source .gpu/env.sh; fi
cubin=${CUSTACK_FRAME_CUBIN:-.gpu/frame.cubin}
c=.gpu/bin/c-safety_frame
[[ -f $cubin ]] || die "no cubin at $cubin: run bash .gpu/run.sh first (it builds it with nvcc)"
[[ -x $c ]] || die "no $c: run bash .gpu/run.sh first (it builds it with cc)"
[[ -x $rust ]] || die "$rust is not an executable"

lines=$(mktemp)
trap 'rm -f "$lines" "$lines.out"' EXIT
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)
echo "${device:-no nvidia-smi}"
echo "frame loop: $frames frames x $reps reps per process, $rounds rounds of C then Rust; cubin $cubin"
for ((round = 1; round <= rounds; round++)); do
    for side in c rust; do
        if [[ $side == c ]]; then bin=$c; else bin=$rust; fi
        if ! "$bin" "$cubin" "$frames" "$reps" >"$lines.out" 2>&1; then
            cat "$lines.out" >&2
            die "round $round: $bin failed"
        fi
        last=$(grep -E "^frame $side ns_per_frame=" "$lines.out" | tail -n 1 || true)
        [[ -n $last ]] || { cat "$lines.out" >&2; die "round $round: $bin printed no 'frame $side ns_per_frame=' line"; }
        echo "$last"
        echo "$last" >>"$lines"
    done
done

python3 - "$lines" "$frames" "$reps" "$rounds" "${OUT:-}" "$device" <<'PY'
import os, statistics, sys

path, frames, reps, rounds, out, device = sys.argv[1:7]
runs = {"c": [], "rust": []}
for line in open(path):
    words = line.split()
    fields = dict(w.split("=", 1) for w in words[2:] if "=" in w)
    runs[words[1]].append(fields)

def ints(side, key):
    return [int(f[key]) for f in runs[side] if key in f]

def values(xs):
    """One value if all rounds agree, else their range."""
    if not xs:
        return "–"
    return str(xs[0]) if min(xs) == max(xs) else f"{min(xs)}..{max(xs)}"

med, spread, row = {}, {}, {}
for side in ("c", "rust"):
    ns = ints(side, "ns_per_frame")
    med[side] = statistics.median(ns)
    spread[side] = 100.0 * (max(ns) - min(ns)) / med[side] if med[side] else 0.0
    row[side] = (f"{med[side]:.0f}", f"{min(ns)}..{max(ns)}", f"±{spread[side]:.1f}%",
                 values(ints(side, "device_bytes_delta")),
                 values(ints(side, "host_allocs_per_frame")) if side == "rust" else "–")
ratio = med["rust"] / med["c"] if med["c"] else float("nan")
table = [
    f"Frame loop (640×480 floats: upload, graph launch of frame_blur, direct launch of "
    f"frame_gain, download, synchronize), {frames} frames × {reps} repetitions per process, "
    f"{rounds} processes per side run alternately (C first)"
    + (f"; {device} (name, driver)." if device else "."),
    "",
    "| loop | ns per frame (median of rounds) | rounds' medians | spread | device_bytes_delta | host_allocs_per_frame |",
    "|---|---:|---:|---:|---:|---:|",
    "| C, raw driver API (`benches/safety_frame.c`) | " + " | ".join(row["c"]) + " |",
    "| Rust, custack safety profile | " + " | ".join(row["rust"]) + " |",
    "",
    f"rust ÷ c = {ratio:.3f}; C's spread ±{spread['c']:.1f}% (max − min of its per-round "
    "medians over their median).",
]
text = "\n".join(table)
print()
print(text)
if out:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "frame-bench.md"), "w") as f:
        f.write(text + "\n")
PY
