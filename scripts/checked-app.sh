#!/usr/bin/env bash
# Tests examples/checked-app, a crate that uses custack as a user's would, under every fault
# schedule of the checking driver: no GPU needed.
#
#   bash scripts/checked-app.sh
#
# 1. builds the runner custack-check and the checking libcuda beside it (checkdriver/);
# 2. `custack-check --cargo` builds the example's tests against the checking driver
#    (CUDA_DRIVER_LIB_DIR, as on a machine with no libcuda at all), in their own target
#    directory, and runs each test binary that loads it under every schedule;
# 3. runs the fixed program (`fixed_operands_add_vectors`) under every schedule: it must pass;
# 4. runs its buggy twin (`leaky_operands_add_vectors`), which leaks a buffer when the second
#    allocation fails: custack-check must fail (exit 1) and name the failed call, by number and
#    as cuMemAlloc_v2, with the leak.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")

cargo build --quiet --release --manifest-path checkdriver/Cargo.toml --target-dir "$target/checkdriver"
check=$target/checkdriver/release/custack-check
# `custack-check --cargo`, the one command for a crate, from the crate's directory; its build
# goes to $CARGO_TARGET_DIR (default: the crate's target/custack-check).
check_app() {
    (cd examples/checked-app && CARGO_TARGET_DIR=$target/checked-app \
        "$check" --cargo --quiet -- --include-ignored --exact "$1")
}

status=0
echo "checked-app: the fixed program, every schedule (must pass)"
check_app fixed_operands_add_vectors || {
    echo "checked-app: FAIL: the fixed program fails a schedule" >&2; status=1; }

echo "checked-app: the buggy twin, every schedule (custack-check must report its leak)"
rc=0
out=$(check_app leaky_operands_add_vectors) || rc=$?
echo "$out"
# A failing schedule line: "  fail-at K   cuMemAlloc_v2   exit 101 (error), 1 leak(s)".
if [[ $rc != 1 ]]; then
    echo "checked-app: FAIL: custack-check exited $rc on the buggy twin, not 1" >&2; status=1
elif ! grep -qE '^ +fail-at [0-9]+ +cuMemAlloc_v2 +exit [0-9]+ \(error\), 1 leak' <<<"$out"; then
    echo "checked-app: FAIL: the report does not name the failed cuMemAlloc_v2 and its leak" >&2
    status=1
else
    echo "checked-app: the buggy twin is caught: $(grep -E '^ +fail-at [0-9]+ +cuMemAlloc_v2' <<<"$out" | awk '{print $1, $2, $3}' | head -1)"
fi
exit "$status"
