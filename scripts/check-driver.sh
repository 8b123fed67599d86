#!/usr/bin/env bash
# Runs custack's programs (benches/checking) under the checking driver (checkdriver with
# NULLDRIVER_CHECK=1) and fails each driver call in turn: contract row R10. No GPU needed.
# (`newer`, `green`, `green_leaked`, `poisoned_calls`, `graph_conditional`, `graph_capture_into` and `safety_graph` ask the double to report driver 13.0 or 13.2, so that custack finds the entry
# points it looks up with cuGetProcAddress_v2; the others run as driver 12.2.)
#
#   bash scripts/check-driver.sh            # every program, every schedule
#   CHECK_PROGRAMS="p2 p3" bash scripts/check-driver.sh
#   CHECK_PASSES=hangs bash scripts/check-driver.sh   # only the hang pass (or: faults, inject,
#                                                     # differential)
#   CHECK_PROGRAMS=redundant_inject CHECK_PASSES=inject CHECK_INJECT_FRAMES=100000 \
#       bash scripts/check-driver.sh                 # the 10^5 injections of docs/reliability.md
#   CHECK_JOBS=1 bash scripts/check-driver.sh        # one program's runs at a time (default:
#                                                    # as many programs at once as cores; the
#                                                    # hang pass: CHECK_HANG_JOBS, 4 x that)
#
# For each program: one clean run counts its N driver calls; then for k in 1..=N one run fails
# call k (NULLDRIVER_FAIL_AT=k, a typical code for that entry point) and a second run, in
# rotation, one of three schedules that answer from call k on, for ever: sticky-at (the device
# turns sticky-faulted, NULLDRIVER_STICKY_AT=k), repeat-at (the same error that is not sticky,
# NULLDRIVER_REPEAT_AT=k: the entry point's typical code, CUDA_ERROR_UNKNOWN where that is
# sticky; R25) or lost-at (the device is lost, NULLDRIVER_LOST_AT=k: CUDA_ERROR_DEVICE_UNAVAILABLE
# to every call, which custack does not classify sticky, and the work pending at the loss never
# completes). What is rotated: the second run of k is chosen by its slot, (k + phase) mod
# CHECK_REPEAT_EVERY (default 4): slot 0 repeat-at, slot 1 lost-at, every other slot sticky-at;
# the phase is the commit's last hex digit mod CHECK_REPEAT_EVERY (CHECK_REPEAT_PHASE overrides
# it). So a run of this script makes 2N+1 runs per program, as before the repeat and lost
# schedules: fail-at reaches every k, and of the second runs sticky-at two k in four, repeat-at
# one k in four and lost-at one k in four, on every run. A given (k, schedule) pair is reached
# by the runs of one phase in four (repeat-at, lost-at) or two in four (sticky-at): every pair
# by the four phases 0..3 (CHECK_REPEAT_PHASE=0 to 3, or commits whose last hex digits cover
# the four residues); a commit's phase is as good as random, so a pair waits four commits on
# average, not at most (CHECK_REPEAT_EVERY=1: repeat-at at every k; 2: repeat-at and lost-at
# alternating, no sticky-at). Every run of every pass has a time limit (CHECK_RUN_TIMEOUT
# seconds, default 60; the hang pass's CHECK_HANG_TIMEOUT; the injection pass's
# CHECK_INJECT_TIMEOUT, 60 per 2,000 frames): a run past it (a livelock, a wait that never
# ends) fails, named with its program and schedule. A repeat-at or lost-at run passes as any
# run below (but its leaks and orphans are not counted: every release from k on is answered
# with the error, and the driver keeps what it failed to release; under lost-at a release of
# what the pending work uses is still a violation, however it is answered), or ends in
# custack's safe state (status 75, exactly one line, no panic), a wait custack cannot confirm
# or a bounded wait past its deadline; for a program in CHECK_HANG_STRICT, whose every wait has
# a deadline, that line must name a deadline (it ended within its bound). A run passes when the
# program exits 0 or 1 (never a panic
# or a signal), the driver's report shows no violation, no leaked handle and no handle left
# for its context's destruction to release (skipped when the failed call was itself a free,
# destroy, unload or pop: the driver kept that handle; orphans also after a sticky fault; what
# custack leaves behind on purpose it names to the double, which does not count it), the
# failure reached the program (its error, or take_drop_errors), and every
# thread's context stack empty at its last call (skipped when a pop or push was failed), and no
# driver call made by a child the program forked (`forked-calls 0`: R22, the program `fork`).
#
# The hang pass (issue 44, R19): the clean run's report lists the call numbers of its
# asynchronous enqueues (`enqueues ...`); for each one k (an evenly spaced sample of at most
# CHECK_HANG_SAMPLE, default 24, for a program with more; all of them for the programs named
# in CHECK_HANG_STRICT) one run makes that enqueue never complete (NULLDRIVER_HANG_AT=k). Its
# outcome is one of: (a) the program exits 0 or 1: checked as above (a wait with a deadline
# ended it, or it never waited for the hung work; what custack leaves behind on purpose it
# names to the double); (b) the double's hung exit (status 86, a `hung` line naming the
# blocking call, or `hung idle: ...` when the program made no progress for CHECK_HANG_IDLE
# seconds, default 2, once the hang began: a poll loop or a future that waits for the hung work
# with no deadline): the program blocked in a wait with no deadline, a documented outcome that
# is counted, but a failure for a program in CHECK_HANG_STRICT (every wait there has a
# deadline) and with any violation; (c) for a program in CHECK_HANG_STRICT (default:
# `deadlines`, `safety_frame`, `restricted_scope`, `restricted_redundant`), the status of its
# bounded scope's `Overrun::Exit` (75) with the line naming the scope that overran: the
# documented outcome of a scope past its deadline (the process ends at once, so the double
# writes no report); (d) anything else (a panic, a signal, a violation, a
# leak, no end within CHECK_HANG_TIMEOUT seconds, default 60): a failure.
#
# Everything is built in its own target directories (target/checkdriver, target/check-driver),
# so the project's usual build is never relinked against the double.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
nd_target=$target/checkdriver
lib_dir=$nd_target/check-lib
ck_target=$target/check-driver

echo "check-driver: the double's own tests (one wrong raw-ffi sequence per violation kind)" >&2
cargo test --quiet --manifest-path checkdriver/Cargo.toml --target-dir "$nd_target" >&2
cargo build --quiet --release --manifest-path checkdriver/Cargo.toml --target-dir "$nd_target"
mkdir -p "$lib_dir"
cp -f "$nd_target/release/libcuda.so" "$lib_dir/libcuda.so"
ln -sf libcuda.so "$lib_dir/libcuda.so.1"
# cuSOLVER's stand-in (checkdriver/standins/cusolver, built with the double), under the sonames
# of cuSOLVER 12 and 11, linked into the programs in place of cuSOLVER (`solver_handles`); and
cp -f "$nd_target/release/libcusolver.so" "$lib_dir/libcusolver.so"
ln -sf libcusolver.so "$lib_dir/libcusolver.so.12"
ln -sf libcusolver.so "$lib_dir/libcusolver.so.11"
# cuSPARSE's (checkdriver/standins/cusparse), `sparse_handles`; cuDNN's
# (checkdriver/standins/cudnn), `dnn_handles`; cuBLAS's (checkdriver/standins/cublas, under the
# sonames of cuBLAS 12 and 13), `blas_handles`; cuBLASLt's (checkdriver/standins/cublaslt, the
# same), `blaslt_handles`; NCCL's (checkdriver/standins/nccl, under NCCL 2's soname),
# `nccl_parked`.
cp -f "$nd_target/release/libcusparse.so" "$lib_dir/libcusparse.so"
ln -sf libcusparse.so "$lib_dir/libcusparse.so.12"
cp -f "$nd_target/release/libcudnn.so" "$lib_dir/libcudnn.so"
ln -sf libcudnn.so "$lib_dir/libcudnn.so.9"
cp -f "$nd_target/release/libcublas.so" "$lib_dir/libcublas.so"
ln -sf libcublas.so "$lib_dir/libcublas.so.12"
ln -sf libcublas.so "$lib_dir/libcublas.so.13"
cp -f "$nd_target/release/libcublasLt.so" "$lib_dir/libcublasLt.so"
ln -sf libcublasLt.so "$lib_dir/libcublasLt.so.12"
ln -sf libcublasLt.so "$lib_dir/libcublasLt.so.13"
cp -f "$nd_target/release/libnccl.so" "$lib_dir/libnccl.so"
ln -sf libnccl.so "$lib_dir/libnccl.so.2"
CUDA_DRIVER_LIB_DIR=$lib_dir CUSTACK_CUSOLVER_LIB_DIR=$lib_dir CUSTACK_CUSPARSE_LIB_DIR=$lib_dir \
    CUSTACK_CUDNN_LIB_DIR=$lib_dir CUSTACK_CUBLAS_LIB_DIR=$lib_dir CUSTACK_CUBLASLT_LIB_DIR=$lib_dir \
    CUSTACK_NCCL_LIB_DIR=$lib_dir \
    cargo build --quiet --release --manifest-path benches/checking/Cargo.toml \
    --target-dir "$ck_target" --features cusolver,cusparse,cudnn,cublas,cublaslt,nccl
bin=$ck_target/release/custack-checking
export LD_LIBRARY_PATH=$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
loaded=$(ldd "$bin" | awk '/libcuda/ { print $3 }')
[[ $(realpath "$loaded") == $(realpath "$lib_dir/libcuda.so") ]] ||
    { echo "check-driver: $bin loads $loaded, not the checking driver" >&2; exit 1; }
for stand_in in cusolver cusparse cudnn cublas cublasLt nccl; do
    # `libcublas\.so`, not `libcublasLt.so`.
    loaded=$(ldd "$bin" | awk "/lib$stand_in\\.so/ { print \$3 }")
    [[ $(realpath "$loaded") == $(realpath "$lib_dir/lib$stand_in.so") ]] ||
        { echo "check-driver: $bin loads $loaded, not the stand-in lib$stand_in.so" >&2; exit 1; }
done

programs=(${CHECK_PROGRAMS:-example stand_ins solver_handles sparse_handles dnn_handles dnn_matmul blas_handles blaslt_handles nccl_parked p1 p2 p3 p4 p8 p9 p11 in_flight parked_graph scoped_alloc reuse_after_scope unwind scoped_host
    events submission graph graph_built graph_conditional graph_capture_into graph_shared graph_arena graph_host graph_exec_nodes graph_capture_forked graph_capture_forks graph_mem batch_copies batch_copies_old graph_kept_routes graph_kept_free graph_kept_attack graph_update_attack device_info module_globals memory_kinds managed library textures tensor_map peer_vmm contracts vmm vmm_share peer ipc stress batch_3d batch_3d_old managed_batches external external_leaked
    newer green green_leaked poisoned_calls deadlines safety_frame safety_graph safety_graph_nodes fork fork_in_scope confinement restricted_end sealed_teardown restricted_init_retry restricted_api named_launches restricted_redundant profile_first context_count
    restricted_scope driver_init redundant_partitions redundant_flips})
# The programs every wait of which has a deadline: a hang that blocks one is a failure, and
# every enqueue of theirs is hung in turn: `deadlines` (R19), which uses every bounded wait,
# `safety_frame` and `safety_graph`, the restricted profile's frame loops (a captured graph, a
# built one), `safety_graph_nodes`, a built graph's other node kinds, `restricted_api` and
# `restricted_scope`, the rest of the restricted API (the latter method by method), and
# `restricted_redundant`, `redundant_partitions` and `redundant_flips`, its redundant kernel,
# whose every wait is bounded by their context's `WaitBound` (a hung frame ends in the safe state).
hang_strict=" ${CHECK_HANG_STRICT-deadlines safety_frame safety_graph safety_graph_nodes restricted_api restricted_redundant restricted_scope redundant_partitions redundant_flips} "
# The status and the start of the one line of custack's safe state (`custack::fail_stop`,
# FAIL_STOP_STATUS): a bounded scope's `Overrun::Exit`, and a scope whose wait sees a sticky
# error (R20: another context's fault does not stop this context's work, so the scope cannot
# end its borrows). The process ends at once (`_exit`): the double writes no report.
safe_state_status=75
safe_state_line="custack: fail-stop (exit status 75): "
hang_sample=${CHECK_HANG_SAMPLE:-24}
hang_timeout=${CHECK_HANG_TIMEOUT:-60}
run_timeout=${CHECK_RUN_TIMEOUT:-60}
repeat_every=${CHECK_REPEAT_EVERY:-4}
if [[ -n ${CHECK_REPEAT_PHASE:-} ]]; then
    repeat_phase=$((CHECK_REPEAT_PHASE % repeat_every))
else
    head=$(git rev-parse --short HEAD 2>/dev/null || echo 0)
    repeat_phase=$((16#${head: -1} % repeat_every))
fi
hang_idle=${CHECK_HANG_IDLE:-2}
passes=" ${CHECK_PASSES:-faults hangs inject differential} "
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report=$work/report
total_runs=0 total_failed_calls=0 bad=0 total_violations=0 sticky_safe_state=0 repeat_safe_state=0
lost_safe_state=0
hang_runs=0 hang_ended=0 hang_blocked=0 hang_bad=0

# Runs "$bin $program" with the extra environment "$@"; checks its report; echoes nothing.
run_one() {
    local program=$1 label=$2; shift 2
    local rc=0 out
    # Emptied, not removed (no process): an empty report is no report, as a missing one.
    : >"$report"
    out=$(export NULLDRIVER_CHECK=1 NULLDRIVER_REPORT="$report" "$@" &&
        exec timeout -k 5 "$run_timeout" "$bin" "$program" 2>&1) || rc=$?
    total_runs=$((total_runs + 1))
    if [[ $rc == 124 || $rc == 137 ]]; then
        bad=$((bad + 1))
        echo "check-driver: FAIL $program $label: no end within $run_timeout s (a livelock, or a wait that never ends)" >&2
        echo "$out" | tail -5 >&2
        return 0
    fi
    # Under a persistent error that is not sticky (repeated, or a lost device's), the safe
    # state is the documented end of a wait custack cannot confirm, or of a bounded wait past
    # its deadline: one line, no panic; for a program every wait of which has a deadline
    # (CHECK_HANG_STRICT), a deadline's.
    if [[ $label == repeat-* || $label == lost-* ]] &&
        [[ $rc == "$safe_state_status" && $out != *"panicked at"* ]] &&
        [[ $(grep -c "^$safe_state_line" <<<"$out") == 1 ]] &&
        [[ $hang_strict != *" $program "* || $(grep "^$safe_state_line" <<<"$out") == *deadline* ]]; then
        if [[ $label == lost-* ]]; then
            lost_safe_state=$((lost_safe_state + 1))
        else
            repeat_safe_state=$((repeat_safe_state + 1))
        fi
        return 0
    fi
    # A sticky error that reached a scope's wait (a sticky schedule, or a failed call whose
    # typical code is sticky: a synchronize's LAUNCH_FAILED) ends the process in the safe state
    # (R20): the documented outcome, with exactly one report line, naming a sticky error, and
    # no panic.
    if [[ $label != clean && $rc == "$safe_state_status" && $out != *"panicked at"* ]] &&
        [[ $(grep -c "^$safe_state_line.*(sticky: " <<<"$out") == 1 ]]; then
        sticky_safe_state=$((sticky_safe_state + 1))
        return 0
    fi
    check_run "$program" "$label" "$rc" "$out"
}

# Judges a run of "$program" that ended with status $rc and output $out, from its report.
check_run() {
    local program=$1 label=$2 rc=$3 out=$4
    local problems=() failed=
    [[ $rc == 0 || $rc == 1 ]] || problems+=("exit $rc")
    # A panic is Rust's line ("thread 'main' panicked at FILE:LINE:COL:"), not an error whose
    # text names a host function's panic (custack reports those as errors).
    [[ $out != *"panicked at"* ]] || problems+=("panic")
    if [[ ! -s $report ]]; then
        problems+=("no report")
    else
        local failed= violations= leaks= stacks= orphans= forked= forked_named= key value rest
        # The report's fields, read by the shell itself: a run is a few milliseconds of its
        # program, and a process per field (six `awk`s) cost as much again.
        while read -r key value rest; do
            case $key in
                failed) failed=$value ;;
                forked-calls) forked=$value ;;
                forked-call:) forked_named+="$value " ;;
                violations) violations=$value ;;
                leaks) leaks=$value ;;
                stacks) stacks=$value ;;
                orphans) orphans=$value ;;
            esac
        done <"$report"
        # R22: a child forked after Profile::init makes no driver call (the double counts the
        # calls of every forked child in the parent's report).
        [[ ${forked:-0} == 0 ]] ||
            problems+=("$forked driver calls in a forked child: $forked_named")
        [[ $failed == - ]] || total_failed_calls=$((total_failed_calls + 1))
        total_violations=$((total_violations + violations))
        [[ $violations == 0 ]] || problems+=("$violations violations")
        # A failed call must reach the program: as its error, or in take_drop_errors.
        # (Except the end of a capture whose closure failed: the program gets the closure's
        # error, and custack reports nothing more when the end returns no graph.)
        [[ $failed == - || $failed == cuStreamEndCapture* || $out != *"ok (0 drop errors)"* ]] ||
            problems+=("the failure was lost")
        case $failed in
            cuMemFree*|cuStreamDestroy*|cuEventDestroy*|cuModuleUnload*|cuCtxDestroy*|cuCtxPopCurrent*|cuDevicePrimaryCtxRelease*|\
            cuGraphDestroy*|cuGraphExecDestroy*|cuLibraryUnload*|cuMemPoolDestroy*|cuMemHostUnregister*|cuLinkDestroy*|\
            cuMemUnmap*|cuMemAddressFree*|cuMemRelease*|cuCtxDisablePeerAccess*|cuIpcCloseMemHandle*|\
            cuArrayDestroy*|cuMipmappedArrayDestroy*|cuTexObjectDestroy*|cuSurfObjectDestroy*|cuGreenCtxDestroy*|\
            cuDestroyExternalMemory*|cuDestroyExternalSemaphore*|cusolverDnDestroy*|cusparseDestroy*|cudnnDestroy*|cudnnBackendDestroy*|cublasDestroy*|\
            cublasLt*Destroy|ncclCommDestroy*|ncclCommAbort*) ;;
            *) [[ $label == repeat-* || $label == lost-* || $leaks == 0 ]] || problems+=("$leaks leaks")
               # After a sticky fault frees fail and destroying the context is the clean-up.
               # What custack leaves behind on purpose (a failed wait's or poll's payload, a
               # failed graph update's, a parked handle whose drop cannot push its context,
               # R11) it names to the double, which reports it as left behind, not as an
               # orphan: every orphan counts.
               # A failed end of a capture runs nothing in the double, so a graph the capture
               # named (cuStreamGetCaptureInfo, for a captured host function) stays alive there.
               [[ $label == sticky-* || $label == repeat-* || $label == lost-* || $failed == cuStreamEndCapture* || $orphans == 0 ]] ||
                   problems+=("$orphans orphans") ;;
        esac
        case $failed in
            cuCtxPopCurrent*|cuCtxPushCurrent*|cuCtxSetCurrent*) ;;
            *) [[ $stacks == 0 ]] || problems+=("$stacks threads left a context on their stack") ;;
        esac
    fi
    if ((${#problems[@]})); then
        bad=$((bad + 1))
        echo "check-driver: FAIL $program $label (failed call: ${failed:-?}): ${problems[*]}" >&2
        echo "$out" | tail -5 >&2
        [[ ! -s $report ]] || grep -E '^(violation|leak|orphan):' "$report" | head -10 >&2 || true
    fi
    return 0
}

# One hang schedule: "$bin $program" with enqueue call $k never completing. $strict: every wait
# of the program has a deadline. Counts the outcome (see the top of this file).
run_hang() {
    local program=$1 k=$2 strict=$3
    local rc=0 out
    rm -f "$report"
    out=$(env NULLDRIVER_CHECK=1 NULLDRIVER_REPORT="$report" NULLDRIVER_HANG_AT="$k" NULLDRIVER_HANG_IDLE_SECS="$hang_idle" \
        timeout -k 5 "$hang_timeout" "$bin" "$program" 2>&1) || rc=$?
    hang_runs=$((hang_runs + 1))
    local bad_before=$bad
    if [[ $rc == 86 && -s $report ]] && grep -q '^hung ' "$report"; then
        local hung violations
        hung=$(awk '$1 == "hung" { $1 = ""; print substr($0, 2) }' "$report")
        violations=$(awk '$1 == "violations" { print $2 }' "$report")
        total_violations=$((total_violations + violations))
        if [[ $violations != 0 || $strict == 1 || $out == *"panicked at"* ]]; then
            bad=$((bad + 1))
            local why="blocked in $hung with no deadline"
            [[ $strict == 0 ]] || why+=" (a strict program: every wait has a deadline)"
            echo "check-driver: FAIL $program hang-at-$k: $why, $violations violations" >&2
            echo "$out" | tail -5 >&2
            grep -E '^(violation|hang-at)' "$report" | head -10 >&2 || true
        else
            hang_blocked=$((hang_blocked + 1))
        fi
    elif [[ $strict == 1 && $rc == "$safe_state_status" && $out == *"$safe_state_line"*"passed its deadline"*"(Overrun::Exit)"* ]]; then
        # A bounded scope past its deadline ended the process at once in the safe state
        # (`Overrun::Exit`, `_exit`: no exit handler runs, so the double writes no report): the
        # documented outcome.
        hang_ended=$((hang_ended + 1))
    elif [[ $rc == 124 || $rc == 137 ]]; then
        bad=$((bad + 1))
        echo "check-driver: FAIL $program hang-at-$k: no end within $hang_timeout s (a livelock, or a wait that never ends)" >&2
        echo "$out" | tail -5 >&2
    else
        # Ended by itself (a deadline, or it never waited for the hung work): as any run.
        check_run "$program" "hang-at-$k" "$rc" "$out"
        ((bad > bad_before)) || hang_ended=$((hang_ended + 1))
    fi
    ((bad == bad_before)) || hang_bad=$((hang_bad + 1))
    return 0
}

# The enqueue call numbers to hang for a program whose clean run listed $2 ($1: all of them,
# or an evenly spaced sample of at most $hang_sample).
hang_points() {
    local all=$1; shift
    local list=("$@") n=$#
    if [[ $all == 1 || $n -le $hang_sample ]]; then
        echo "${list[@]}"
        return
    fi
    local i picked=()
    for ((i = 0; i < hang_sample; i++)); do
        picked+=("${list[$((i * (n - 1) / (hang_sample - 1)))]}")
    done
    echo "${picked[@]}"
}

# The fault and hang passes run each program's schedules in a worker of their own, up to
# CHECK_JOBS workers at once (default: the number of cores): a run is one process of the
# program, mostly its start, so one run at a time left a core of CI's two idle for the whole
# pass. A worker is a subshell with its own report file and its own copy of the counters, which
# it writes out at its end; the counts are added and each worker's output printed, in the order
# of the program list, once every worker of the pass ended. A worker that ends without its
# counts fails the pass.
# The hang pass has four times as many (CHECK_HANG_JOBS, default 4 x CHECK_JOBS): most of its
# runs sleep, waiting out a deadline or for the double's watchdog to find no progress for
# CHECK_HANG_IDLE seconds, and leave the cores idle (load average 0.2 during the pass). A run is
# judged idle by its driver calls, not by CPU time, and a program waiting for a core makes no
# call either; but a checking program's calls are milliseconds of CPU apart, and a gap of
# CHECK_HANG_IDLE seconds would take a contention of hundreds of runnable processes per core.
# Measured on the 2-core machine, idle (2026-11-28): 130 s with 2 workers, 95 s with 4, 76 s
# with 8, the same lines and counts for every program; the rest is the longest program's runs
# one after another (redundant_flips, 66 hang schedules, each to its deadline).
workers=${CHECK_JOBS:-$(nproc)}
[[ $workers =~ ^[1-9][0-9]*$ ]] || { echo "check-driver: CHECK_JOBS is a count of 1 or more, not $workers" >&2; exit 2; }
hang_workers=${CHECK_HANG_JOBS:-$((4 * workers))}
[[ $hang_workers =~ ^[1-9][0-9]*$ ]] || { echo "check-driver: CHECK_HANG_JOBS is a count of 1 or more, not $hang_workers" >&2; exit 2; }
counters=(total_runs total_failed_calls bad total_violations sticky_safe_state repeat_safe_state
    lost_safe_state hang_runs hang_ended hang_blocked hang_bad)
# Starts "$2 ..." as the worker named $1, once fewer than $workers run.
spawn() {
    local name=$1
    shift
    while (($(jobs -rp | wc -l) >= workers)); do wait -n || true; done
    (
        report=$work/report-$name
        for c in "${counters[@]}"; do printf -v "$c" 0; done
        "$@" >"$work/$name.out" 2>"$work/$name.err"
        for c in "${counters[@]}"; do echo "$c ${!c}"; done >"$work/$name.counts.part"
        mv "$work/$name.counts.part" "$work/$name.counts"
    ) &
}
# Waits for every worker, then prints the output of the workers named, in that order, and adds
# their counts; a worker without its counts fails the pass ($1: the counter of the pass's
# failures, `hang_bad` or nothing, besides `bad`).
collect() {
    local pass_bad=$1 name c v
    shift
    wait
    for name in "$@"; do
        cat "$work/$name.out" 2>/dev/null || true
        cat "$work/$name.err" >&2 2>/dev/null || true
        if [[ ! -s $work/$name.counts ]]; then
            echo "check-driver: FAIL worker $name ended without its counts" >&2
            bad=$((bad + 1))
            [[ -z $pass_bad ]] || printf -v "$pass_bad" '%s' $((${!pass_bad} + 1))
            continue
        fi
        while read -r c v; do
            printf -v "$c" '%s' $((${!c} + v))
        done <"$work/$name.counts"
        rm -f "$work/$name.counts"
    done
}

# The fault pass of one program: its clean run (which lists its enqueues for the hang pass, in
# $work/ENQ-$program), then each call failed and, in rotation, sticky, repeated or lost.
fault_program() {
    local program=$1 rc=0 n k bad_before runs_before
    rm -f "$report"
    NULLDRIVER_CHECK=1 NULLDRIVER_REPORT="$report" timeout -k 5 "$run_timeout" "$bin" "$program" >/dev/null 2>&1 || rc=$?
    n=$(awk '$1 == "calls" { print $2 }' "$report" 2>/dev/null || echo 0)
    [[ $rc == 0 && ${n:-0} -gt 0 ]] || { echo "check-driver: FAIL $program: clean run exit $rc, $n calls" >&2; bad=$((bad + 1)); return 0; }
    awk '$1 == "enqueues" { $1 = ""; print }' "$report" >"$work/ENQ-$program"
    [[ $passes == *" faults "* ]] || return 0
    bad_before=$bad runs_before=$total_runs
    run_one "$program" clean
    for ((k = 1; k <= n; k++)); do
        run_one "$program" "fail-at-$k" NULLDRIVER_FAIL_AT=$k
        case $(((k + repeat_phase) % repeat_every)) in
            0) run_one "$program" "repeat-at-$k" NULLDRIVER_REPEAT_AT=$k ;;
            1) run_one "$program" "lost-at-$k" NULLDRIVER_LOST_AT=$k ;;
            *) run_one "$program" "sticky-at-$k" NULLDRIVER_STICKY_AT=$k ;;
        esac
    done
    printf 'check-driver: %-18s %4d calls, %5d schedules, %d failing\n' \
        "$program" "$n" $((total_runs - runs_before)) $((bad - bad_before))
}

# The hang pass of one program: each enqueue its clean run listed (or a sample) never completes.
hang_program() {
    local program=$1 strict=0 k all points runs_before blocked_before bad_before
    [[ $hang_strict != *" $program "* ]] || strict=1
    read -ra all <"$work/ENQ-$program"
    read -ra points <<<"$(hang_points "$strict" "${all[@]}")"
    runs_before=$hang_runs blocked_before=$hang_blocked bad_before=$hang_bad
    for k in "${points[@]}"; do
        run_hang "$program" "$k" "$strict"
    done
    printf 'check-driver: %-18s %4d enqueues, %3d hang schedules, %3d blocked without deadline, %d failing%s\n' \
        "$program" "${#all[@]}" $((hang_runs - runs_before)) $((hang_blocked - blocked_before)) \
        $((hang_bad - bad_before)) "$([[ $strict == 0 ]] || echo ' (strict)')"
}

# Workers are named by their place in the list too, so that a program listed twice runs twice.
start=$SECONDS
names=()
for i in "${!programs[@]}"; do
    names+=("faults-$i-${programs[i]}")
    spawn "faults-$i-${programs[i]}" fault_program "${programs[i]}"
done
collect "" "${names[@]}"
fault_seconds=$((SECONDS - start))
hang_start=$SECONDS
if [[ $passes == *" hangs "* ]]; then
    workers=$hang_workers
    names=()
    for i in "${!programs[@]}"; do
        [[ -e $work/ENQ-${programs[i]} ]] || continue
        names+=("hangs-$i-${programs[i]}")
        spawn "hangs-$i-${programs[i]}" hang_program "${programs[i]}"
    done
    collect hang_bad "${names[@]}"
    echo "check-driver: hangs: $hang_runs runs, $hang_ended ended by a deadline or normally, $hang_blocked blocked in a wait with no deadline, $hang_bad failing ($((SECONDS - hang_start)) s)"
fi
# The injection pass (docs/reliability.md, redundant execution): the program redundant_inject
# runs a small kernel redundantly on two green-context partitions, compared on the host and on
# the device, for CHECK_INJECT_FRAMES frames (default 2,000): once clean (every frame must
# compare equal), once with NULLDRIVER_INJECT=CHECK_INJECT_SEED (default 20261126), where the
# double corrupts replica 1 of every odd frame of each kernel (1, 8 or 64 random bits of its
# output flipped, its launch dropped, or 64 bits flipped with the device verdict's copy back
# dropped: checkdriver/src/inject.rs) and every one must be
# found. The report must count the injections the frames call for, and show no violation or
# leak. CHECK_INJECT_FRAMES=100000 makes the 100,000 injections docs/reliability.md records.
inject_bad=0
if [[ $passes == *" inject "* ]]; then
    inject_frames=${CHECK_INJECT_FRAMES:-2000}
    # A time limit as every run's: CHECK_INJECT_TIMEOUT seconds, by default 60 per 2,000 frames.
    inject_timeout=${CHECK_INJECT_TIMEOUT:-$((run_timeout * (inject_frames / 2000 + 1)))}
    for seed in 0 "${CHECK_INJECT_SEED:-20261126}"; do
        rm -f "$report"
        rc=0
        out=$(env NULLDRIVER_CHECK=1 NULLDRIVER_REPORT="$report" NULLDRIVER_INJECT="$seed" \
            CHECK_INJECT_FRAMES="$inject_frames" timeout -k 5 "$inject_timeout" "$bin" redundant_inject 2>&1) || rc=$?
        problems=()
        [[ $rc != 124 && $rc != 137 ]] || problems+=("no end within $inject_timeout s")
        [[ $rc == 0 ]] || problems+=("exit $rc")
        [[ $out != *"panicked at"* ]] || problems+=("panic")
        if [[ ! -s $report ]]; then
            problems+=("no report")
        else
            injected=$(awk '$1 == "injected" { print $2 }' "$report")
            want=0
            [[ $seed == 0 ]] || want=$((inject_frames / 2 * 2))
            [[ ${injected:-0} == "$want" ]] || problems+=("the double injected ${injected:-0}, not $want")
            # The fifth kind drops the device comparison's verdict copy: one odd frame in five.
            lost=$(awk '$1 == "injected-lost-copies" { print $2 }' "$report")
            want_lost=0
            [[ $seed == 0 ]] || want_lost=$((inject_frames / 10))
            [[ ${lost:-0} == "$want_lost" ]] || problems+=("the double dropped ${lost:-0} verdict copies, not $want_lost")
            for key in violations leaks stacks orphans; do
                v=$(awk -v k="$key" '$1 == k { print $2 }' "$report")
                [[ $v == 0 ]] || problems+=("$key $v")
            done
        fi
        # No tally where the program failed before it (`|| true`: that failure is reported below).
        { grep '^redundant_inject: compared' <<<"$out" || true; } |
            sed "s/^/check-driver: inject seed $seed: /"
        if ((${#problems[@]})); then
            inject_bad=$((inject_bad + 1))
            echo "check-driver: FAIL redundant_inject (seed $seed, $inject_frames frames): ${problems[*]}"
            echo "$out" | tail -n 20
        fi
    done
    bad=$((bad + inject_bad))
fi
hang_seconds=$((SECONDS - hang_start))
# The differential run's self-test (docs/validation.md, R26): its harness with the double on both
# sides (every program equal, a failure injected on one side found where it was made).
if [[ $passes == *" differential "* ]]; then
    bash scripts/differential.sh | sed 's/^/check-driver: /' || bad=$((bad + 1))
fi
echo "check-driver: ${#programs[@]} programs, $total_runs runs, $total_failed_calls with a call failed, $sticky_safe_state runs ended in the safe state on a sticky error, $repeat_safe_state on a repeated one and $lost_safe_state on a lost device (status 75, one line), $total_violations violations, $bad failing runs (faults $fault_seconds s, repeat-at where k + $repeat_phase = 0 mod $repeat_every, lost-at where it is 1, sticky-at elsewhere; hangs $hang_seconds s)"
((bad == 0))
