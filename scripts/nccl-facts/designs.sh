#!/usr/bin/env bash
# Measures the ways of bounding NCCL's waits that docs/nccl-designs.md compares
# (designs.c beside this file): each all-reduce call by call, 1 MiB to 1 GiB, and a kill test of
# each. On a machine with two GPUs, from the repository root, with NCCL's Python wheel installed
# and nvcc (PATH or /usr/local/cuda/bin); no Rust needed:
#
#   bash scripts/nccl-facts/designs.sh [NCCL-TESTS.tar]
#
# With NCCL-TESTS.tar (`git archive --prefix=nccl-tests/` of github.com/NVIDIA/nccl-tests, see
# docs/nccl-designs.md), nccl-tests' all_reduce_perf is built and run too, through
# scripts/nccl-tests.sh, as the reference (`-b 1M -e 1G -f 2 -g 2 -n 20 -w 5`). DESIGNS_STALL=1
# adds the stall tests (rank 1 alive but silent) beside the kill tests; DESIGNS_NVLINK_CENTRIC=1
# sets config.nvlinkCentricSched = 1 as nccl-tests does; DESIGNS_ONLY=perf or kill runs only
# those; DESIGNS_KILL_ONLY="a b" keeps those designs' kill tests; DESIGNS_HANG_MARGIN_S (default
# 3) is how long past its deadline a rank 0 still inside a call, wait or abort is reported HUNG;
# DESIGNS_KILL_REPS (default 3) repeats every kill test, and a tally of the outcomes of
# each ends the output. NVLS stays off throughout (NCCL_NVLS_ENABLE=0). About 8 minutes with
# three repetitions; exits 2 on fewer than two GPUs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
started=$SECONDS
archive=${1:-}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ ${gpus:-0} -lt 2 ]]; then
    echo "scripts/nccl-facts/designs.sh: needs two GPUs, this machine has ${gpus:-0}: run it on nvidia-h100-x2" >&2
    exit 2
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
nv=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])') ||
    { echo "scripts/nccl-facts/designs.sh: no NCCL wheel (python3 -c 'import nvidia')" >&2; exit 2; }
[[ -f $nv/nccl/include/nccl.h && -f $nv/nccl/lib/libnccl.so.2 ]] ||
    { echo "scripts/nccl-facts/designs.sh: no NCCL under $nv/nccl" >&2; exit 2; }
out=${OUT:-/tmp}/nccl-designs
mkdir -p "$out"
# designs.c is C (C11 atomics), compiled by nvcc's host compiler; if this nvcc will not take a
# .c file, the host compiler builds it against the toolkit's static runtime.
if ! "$nvcc" -O2 -o "$out/designs" scripts/nccl-facts/designs.c -I"$nv/nccl/include" \
    -L"$nv/nccl/lib" -l:libnccl.so.2 -Xlinker -rpath="$nv/nccl/lib" -lpthread; then
    cuda=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
    cc -std=gnu11 -O2 -o "$out/designs" scripts/nccl-facts/designs.c -I"$nv/nccl/include" \
        -I"$cuda/include" -L"$nv/nccl/lib" -l:libnccl.so.2 -Wl,-rpath="$nv/nccl/lib" \
        -L"$cuda/lib64" -lcudart_static -ldl -lrt -lpthread ||
        { echo "scripts/nccl-facts/designs.sh: cannot build designs.c" >&2; exit 1; }
fi

export NCCL_NVLS_ENABLE=0
unset NCCL_COMM_BLOCKING NCCL_RUNTIME_CONNECT
echo "== machine"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
nvidia-smi topo -m
echo "NCCL wheel: $(python3 -c "import importlib.metadata as m; print(' '.join(d.metadata['Name'] + ' ' + d.version for d in m.distributions() if 'nccl' in (d.metadata['Name'] or '').lower()))" 2>/dev/null) at $nv/nccl"
echo "== watchdog cost"
"$out/designs" watchdog-cost

failed=0
only=${DESIGNS_ONLY:-all}
[[ $only == kill ]] || echo "== perf (call by call; rank 0; us_per_call: GPU events, wall: nccl-tests' host clock)"
[[ $only == kill ]] || for d in blocking a b c d dc e; do
    timeout 110 "$out/designs" "$d" perf || { echo "perf $d: failed (status $?)"; failed=1; }
done

# One kill test: DESIGN MODE [CALLS [WARMUP]] (rank 0's un-waited all-reduces after rank 1
# stopped; the all-reduces both ranks ran before).
reps=${DESIGNS_KILL_REPS:-3}
tally=$out/kill-tally.txt
: >"$tally"
kill_test() {
    local d=$1 m=$2 calls=${3:-4000} warm=${4:-5} rep line
    [[ -z ${DESIGNS_KILL_ONLY:-} || " $DESIGNS_KILL_ONLY " == *" $d "* ]] || return 0
    for ((rep = 1; rep <= reps; rep++)); do
        local log=$out/kill-$d-$m-$calls-$warm-$rep
        DESIGNS_KILL_CALLS=$calls DESIGNS_KILL_WARMUP=$warm timeout $((45 + ${DESIGNS_HANG_MARGIN_S:-3})) "$out/designs" "$d" "$m" \
            >"$log.txt" 2>"$log.err"
        local status=$?
        # A rank 0 that crashed (e.g. inside NCCL while the watchdog freed the communicator)
        # or was ended by its alarm prints no line of its own.
        line=$(grep "^kill $d $m " "$log.txt" | head -n 1)
        [[ -n $line ]] ||
            line="kill $d $m warmup=$warm calls=$calls outcome=CRASHED-OR-KILLED status=$status ($(tail -n 3 "$log.err" | tr '\n' ' '))"
        echo "$line rep=$rep"
        # The tally's key: design, mode, calls, warm-up; its value: outcome and what ended it.
        local outcome by
        outcome=$(grep -o 'outcome=[^ ]*' <<<"$line" | cut -d= -f2)
        by=$(grep -o ' by=[^ ]*' <<<"$line" | tr -d ' ')
        [[ -n $by ]] || by=$(grep -o ' where=[^ ]*\| status=[^ ]*' <<<"$line" | head -n 1 | tr -d ' ')
        echo "$d $m calls=$calls warmup=$warm $outcome $by" >>"$tally"
    done
}
# nccl-tests builds (a minute or two of nvcc) while the kill tests run, which time seconds, not
# microseconds; all_reduce_perf then runs on a quiet machine.
build_pid=
tests_dir=/tmp/nccl-designs-tests # not under $OUT: a build tree with links
if [[ -n $archive ]]; then
    NCCL_TESTS_STEP=build NCCL_TESTS_DIR=$tests_dir nice -n 10 \
        bash scripts/nccl-tests.sh "$archive" >"$out/nccl-tests-build.log" 2>&1 &
    build_pid=$!
fi

[[ $only == perf ]] || echo "== kill tests (deadline 5 s; rank 1 stops after 'warmup' all-reduces of 4 MiB)"
modes=kill
[[ ${DESIGNS_STALL:-0} == 1 ]] && modes="kill stall"
[[ $only == perf ]] && modes=
for m in $modes; do
    for d in a b b-revoke c d dc e; do kill_test "$d" "$m"; done
    # c, d and dc with few calls in flight: does a capped number of un-waited calls keep every
    # blocking point in the caller's own bounded wait? (e caps itself at 64.)
    for d in c d dc; do kill_test "$d" "$m" 64; done
done
# Rank 1 dies right after init: rank 0's first call must connect its algorithm to a dead peer
# (b and d connect on first use; c, dc and e connected everything at init).
[[ $only == perf ]] || for d in b c d dc e; do kill_test "$d" kill 4000 0; done
if [[ -s $tally ]]; then
    echo "== kill tests, tallied over $reps repetitions (count, design, mode, calls, warm-up, outcome, what ended it)"
    sort "$tally" | uniq -c
fi
if [[ -n $build_pid ]]; then
    echo "== nccl-tests all_reduce_perf -b 1M -e 1G -f 2 -g 2 -n 20 -w 5 (one process, one thread driving both GPUs)"
    if wait "$build_pid"; then
        NCCL_TESTS_STEP=run NCCL_TESTS_DIR=$tests_dir bash scripts/nccl-tests.sh "$archive" \
            -b 1M -e 1G -f 2 -g 2 -n 20 -w 5 || echo "nccl-tests: all_reduce_perf failed (status $?)"
    else
        echo "nccl-tests: build failed; its log:"
        tail -n 20 "$out/nccl-tests-build.log"
    fi
fi
echo "== done in $((SECONDS - started)) s"
exit $failed
