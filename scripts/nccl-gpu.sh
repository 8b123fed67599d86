#!/usr/bin/env bash
# custack's NCCL evidence on a machine of two or more GPUs, every visible GPU a rank: the GPU
# tests of `tests/gpu_nccl.rs` (its two-GPU kill tests in both call modes among them), the
# example's sweep call by call and batched in both call modes, and nccl-tests' all_reduce_perf
# over the same GPUs as the reference. From the repository root on the GPU machine, after
# `tar xzf .gpuz/bundle.tgz` of a bundle packed with `--features nccl` (as every release bundle
# is) and `--example 20_nccl_ranks`:
#
#   bash scripts/nccl-gpu.sh [NCCL-TESTS.tar]
#
# NCCL_GPU_OPS (default all_reduce): the collectives to sweep, as the example's `--op` names
# them (all_reduce all_gather reduce_scatter broadcast reduce sendrecv); all_reduce is swept in
# both call modes, every other one in the blocking mode (the one that reaches NCCL's speed call
# by call), each against its nccl-tests binary (`<op>_perf`). NCCL_GPU_SKIP_TESTS=1 leaves the
# tests out (the sweeps alone, e.g. on two GPUs of four after a
# run on all four). NCCL_GPU_TIMINGS=R (default 1) times each size R times on both sides: the
# example's `--timings R` (it prints the medians) and nccl-tests' `-N R` (its sweep R times; take
# the median of a size's R rows). NCCL_GPU_BATCHED=1 also runs each nccl-tests binary with
# `-n 5 -m 20 -w 2` (20 calls aggregated in one group, its own batch: the reference of the
# example's batched column); NCCL_GPU_BATCH=K makes both batches K calls (`--batch K`, `-m K`). NCCL-TESTS.tar as in docs/nccl-designs.md (`git archive --prefix=nccl-tests/` of
# github.com/NVIDIA/nccl-tests); without it the reference is skipped. nccl-tests is built while
# the tests run (they time seconds, not microseconds) and run after the sweeps, on a quiet
# machine. NVLS stays off (`NCCL_NVLS_ENABLE=0`: no multicast object is made). The loader finds
# NCCL and the CUDA libraries of the machine's Python wheels. Exits non-zero if a step failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
archive=${1:-}
started=$SECONDS
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ -n ${CUDA_VISIBLE_DEVICES:-} ]]; then gpus=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .); fi
((gpus >= 2)) || { echo "scripts/nccl-gpu.sh: needs two GPUs, this machine shows ${gpus:-0}" >&2; exit 2; }
for bin in .gpu/bin/test-gpu_nccl .gpu/bin/example-20_nccl_ranks; do
    [[ -x $bin ]] || { echo "scripts/nccl-gpu.sh: no $bin: pack it (scripts/gpu-bundle.sh --features nccl --example 20_nccl_ranks)" >&2; exit 2; }
done
export NCCL_NVLS_ENABLE=0
unset NCCL_COMM_BLOCKING NCCL_RUNTIME_CONNECT
nv=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true)
for lib in "$nv/nccl/lib" "$nv/cu13/lib"; do
    if [[ -n $nv && -d $lib ]]; then export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; fi
done
echo "== $gpus GPUs (CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-all})"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
nvidia-smi topo -m 2>/dev/null | head -n $((gpus + 1))
read -r -a ops <<<"${NCCL_GPU_OPS:-all_reduce}"
timings=${NCCL_GPU_TIMINGS:-1}
batch=${NCCL_GPU_BATCH:-20}
failed=0
build_pid=
work=/tmp/nccl-gpu-tests
if [[ -n $archive ]]; then
    NCCL_TESTS_BINS="${ops[*]/%/_perf}" NCCL_TESTS_STEP=build NCCL_TESTS_DIR=$work nice -n 10 bash scripts/nccl-tests.sh "$archive" >/tmp/nccl-gpu-build.log 2>&1 &
    build_pid=$!
fi
if [[ ${NCCL_GPU_SKIP_TESTS:-0} != 1 ]]; then
    echo "== tests/gpu_nccl.rs, every test (the two-GPU ones on GPUs 0 and 1 of those visible)"
    .gpu/bin/test-gpu_nccl --include-ignored --test-threads=1 || { echo "gpu_nccl: FAILED (status $?)"; failed=1; }
fi
if [[ -n $build_pid ]]; then
    wait "$build_pid" || { echo "nccl-tests: build failed:"; tail -n 20 /tmp/nccl-gpu-build.log; build_pid=; }
fi
for op in "${ops[@]}"; do
    modes=(--blocking)
    [[ $op == all_reduce ]] && modes=("" --blocking)
    for mode in "${modes[@]}"; do
        echo "== 20_nccl_ranks --sweep $mode --op $op --timings $timings --batch $batch ($gpus ranks, one process each)"
        .gpu/bin/example-20_nccl_ranks --sweep $mode --op "$op" --timings "$timings" --batch "$batch" ||
            { echo "20_nccl_ranks --sweep $mode --op $op: FAILED (status $?)"; failed=1; }
    done
done
if [[ -n $archive && -n $build_pid ]]; then
    for op in "${ops[@]}"; do
        echo "== nccl-tests ${op}_perf -b 1M -e 1G -f 2 -g $gpus -n 20 -w 5 -N $timings (one process, one thread driving every GPU)"
        NCCL_TESTS_BIN=${op}_perf NCCL_TESTS_STEP=run NCCL_TESTS_DIR=$work bash scripts/nccl-tests.sh "$archive" \
            -b 1M -e 1G -f 2 -g "$gpus" -n 20 -w 5 -N "$timings" || { echo "nccl-tests ${op}_perf: FAILED (status $?)"; failed=1; }
    done
    if [[ ${NCCL_GPU_BATCHED:-0} == 1 ]]; then
        for op in "${ops[@]}"; do
            echo "== nccl-tests ${op}_perf -b 1M -e 1G -f 2 -g $gpus -n 5 -m $batch -w 2 ($batch calls in one group)"
            NCCL_TESTS_BIN=${op}_perf NCCL_TESTS_STEP=run NCCL_TESTS_DIR=$work bash scripts/nccl-tests.sh "$archive" \
                -b 1M -e 1G -f 2 -g "$gpus" -n 5 -m "$batch" -w 2 || { echo "nccl-tests ${op}_perf -m $batch: FAILED (status $?)"; failed=1; }
        done
    fi
fi
echo "== done in $((SECONDS - started)) s"
exit $failed
