#!/usr/bin/env bash
# Model-checks custack's process-wide states with loom: the confinement's latch
# (src/error/confinement.rs), the count of restricted contexts (src/safety/profile.rs), the
# poison's record (src/error/poison.rs) and the safe state's entry (src/error/safe_state.rs).
# Each is a small type generic over its atomic (src/error/atomics.rs); their `model` unit
# tests run the real methods over loom's atomics under every interleaving of their two or three
# threads (loom's exhaustive search, no preemption bound), built with `--cfg loom`, which also
# turns on the cfg-gated dev-dependency on loom (Cargo.toml). No GPU: the unit-test binary links
# the driver library as every unit test does (scripts/test.sh exports CUDA_DRIVER_LIB_DIR).
#
#   bash scripts/loom.sh            # every model test
#   bash scripts/loom.sh poison::model   # those of one module (a filter of the test path)
#
# Its own target directory (target/loom), so that the usual build is not rebuilt for the cfg.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")/loom
start=$SECONDS
RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}" cargo test --quiet --release --lib -p custack \
    --target-dir "$target" -- --test-threads=2 "${1:-::model::}"
echo "loom: every model test passed ($((SECONDS - start)) s)"
