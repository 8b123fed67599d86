#!/usr/bin/env bash
# Runs custack's `unsafe` code under Miri (issue 13, item 5), against the do-nothing driver of
# checkdriver linked as an rlib: its `#[no_mangle] extern "C"` entry points answer
# custack's `extern "C"` calls inside the interpreter (custack's build script links nothing
# under `cfg(miri)`). No GPU, no libcuda.
#
#   bash scripts/miri.sh                       # the default set below
#   MIRI_SCHEDULES="example p1" bash scripts/miri.sh    # fail each call of these programs
#   MIRI_SCHEDULES=all bash scripts/miri.sh    # ... of every program (about 2x the time)
#
# What runs, each with MIRIFLAGS=-Zmiri-strict-provenance:
#  1. the double's own tests (checkdriver), so the double itself is UB-free;
#  2. custack's unit tests (`cargo miri test --lib`);
#  3. every program of benches/checking once, in the double's checking mode: a run fails on
#     undefined behaviour, a leak (Miri's leak check), or any violation, leaked handle or
#     non-empty context stack the double reports;
#  4. for the programs in MIRI_SCHEDULES, per driver call k one run with call k failed
#     (`fail-at=K`) and one with a sticky fault from call k on (`sticky-at=K`): the error and
#     drop paths, where the clean-up code lives. The default set (example, unwind,
#     scoped_host, submission) covers scoped copies, page-locked memory as slices, launch
#     argument arrays, a stream-ordered allocation, scoped host pointers, drops during unwinding
#     and owned submissions with a join; the clean runs add a push, a nested push, park/attach
#     and the rest. MIRI_SCHEDULES=all runs every program's schedules (about 4 times as long).
#
# Flags, and why:
#  -Zmiri-strict-provenance  the double's handles are pointers without provenance
#                            (`ptr::without_provenance_mut`), so integer-to-pointer casts
#                            and exposed provenance are errors, not guesses.
#  -Zmiri-ignore-leaks       only in step 4: a failed `cuMemFreeHost` keeps its memory, as the
#                            real driver does, and so does a free after a sticky fault
#                            (scripts/check-driver.sh judges leaks there).
# Isolation stays on: the programs read no files and no environment (a schedule is an argument).
#
# The double makes the host side of every asynchronous copy for real when the copy completes
# (at a synchronize of its stream or context, an event after it, or a successful query): host
# memory handed back before its copy completed is a use-after-free or a broken borrow here.
#
# Without a nightly toolchain with Miri this prints "miri: skipped (...)" and exits 0: never a
# silent pass. Any failure exits 1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")

if ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "miri: skipped (no nightly / no miri component: rustup toolchain install nightly --component miri)"
    exit 0
fi
if ! setup_log=$(cargo +nightly miri setup 2>&1); then
    echo "$setup_log" | tail -5 >&2
    echo "miri: skipped (no nightly / no miri component: \`cargo +nightly miri setup\` failed; rustup +nightly component add rust-src)"
    exit 0
fi

export MIRIFLAGS="-Zmiri-strict-provenance"
start=$SECONDS
status=0
# Every program of scripts/check-driver.sh but `managed`: the host reaches managed memory at
# the device address, an integer, which strict provenance rightly refuses to turn into a pointer.
programs=(example p1 p2 p3 p4 p8 p9 p11 scoped_alloc reuse_after_scope unwind scoped_host
    events submission graph device_info module_globals memory_kinds library contracts)
default_schedules="example unwind scoped_host submission"
schedules=${MIRI_SCHEDULES:-$default_schedules}
[[ $schedules != all ]] || schedules=${programs[*]}

echo "miri: $(cargo +nightly miri --version), MIRIFLAGS=$MIRIFLAGS"
echo "miri: the double's own tests (checkdriver)"
cargo +nightly miri test --quiet --manifest-path checkdriver/Cargo.toml \
    --target-dir "$target/checkdriver" || status=1
echo "miri: custack's unit tests (--lib)"
cargo +nightly miri test --quiet --lib || status=1

# Runs benches/checking under Miri with the extra flags $1 and the arguments that follow.
checking() {
    local flags=$1
    shift
    MIRIFLAGS="$MIRIFLAGS$flags" cargo +nightly miri run --quiet \
        --manifest-path benches/checking/Cargo.toml --target-dir "$target/check-driver" -- "$@"
}
# One run of "$program [schedule]"; prints "ok" or "bad" (and on stderr, why).
run_one() {
    local program=$1 schedule=${2:-} out rc=0 flags=""
    [[ -z $schedule ]] || flags=" -Zmiri-ignore-leaks"
    out=$(checking "$flags" "$program" $schedule 2>&1) || rc=$?
    # A clean run must succeed; with a call failed the program may return its error (exit 1),
    # but never reach undefined behaviour, an unsupported operation, a panic or a violation
    # (exit 3).
    if [[ $out == *"Undefined Behavior"* || $out == *"unsupported operation"* ||
        $out == *panicked* || $out == *"error: aborting"* ]] ||
        { [[ -z $schedule ]] && ((rc != 0)); } || ((rc != 0 && rc != 1)); then
        { echo "miri: FAIL $program ${schedule:-clean} (exit $rc)"
          grep -v '^\s*$' <<<"$out" | head -30; } >&2
        echo bad
    else
        echo ok
    fi
}
export -f checking run_one
export target

checking "" p2 >/dev/null 2>&1 || true # builds once, before the parallel runs below
echo "miri: the checking programs, clean: ${programs[*]}"
clean_bad=0
for p in "${programs[@]}"; do
    [[ $(run_one "$p") == ok ]] || clean_bad=$((clean_bad + 1))
done
((clean_bad == 0)) || status=1

echo "miri: every call failed in turn, and made sticky in turn: $schedules"
jobs=()
for p in $schedules; do
    n=$(checking "" "$p" count 2>/dev/null | awk '$1 == "calls" { print $2 }')
    [[ ${n:-0} -gt 0 ]] || { echo "miri: FAIL $p: no call count" >&2; status=1; continue; }
    for ((k = 1; k <= n; k++)); do jobs+=("$p fail-at=$k" "$p sticky-at=$k"); done
done
results=$(printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -L1 bash -c 'run_one "$@"' _)
runs=$(grep -c . <<<"$results" || true)
bad=$(grep -c bad <<<"$results" || true)
((bad == 0)) || status=1
echo "miri: ${#programs[@]} programs clean ($clean_bad failing); $runs runs with a call failed, $bad failing ($((SECONDS - start)) s)"
exit "$status"
