#!/usr/bin/env bash
# Runs custack's `unsafe` code under Miri, against the do-nothing driver of
# checkdriver linked as an rlib: its `#[no_mangle] extern "C"` entry points answer
# custack's `extern "C"` calls inside the interpreter (custack's build script links nothing
# under `cfg(miri)`). No GPU, no libcuda.
#
#   bash scripts/miri.sh                                # everything below (what CI runs)
#   MIRI_SCHEDULES="example p1" bash scripts/miri.sh    # fail each call of these programs only
#   MIRI_SCHEDULES=none bash scripts/miri.sh            # no schedules (a few minutes)
#   MIRI_MODELS=tree bash scripts/miri.sh               # one aliasing model only
#   MIRI_FAULTS=both bash scripts/miri.sh               # both schedules of every call (~8x)
#
# What runs, each with MIRIFLAGS=-Zmiri-strict-provenance, under each aliasing model of
# MIRI_MODELS (default "stacked tree": Stacked Borrows, then Tree Borrows with
# -Zmiri-tree-borrows; a mistake either model reports is caught on every run):
#  1. the double's own tests (checkdriver), so the double itself is UB-free: under the first
#     model only (they check the double, whose code custack's programs reach runs under both),
#     by halves (MIRI_DOUBLE=half, the default, or `all`): each on about one commit in two;
#  2. custack's unit tests (`cargo miri test --lib`): half of them under the first model, the
#     other half under the second (MIRI_UNIT_STACKED and MIRI_UNIT_TREE, `half` by default, or
#     `all`), so every unit test runs under Miri on every commit, under each model on one in two;
#  3. the programs of benches/checking, in the double's checking mode: a run fails on
#     undefined behaviour, a leak (Miri's leak check), or any violation, leaked handle or
#     non-empty context stack the double reports. Under Stacked Borrows by quarters
#     (MIRI_STACKED=quarter, the default; `half` or `all`) and under Tree Borrows by eighths
#     (MIRI_TREE=eighth, the default; `quarter`, `half` or `all`), each chosen by the commit's
#     hash (below), so each program runs under Stacked Borrows on about one commit in four and
#     under Tree Borrows on about one in eight;
#  4. under Stacked Borrows only (Tree Borrows is about 3 times slower, and its schedules do
#     not fit CI's 90 minutes), for the programs in MIRI_SCHEDULES (default: those of the
#     commit's Stacked half),
#     per driver call k a run with call k failed (`fail-at=K`) or with a sticky fault from
#     call k on (`sticky-at=K`), a sixty-fourth of them per run (MIRI_FAULTS below): the error and
#     drop paths, where the clean-up code lives; and `deadlines` once per asynchronous enqueue
#     made never to complete (`hang-at=K`, R19): every bounded wait past its deadline.
#
# Time: on CI (2026-11-26, 48 programs, the sixteenth) Miri took 3,176 s and the test command
# 4,016 s, past its hour: three arithmetic unit tests took 206 s under Stacked Borrows (now a
# sample under Miri, src/deadline), the double's tests 281 s and the programs 646 s under Tree
# Borrows (a loaded 2-core machine); hence the first model only and the halves above.
# Before (2-core machine, fresh clone, 2026-11-25, `bash .ci/run`): the double's and unit tests and
# the 35 programs clean under both models, then the default eighth of the schedules of 34
# programs (490 runs, 7 of them hangs), took 1,421 s. `quarter` doubles the schedules (888 runs
# and 2,538 s on 2026-11-23, and past CI's 90 minutes beside the rest on a slower day),
# `alternate` doubles them again and `both` again. MIRI_JOBS (default: the number of cores) runs
# that many programs at once.
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
# Without a nightly toolchain with Miri this prints "miri: skipped (...)" and exits 0 (never a
# silent pass), or fails with MIRI_REQUIRED=1 (scripts/test.sh installs Miri first and sets it).
# Any failure exits 1. The last line counts what ran: "miri: total: ...".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")

skip() {
    if [[ ${MIRI_REQUIRED:-0} == 1 ]]; then
        echo "miri: FAIL: $1" >&2
        exit 1
    fi
    echo "miri: skipped ($1)"
    exit 0
}
cargo +nightly miri --version >/dev/null 2>&1 ||
    skip "no nightly / no miri component: rustup toolchain install nightly --component miri,rust-src"
if ! setup_log=$(cargo +nightly miri setup 2>&1); then
    echo "$setup_log" | tail -5 >&2
    skip "\`cargo +nightly miri setup\` failed; rustup component add --toolchain nightly rust-src"
fi

base_flags="-Zmiri-strict-provenance"
start=$SECONDS
status=0
# Every program of scripts/check-driver.sh. Two need more than the defaults:
#  - `managed`: the host reaches managed memory at its device address, an integer the double
#    made from a pointer it exposed; strict provenance rightly refuses to turn it back into a
#    pointer, so that one program runs with -Zmiri-permissive-provenance instead;
#  - `ipc`: cuIpcOpenMemHandle takes a struct by value, and Miri accepts a call only when
#    caller and callee name the same type, so under Miri the double uses custack's own
#    `CUipcMemHandle` (a cfg(miri)-only dependency of checkdriver).
# `stress` (4 threads, ~490 calls; about 10 s per clean run, where Miri's scheduler and data-race
# detector check the host-function and waker paths) runs clean only: its schedules, at that
# pace, would take most of CI's time (scripts/check-driver.sh runs them natively).
programs=(example stand_ins p1 p2 p3 p4 p8 p9 p11 in_flight parked_graph scoped_alloc reuse_after_scope unwind scoped_host
    events submission graph graph_built graph_conditional graph_capture_into graph_shared graph_arena graph_host graph_exec_nodes graph_capture_forked graph_capture_forks device_info module_globals memory_kinds managed library textures peer_vmm contracts vmm vmm_share peer ipc
    newer green deadlines safety_frame safety_graph confinement restricted_scope restricted_end sealed_teardown driver_init
    redundant_partitions stress batch_3d_old)
# (Places modulo 8 choose the Tree Borrows eighth, below: `contracts`, `graph_capture_forks`
# and `stress` share the eighth of phase 3, the heaviest, which holds no more than the quarter of
# phase 3 held before; `graph_capture_forked` and `restricted_scope` fall in 2 and 6.
# `contracts` and `restricted_scope` were the two longest, 95 s and 61 s clean under Stacked
# Borrows idle, until the programs cached the double's entry point names: 33 s and 15 s since.)
# `graph_capture_into`, `graph_capture_forked` and `graph_capture_forks` run clean only too, to
# keep the test command within its hour: scripts/check-driver.sh fails each of their calls
# natively, and under Miri their schedules were sampled (eight fail-at schedules each, clean)
# when they were written.
# `contracts` and `restricted_scope` run clean only as well: each clean run took 150-160 s
# under Stacked Borrows on the 2-core machine (2026-11-26), and about 9.5 minutes under Tree
# Borrows (1cdf39d), so even a sixteenth of their schedules cost a quarter of Miri's time;
# scripts/check-driver.sh fails each of their calls natively on every run. Most of that time
# was the double naming its entry points one by one from the start of its table (quadratic in
# the programs' call counts, `calls_seen`); it names them by group since 2026-11-28, and the
# programs read the names once since (33 s and 15 s under Stacked Borrows, idle).
# These programs of scripts/check-driver.sh do not run here (it runs each natively, every
# schedule of every call). Measured on the 2-core machine (2026-11-27, CPU seconds of one run,
# the machine shared, its wall time 2-5 times that), against the 60 s a program may add:
#  - `tensor_map`: a tensor map names its memory by a device address, a `CUdeviceptr` integer
#    the API takes as `void *`, and strict provenance refuses the integer-to-pointer cast
#    (custack's `TensorMap::tiled`: an unsupported operation at once, 12 s). Under
#    -Zmiri-permissive-provenance it runs clean, but its clean run alone took 63 s (34 calls),
#    before Tree Borrows and its schedules. The double's tensor-map tests run natively too.
#  - `external`: its file descriptor comes from `memfd_create`, a foreign call Miri does not
#    support (it stops at once).
#  - `batch_3d` and `managed_batches`: the double reads a 3D batch's host side, and the host
#    reaches managed memory, at integer addresses (as `managed` does), which strict provenance
#    refuses at once. Under -Zmiri-permissive-provenance `batch_3d` runs clean (36 calls) in
#    31 s under Stacked and 47 s under Tree Borrows, past 60 s before its schedules (a
#    sixteenth of them: 4 runs, 66 s); `managed_batches` runs clean (41 calls) in 51 s under
#    Stacked Borrows alone.
# `batch_3d_old` (the 3D batch refused, the driver too old: 14 calls) runs, with strict
# provenance: clean in 13 s under Stacked and 19 s under Tree Borrows (on one commit in four),
# its sixteenth of schedules 0 to 2 runs of 2 to 12 s: at most about 55 s of one core, and
# under 30 s of the step's two.
clean_only=" stress graph_capture_into graph_capture_forked graph_capture_forks contracts restricted_scope "
schedules=${MIRI_SCHEDULES:-all}
# (By default, of this commit's Stacked Borrows half: filtered below, where the half is known.)
schedules_all=0
if [[ $schedules == all ]]; then
    schedules_all=1
    schedules=
    for p in "${programs[@]}"; do
        [[ $clean_only == *" $p "* ]] || schedules+="$p "
    done
    schedules=${schedules% }
fi
[[ $schedules != none ]] || schedules=
# Which fault schedules run under Miri, per call k of each program (scripts/check-driver.sh
# runs both schedules of every call natively on every run):
#   both       k failed, and sticky from k: every schedule (about 2 hours of CI's two cores
#              for the 34 programs, far past CI's 90 minutes);
#   alternate  one of the two per call (about an hour);
#   quarter    k failed where k + phase = 0 (mod 4), sticky where it is 2 (mod 4) (about half
#              an hour, more on a slow day of CI's machine: too much beside the rest);
#   eighth     k failed where k + phase = 0 (mod 8), sticky where it is 4 (mod 8), about 17
#              minutes: every program's error and drop paths on every run, a quarter of its
#              calls, and every schedule of every call over the eight phases;
#   sixteenth  k failed where k + phase = 0 (mod 16), sticky where it is 8 (mod 16): 330
#              runs and 2,462 s of Miri's step on CI (e359c2b, phase 11, 2026-11-27), which
#              took the test command to 63.5 minutes, past its hour;
#   thirtysecond k failed where k + phase = 0 (mod 32), sticky where it is 16 (mod 32): about
#              half the runs of `sixteenth` (172 runs and 516 s of the step, idle, 58e0f97);
#   sixtyfourth (the default since the test command measured 116 minutes at a load average of
#              4, 272914e) k failed where k + phase = 0 (mod 64), sticky where it is 32 (mod
#              64): about half the runs of `thirtysecond`; a program of n calls gets about
#              n/32 runs a commit (one or none for the programs under 64 calls), and every
#              schedule of every call over 64 phases.
# The phase is the commit's last hex digit modulo 2, 4, 8 or 16, and its last two hex digits
# modulo 32 or 64 (MIRI_PHASE overrides it). Commits' hashes are random, so a given call's
# failed or sticky schedule runs under Miri on about one commit in 64, not in turn; every
# schedule of every call still runs natively in scripts/check-driver.sh on every run.
# The repeat and lost schedules (a non-sticky error from call k on, for ever; a device lost at
# call k) are not run under Miri: their runs wait out their bounded waits' deadlines, which
# interpreted code takes minutes to reach; scripts/check-driver.sh runs them natively, in its
# rotation with the sticky schedule.
faults=${MIRI_FAULTS:-sixtyfourth}
case $faults in
    both) period=1 ;;
    alternate) period=2 ;;
    quarter) period=4 ;;
    eighth) period=8 ;;
    sixteenth) period=16 ;;
    thirtysecond) period=32 ;;
    sixtyfourth) period=64 ;;
    *) echo "miri: MIRI_FAULTS is both, alternate, quarter, eighth, sixteenth, thirtysecond or sixtyfourth, not $faults" >&2; exit 2 ;;
esac
if [[ -n ${MIRI_PHASE:-} ]]; then
    phase=$((MIRI_PHASE % period))
else
    head=$(git rev-parse --short HEAD 2>/dev/null || echo 00)
    phase=$((16#${head: -2} % period))
fi
faults_label=$faults
[[ $faults == both ]] || faults_label="$faults, phase $phase"
models=${MIRI_MODELS:-stacked tree}
jobs=${MIRI_JOBS:-$(nproc)}

model_flags() {
    case $1 in
        stacked) echo "" ;;
        tree) echo " -Zmiri-tree-borrows" ;;
        *) echo "miri: unknown model $1 (MIRI_MODELS: stacked, tree)" >&2; exit 2 ;;
    esac
}
# Runs `cargo miri test` with the extra flags $1 and the arguments that follow; prints how many
# tests passed (on stdout, last line) and the output (stderr).
tests() {
    local flags=$1 out rc=0
    shift
    out=$(MIRIFLAGS="$base_flags$flags" cargo +nightly miri test --quiet "$@" 2>&1) || rc=$?
    echo "$out" >&2
    ((rc == 0)) || return 1
    sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' <<<"$out" | awk '{ n += $1 } END { print n + 0 }'
}

echo "miri: $(cargo +nightly miri --version), MIRIFLAGS=$base_flags, models: $models"
summary=()
# Seconds each part took, for the last line (where the next cut should come from).
part_start=$SECONDS
parts=()
part_done() {
    parts+=("$1 $((SECONDS - part_start)) s")
    part_start=$SECONDS
}
# The double's own tests run under the first model only (Stacked Borrows by default): they
# check the double, not custack, and the double's code that custack's programs reach runs under
# every model with them below (under Tree Borrows they took 281 s of a loaded 2-core machine).
double_model=${models%% *}
parts_dir=$(mktemp -d)
# One part: `tests` with its output kept in $parts_dir/NAME.{count,log,rc}.
test_part() {
    local name=$1 rc=0
    shift
    tests "$@" >"$parts_dir/$name.count" 2>"$parts_dir/$name.log" || rc=$?
    echo "$rc" >"$parts_dir/$name.rc"
}
# The double's test modules of its first half (`MIRI_DOUBLE`, below): a filter of names, and the
# same names skipped for the other half, so the two halves partition its tests whatever is added.
double_first="tests::batch tests::capture tests::cubin tests::entry_point tests::event tests::exec_nodes tests::external tests::graph"
double_part() {
    local filter=()
    case ${double_half:-all} in
        first) read -ra filter <<<"$double_first" ;;
        rest) for m in $double_first; do filter+=(--skip "$m"); done ;;
    esac
    test_part double "$(model_flags "$double_model")" --manifest-path checkdriver/Cargo.toml \
        --lib --bin custack-check --target-dir "$target/checkdriver" -- "${filter[@]}"
}
# custack's unit tests under model $1; with $2, one of two halves: `safety` (the tests whose
# names hold `safety::`, the restricted profile's, about half of the time under Tree Borrows) or
# `rest` (every other one): a partition, whatever tests are added.
unit_part() {
    case ${2:-} in
        safety) test_part "unit-$1-safety" "$(model_flags "$1")" --lib -- safety:: ;;
        rest) test_part "unit-$1-rest" "$(model_flags "$1")" --lib -- --skip safety:: ;;
        *) test_part "unit-$1" "$(model_flags "$1")" --lib ;;
    esac
}
# Prints one part's output and its count (FAILED where it failed).
part_result() {
    cat "$parts_dir/$1.log" >&2
    if [[ $(cat "$parts_dir/$1.rc" 2>/dev/null) == 0 ]]; then
        cat "$parts_dir/$1.count"
    else
        echo FAILED
    fi
}

# Runs benches/checking under Miri with the extra flags $1 and the arguments that follow.
checking() {
    local flags=$1 base=$base_flags
    shift
    [[ ${1:-} != managed ]] || base="-Zmiri-permissive-provenance" # see the program list
    MIRIFLAGS="$base$flags" cargo +nightly miri run --quiet \
        --manifest-path benches/checking/Cargo.toml --target-dir "$target/check-driver" -- "$@"
}
# One run of "$model $program [schedule]"; prints "ok" or "bad" (and on stderr, why). The
# schedule `count` is a clean run that also prints the double's report: its `calls` and
# `enqueues` lines are kept in $counts/$program, for the schedules below.
run_one() {
    local model=$1 program=$2 schedule=${3:-} out rc=0 flags
    flags=$(model_flags "$model")
    [[ -z $schedule || $schedule == count ]] || flags+=" -Zmiri-ignore-leaks"
    out=$(checking "$flags" "$program" $schedule 2>&1) || rc=$?
    if [[ $schedule == count ]]; then
        grep -E '^(calls|enqueues)( |$)' <<<"$out" >"$counts/$program" || true
        schedule=
    fi
    # A clean run must succeed; with a call failed the program may return its error (exit 1),
    # but never reach undefined behaviour, an unsupported operation, a panic or a violation
    # (exit 3).
    # custack's safe state (`fail_stop`: status 75, one line) is a documented outcome under a
    # hang schedule (a bounded scope past its deadline, `Overrun::Exit`) and under a sticky or
    # failed-call one whose error is sticky (a scope whose wait sees a sticky error cannot end
    # its borrows, R20).
    if [[ $rc == 75 && $(grep -c '^custack: fail-stop (exit status 75): ' <<<"$out") == 1 ]] &&
        [[ ( $schedule == hang-at=* && $out == *"(Overrun::Exit)"* ) ||
            ( ( $schedule == sticky-at=* || $schedule == fail-at=* ) && $out == *"(sticky: "* ) ]]; then
        rc=1
    fi
    if [[ $out == *"Undefined Behavior"* || $out == *"unsupported operation"* ||
        $out == *"panicked at"* || $out == *"error: aborting"* ]] ||
        { [[ -z $schedule ]] && ((rc != 0)); } || ((rc != 0 && rc != 1)); then
        { echo "miri: FAIL [$model] $program ${schedule:-clean} (exit $rc)"
          grep -v '^\s*$' <<<"$out" | head -30; } >&2
        echo bad
    else
        echo ok
    fi
}
counts=$(mktemp -d)
trap 'rm -rf "$counts" "$parts_dir"' EXIT
# One job of the pool below: "test double", "test unit MODEL", or "MODEL PROGRAM [count]" (a
# checking program's clean run, `run_one`). A test job prints nothing on stdout (its count and
# output go to $parts_dir); a run prints "ok" or "bad".
job() {
    case $1 in
        test) if [[ $2 == double ]]; then double_part; else unit_part "$3" "${4:-}"; fi ;;
        *) run_one "$@" ;;
    esac
}
export -f checking run_one model_flags tests test_part double_part unit_part job
export target base_flags counts parts_dir double_model double_first

# Built first, with cargo's own parallelism, so that no job of the pool waits for a build (a run
# holds no cargo lock once its build is done; the pool's jobs share the target directories).
checking "" p2 >/dev/null 2>&1 || true
cargo +nightly miri test --quiet --no-run --lib >/dev/null 2>&1 || true
cargo +nightly miri test --quiet --no-run --manifest-path checkdriver/Cargo.toml --lib \
    --bin custack-check --target-dir "$target/checkdriver" >/dev/null 2>&1 || true
# Under Tree Borrows the programs run clean by eighths (MIRI_TREE=eighth, the default since the
# tenth session; `quarter` since the loaded measurement of 272914e, `half` before): the programs
# whose place in the list is the commit's last hex digit modulo 8 (MIRI_PHASE overrides it), so
# every program runs under Tree Borrows on about one commit in eight, and under Stacked Borrows
# on about one in four (below). MIRI_TREE=quarter runs every fourth one, `half` every second,
# `all` all of them (about 10 minutes more than `half` on CI's 2 cores).
tree_runs=${MIRI_TREE:-eighth}
case $tree_runs in
    eighth) tree_period=8 ;;
    quarter) tree_period=4 ;;
    half) tree_period=2 ;;
    all) tree_period=1 ;;
    *) echo "miri: MIRI_TREE is eighth, quarter, half or all, not $tree_runs" >&2; exit 2 ;;
esac
head=$(git rev-parse --short HEAD 2>/dev/null || echo 0)
head_two=00$head
digit=${MIRI_PHASE:-$((16#${head: -1}))}
tree_phase=$((digit % tree_period))
tree_label="all"
[[ $tree_runs == all ]] || tree_label="the $tree_runs of phase $tree_phase"
# Under Stacked Borrows the programs run clean, and their failed and sticky schedules run, by
# quarters (MIRI_STACKED=quarter, the default since the tenth session, whose loaded runs had
# passed the 90 minutes at halves; `half` from the loaded run of 343eeb2, 89.8 minutes; `all`
# before): the programs whose place in the list, modulo 4, is bits 6 and 7 of the commit's hash
# (its last two hex digits divided by 64; MIRI_STACKED_PHASE overrides it). Bits 0 to 5 choose
# the failed and sticky schedules (the sixty-fourth above) and bits 0 to 2 the Tree Borrows
# eighth, so the quarter is independent of both: each program runs under Stacked Borrows on
# about one commit in four, each of its calls' failed and sticky schedules on about one in 256,
# and every schedule of every call is reached (a quarter chosen by the last digit would have
# given a program only the calls of one phase). A program of the Tree Borrows eighth outside the
# Stacked quarter runs under Tree Borrows alone on that commit. `deadlines`' hang runs (R19) run
# on every commit, whichever quarter it is in. Natively (scripts/check-driver.sh) every program
# runs clean and under every schedule of every call on every run.
stacked_runs=${MIRI_STACKED:-quarter}
case $stacked_runs in
    quarter) stacked_period=4 ;;
    half) stacked_period=2 ;;
    all) stacked_period=1 ;;
    *) echo "miri: MIRI_STACKED is quarter, half or all, not $stacked_runs" >&2; exit 2 ;;
esac
stacked_phase=$(((${MIRI_STACKED_PHASE:-$((16#${head_two: -2} >> 6))}) % stacked_period))
stacked_label="all"
[[ $stacked_runs == all ]] || stacked_label="the $stacked_runs of phase $stacked_phase"
# custack's unit tests under the second model (Tree Borrows) run by halves too
# (MIRI_UNIT_TREE=half, the default; `all` both): the `safety::` tests on a commit whose last hex
# digit is even, the rest on an odd one. Under the first model (Stacked Borrows) every unit test
# runs on every commit.
unit_tree=${MIRI_UNIT_TREE:-half}
case $unit_tree in
    half) if ((digit % 2 == 0)); then unit_halves=safety; else unit_halves=rest; fi ;;
    all) unit_halves="rest safety" ;;
    *) echo "miri: MIRI_UNIT_TREE is half or all, not $unit_tree" >&2; exit 2 ;;
esac
# And under the first model (Stacked Borrows) by halves too (MIRI_UNIT_STACKED=half, the default
# since the tenth session; `all` every unit test): the other half, so that on every commit every
# unit test runs once under Miri, under one model, and under each model on one commit in two.
unit_stacked=${MIRI_UNIT_STACKED:-half}
case $unit_stacked in
    half) if ((digit % 2 == 0)); then unit_first=rest; else unit_first=safety; fi ;;
    all) unit_first=all ;;
    *) echo "miri: MIRI_UNIT_STACKED is half or all, not $unit_stacked" >&2; exit 2 ;;
esac
# With one model only (MIRI_MODELS), it runs every unit test: no second model runs the other half.
[[ $models == *" "* ]] || unit_first=all
# The double's own tests by halves as well (MIRI_DOUBLE=half, the default since the tenth
# session; `all` both): the tests of the modules in `double_first` below on a commit whose bit 4
# of the hash (the second-last hex digit's lowest bit) is 0, every other one where it is 1; so
# each of the double's tests runs under Miri on one commit in two (every one natively, on every
# run, in the checking-driver step).
double_runs=${MIRI_DOUBLE:-half}
case $double_runs in
    half) if (((16#${head_two: -2} >> 4) % 2 == 0)); then double_half=first; else double_half=rest; fi ;;
    all) double_half=all ;;
    *) echo "miri: MIRI_DOUBLE is half or all, not $double_runs" >&2; exit 2 ;;
esac
export double_half
# The programs of this commit's Stacked Borrows half.
stacked_programs=()
i=0
for p in "${programs[@]}"; do
    i=$((i + 1))
    if ((i % stacked_period == stacked_phase)); then stacked_programs+=("$p"); fi
done
# The tests and the clean runs are one pool of MIRI_JOBS jobs at a time (default: the number of
# cores; Miri interprets on one thread, so a job keeps one core busy), the longest first so
# that none is left alone at the end: custack's unit tests under each model but the first (Tree
# Borrows: about 13 minutes of one core, so in two halves of about 6 and 7), the double's tests
# and the unit tests under the first model (about 4 minutes each), then every clean run (each under a minute since
# the double names its entry points by group, `nulldriver_entry_name`). Before, the tests were
# two lanes ahead of the runs, and the lane with the Tree Borrows unit tests was the whole part
# (830 s of 2,906, 1cdf39d). Each test part's output is printed whole once the pool ended.
runs=()
for model in ${models#"$double_model"}; do
    for h in $unit_halves; do runs+=("test unit $model $h"); done
done
if [[ $unit_first == all ]]; then
    runs+=("test double" "test unit $double_model")
else
    runs+=("test double" "test unit $double_model $unit_first")
fi
tests_listed=${#runs[@]}
# The clean runs under the slower model first (Tree Borrows, about 2.3 times Stacked), so that
# the pool ends on short runs rather than on one core running `contracts` under Tree Borrows
# (about 3 minutes) alone.
reversed=
for model in $models; do reversed="$model $reversed"; done
for model in $reversed; do
    # The Stacked Borrows runs also count each program's calls (the schedules run under it).
    # (No blank at the end of a line: `xargs -L1` would join it to the next.)
    i=0
    for p in "${programs[@]}"; do
        i=$((i + 1))
        if [[ $model == stacked ]]; then
            if ((i % stacked_period == stacked_phase)); then runs+=("$model $p count"); fi
        elif ((i % tree_period == tree_phase)); then
            runs+=("$model $p")
        fi
    done
done
echo "miri: in one pool of $jobs jobs: custack's unit tests (--lib) under $models (Tree Borrows: $unit_halves), the double's own tests (checkdriver) under $double_model, and the checking programs, clean, under $models (Stacked Borrows: $stacked_label, Tree Borrows: $tree_label) of: ${programs[*]}"
results=$(printf '%s\n' "${runs[@]}" | xargs -P "$jobs" -L1 bash -c 'job "$@"' _)
for model in $models; do
    if [[ $model == "$double_model" ]]; then
        echo "miri: [$model] the double's own tests (checkdriver)"
        double=$(part_result double)
        [[ $double != FAILED ]] || status=1
        [[ $double_half == all || $double == FAILED ]] || double="$double (the $double_half half)"
    else
        double="(under $double_model only) no"
    fi
    echo "miri: [$model] custack's unit tests (--lib)"
    if [[ $model == "$double_model" && $unit_first == all ]]; then
        unit=$(part_result "unit-$model")
    elif [[ $model == "$double_model" ]]; then
        unit=$(part_result "unit-$model-$unit_first")
        [[ $unit == FAILED ]] || unit="$unit (the ${unit_first/rest/non-safety} half)"
    else
        # In two halves (above), one or both run: their counts added, FAILED where one failed.
        unit=0
        for h in $unit_halves; do
            half=$(part_result "unit-$model-$h")
            [[ $unit == FAILED || $half == FAILED ]] && unit=FAILED || unit=$((unit + half))
        done
        [[ $unit_tree == all ]] || unit="$unit (the ${unit_halves/rest/non-safety} half)"
    fi
    [[ $unit != FAILED* ]] || status=1
    summary+=("$model: $double double tests, $unit unit tests")
done
clean_runs=$(grep -c . <<<"$results" || true)
clean_bad=$(grep -c bad <<<"$results" || true)
((clean_bad == 0)) || status=1
# Every run answers once: a count that differs means runs were merged or lost on the way.
((clean_runs == ${#runs[@]} - tests_listed)) ||
    { echo "miri: FAIL: $((${#runs[@]} - tests_listed)) clean runs listed, $clean_runs answered" >&2; status=1; }
part_done "tests and clean programs"

runs=()
sched_programs=0
if ((schedules_all)); then
    kept=
    for p in $schedules; do
        if [[ " ${stacked_programs[*]} " == *" $p "* ]]; then kept+="$p "; fi
    done
    schedules=${kept% }
fi
if [[ -n $schedules ]]; then
    echo "miri: [stacked] calls failed or made sticky in turn ($faults_label): $schedules"
    for p in $schedules; do
        # Counted by the clean run above, or (without Stacked Borrows in MIRI_MODELS) now.
        [[ -s $counts/$p ]] || checking "" "$p" count 2>/dev/null >"$counts/$p" || true
        n=$(awk '$1 == "calls" { print $2 }' "$counts/$p")
        [[ ${n:-0} -gt 0 ]] || { echo "miri: FAIL $p: no call count" >&2; status=1; continue; }
        sched_programs=$((sched_programs + 1))
        for ((k = 1; k <= n; k++)); do
            if ((period == 1)); then
                runs+=("stacked $p fail-at=$k" "stacked $p sticky-at=$k")
            elif (((k + phase) % period == 0)); then
                runs+=("stacked $p fail-at=$k")
            elif (((k + phase) % period == period / 2)); then
                runs+=("stacked $p sticky-at=$k")
            fi
        done
    done
fi
# R19: `deadlines` with each of its asynchronous enqueues never completing (the double's
# `NULLDRIVER_HANG_AT`, `hang-at=K` here): every bounded wait's overdue path, the work handed
# back and abandoned, under Stacked Borrows.
hang_runs_before=${#runs[@]}
if [[ " ${programs[*]} " == *" deadlines "* ]]; then
    [[ -s $counts/deadlines ]] || checking "" deadlines count 2>/dev/null >"$counts/deadlines" || true
    enqueues=$(awk '$1 == "enqueues" { $1 = ""; print }' "$counts/deadlines")
    [[ -n $enqueues ]] || { echo "miri: FAIL deadlines: no enqueues listed" >&2; status=1; }
    for k in $enqueues; do runs+=("stacked deadlines hang-at=$k"); done
fi
hang_runs=$((${#runs[@]} - hang_runs_before))
sched_runs=0 sched_bad=0
if ((${#runs[@]})); then
    results=$(printf '%s\n' "${runs[@]}" | xargs -P "$jobs" -L1 bash -c 'run_one "$@"' _)
    sched_runs=$(grep -c . <<<"$results" || true)
    sched_bad=$(grep -c bad <<<"$results" || true)
    ((sched_runs == ${#runs[@]})) ||
        { echo "miri: FAIL: ${#runs[@]} runs listed, $sched_runs answered" >&2; status=1; }
fi
((sched_bad == 0)) || status=1
part_done "schedules"
failing=$((clean_bad + sched_bad))
joined=$(printf '%s; ' "${summary[@]}")
echo "miri: total: ${joined%; }; ${#stacked_programs[@]} of ${#programs[@]} programs clean under Stacked Borrows ($stacked_label), $tree_label of them under Tree Borrows ($clean_runs runs); $sched_runs runs with a call failed, sticky or hung ($sched_programs programs, Stacked Borrows, faults: $faults_label; $hang_runs of them hung, deadlines); $failing failing ($((SECONDS - start)) s: $(printf '%s, ' "${parts[@]}" | sed 's/, $//'))"
exit "$status"
