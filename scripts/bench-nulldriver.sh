#!/usr/bin/env bash
# Measures what custack, and cudarc, cost by themselves: benches/overhead.rs against the
# do-nothing driver library of checkdriver (every entry point returns CUDA_SUCCESS at
# once and counts its calls). Runs anywhere: no GPU, no CUDA, no driver needed.
#
#   bash scripts/bench-nulldriver.sh            # time table, driver calls, heap allocations, callgrind
#   NO_CALLGRIND=1 bash scripts/bench-nulldriver.sh
#
# Knobs (environment, passed through to the benchmark): CUSTACK_BENCH_PROCS (fresh processes,
# default 6), CUSTACK_BENCH_STARTS (process starts per library, default 30 here),
# CUSTACK_BENCH_IR_ITERS (iterations under callgrind, default 2000), CUSTACK_BENCH_ROWS (a
# comma-separated subset of rows). With OUT set, the tables are also written to $OUT/bench.md.
#
# Everything is built in its own target directories (target/checkdriver, target/bench-nulldriver),
# so the project's usual build, linked against a real libcuda, is never relinked against the null one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
nd_target=$target/checkdriver
lib_dir=$nd_target/lib

echo "bench-nulldriver: building the null driver" >&2
cargo build --release --manifest-path checkdriver/Cargo.toml --target-dir "$nd_target" >&2
mkdir -p "$lib_dir"
cp -f "$nd_target/release/libcuda.so" "$lib_dir/libcuda.so"
ln -sf libcuda.so "$lib_dir/libcuda.so.1"

# build.rs links whatever libcuda CUDA_DRIVER_LIB_DIR holds; the loader then finds the same file
# first on LD_LIBRARY_PATH (custack links it, cudarc dlopens it: one library, one set of counters).
export CUDA_DRIVER_LIB_DIR=$lib_dir
export LD_LIBRARY_PATH=$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

echo "bench-nulldriver: building the benchmark against it" >&2
bin=$(CARGO_TARGET_DIR=$target/bench-nulldriver cargo bench --no-run -p custack-benches --bench overhead \
    --message-format=json-render-diagnostics | python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "overhead":
        print(m["executable"])')
[[ -x $bin ]] || { echo "bench-nulldriver: no benchmark binary built" >&2; exit 1; }
loaded=$(ldd "$bin" | awk '/libcuda/ { print $3 }')
[[ $(realpath "$loaded") == $(realpath "$lib_dir/libcuda.so") ]] ||
    { echo "bench-nulldriver: the benchmark loads $loaded, not the null driver" >&2; exit 1; }
echo "bench-nulldriver: $bin, libcuda = $loaded" >&2
echo "bench-nulldriver: machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" >&2

export CUSTACK_BENCH_STARTS=${CUSTACK_BENCH_STARTS:-30}
args=(--bench)
if [[ -z ${NO_CALLGRIND:-} ]]; then
    command -v valgrind >/dev/null || { echo "bench-nulldriver: valgrind not found (or set NO_CALLGRIND=1)" >&2; exit 1; }
    args+=(--callgrind)
fi
"$bin" "${args[@]}"
