#!/usr/bin/env bash
# Tests examples/checked-app, a crate that uses custack as a user's would, under every fault
# schedule of the checking driver: no GPU needed.
#
#   bash scripts/checked-app.sh
#
# 1. builds the runner custack-check and the checking libcuda beside it (checkdriver/);
# 2. builds the example's tests as its user does (`cargo test --no-run` into $CARGO_TARGET_DIR,
#    against the libcuda the test command found), and remembers each test binary;
# 3. `custack-check --cargo` builds the example's tests against the checking driver, in a
#    directory of its own (under $CARGO_TARGET_DIR), and runs each test binary that loads it
#    under every schedule:
#    - the fixed programs (`fixed_operands_add_vectors`, `halves_add_vectors`) must pass;
#    - planted bug 1, a forget on an upload error (`leaky_operands_add_vectors`): custack-check
#      must fail (exit 1), name the failed call (the second cuMemAlloc_v2) and the call that made
#      the leaked buffer;
#    - planted bug 2, a swallowed error (`swallowing_add_vectors`): the result check panics, and
#      custack-check must show where (`panicked at tests/operands.rs`);
#    - planted bug 3, a forget on a failed wait (`forgetful_halves_add_vectors`): custack-check
#      must report the forgotten half's buffers as orphans after the failed cuEventSynchronize,
#      with the calls that made them (with a non-sticky failure code: after a sticky one the
#      process is poisoned and custack leaves everything behind, R20);
# 4. checks that the user's own build (step 2) was left as it was: same binaries, not relinked
#    against the checking driver.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
app_target=$target/checked-app

cargo build --quiet --release --manifest-path checkdriver/Cargo.toml --target-dir "$target/checkdriver"
check=$target/checkdriver/release/custack-check
lib_dir=$("$check" --lib-dir)

status=0
fail() {
    echo "checked-app: FAIL: $*" >&2
    status=1
}

# 2. The user's own build, and a fingerprint of each test binary in it.
user_binaries() {
    (cd examples/checked-app && CARGO_TARGET_DIR=$app_target \
        cargo test --quiet --no-run --message-format=json 2>/dev/null) |
        python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m["profile"]["test"] and m.get("executable"):
        print(m["executable"])'
}
fingerprints() {
    local b
    for b in $(user_binaries | sort); do
        echo "$b $(sha256sum <"$b" | cut -d' ' -f1) $(stat -c %Y "$b")"
    done
}
before=$(fingerprints)
[[ -n $before ]] || fail "the user's build of examples/checked-app made no test binary"

# 3. Every schedule of each test, with CARGO_TARGET_DIR set as the user's is.
check_app() { # TEST [CUSTACK-CHECK OPTIONS...]
    local test=$1
    shift
    (cd examples/checked-app && CARGO_TARGET_DIR=$app_target \
        "$check" "$@" --cargo --quiet -- --include-ignored --exact "$test")
}
for clean in fixed_operands_add_vectors halves_add_vectors; do
    echo "checked-app: $clean, every schedule (must pass)"
    check_app "$clean" || fail "$clean fails a schedule"
done

# Runs a planted bug's test; custack-check must exit 1. Leaves its output in $out.
buggy() { # TEST [CUSTACK-CHECK OPTIONS...]
    local rc=0
    echo "checked-app: $1, every schedule (custack-check must report it)"
    out=$(check_app "$@") || rc=$?
    echo "$out"
    [[ $rc == 1 ]] || fail "custack-check exited $rc on $1, not 1"
}
# A failing schedule's line: "  fail-at K   ENTRY_POINT   exit N (OUTCOME), ...".
caught() { # NAME LABEL PATTERN...: each PATTERN must match a line of $out
    local name=$1 label=$2 p
    shift 2
    for p in "$@"; do
        grep -qE "$p" <<<"$out" || { fail "$name: the report lacks $label ($p)"; return; }
    done
    echo "checked-app: $name is caught: $label"
}

buggy leaky_operands_add_vectors
caught "planted bug 1" "the failed cuMemAlloc_v2, its leak and the call that made the leaked buffer" \
    '^ +fail-at [0-9]+ +cuMemAlloc_v2 +exit [0-9]+ \(error\), 1 leak' \
    'orphan: DeviceMemory 0x[0-9a-f]+ from call [0-9]+ cuMemAlloc_v2'

buggy swallowing_add_vectors
caught "planted bug 2" "a panic of the result check, where it happened" \
    '^ +fail-at [0-9]+ +[A-Za-z_0-9]+ +exit [0-9]+ \(PANIC\)' \
    'panicked at tests/operands\.rs:[0-9]+:[0-9]+' \
    'wrong sums'

# With each call's typical code, the failed wait's error is sticky: the process is poisoned,
# custack leaves every context behind with what is in it (R20), and a forgotten buffer is left
# with the rest. So the planted bug is judged with a non-sticky code (CUDA_ERROR_INVALID_VALUE,
# --fail-code 1), in a process that still releases: the forgotten half's buffers are orphans of
# their destroyed context.
buggy forgetful_halves_add_vectors --fail-code 1 --no-sticky
caught "planted bug 3" "orphans after the failed cuEventSynchronize, with the calls that made them" \
    '^ +fail-at [0-9]+ +cuEventSynchronize +exit [0-9]+ \(error\), [0-9]+ leak' \
    'orphan: DeviceMemory 0x[0-9a-f]+ from call [0-9]+ cuMemAlloc_v2'

# 4. The user's build: untouched, and not linked against the checking driver.
after=$(fingerprints)
if [[ $before != "$after" ]]; then
    fail "custack-check --cargo changed the user's build in CARGO_TARGET_DIR"
    diff <(echo "$before") <(echo "$after") >&2 || true
else
    while read -r b _; do
        if ldd "$b" | grep -q "$lib_dir"; then
            fail "$b (the user's build) loads the checking driver"
        fi
    done <<<"$after"
    echo "checked-app: the user's build in CARGO_TARGET_DIR is untouched ($(wc -l <<<"$after") test binaries, same bytes, same times)"
fi
exit "$status"
