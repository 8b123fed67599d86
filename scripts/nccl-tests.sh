#!/usr/bin/env bash
# Builds NVIDIA's nccl-tests (all_reduce_perf) from a source archive with nvcc, against the NCCL
# of the `nvidia-nccl-cu13` (or -cu12) Python wheel installed on a GPU machine, and runs it: the
# reference column of BENCHMARKS.md's NCCL rows. Run on the GPU machine, from the repository
# root:
#
#   bash scripts/nccl-tests.sh ARCHIVE.tar [all_reduce_perf arguments...]
#
# ARCHIVE.tar is `git archive --prefix=nccl-tests/` of github.com/NVIDIA/nccl-tests (the figures
# name the commit). Built for the GPU's own architecture only (sm_90 on Hopper), without MPI: one
# process drives every GPU (-g N) or one thread each (-t N -g 1). NCCL_TESTS_STEP=build only
# builds, =run only runs what an earlier build left in NCCL_TESTS_DIR (default: both), so that a
# caller can build while the GPUs do other work and time all_reduce_perf on a quiet machine.
set -euo pipefail
archive=${1:?usage: scripts/nccl-tests.sh ARCHIVE.tar [all_reduce_perf arguments]}
shift
work=${NCCL_TESTS_DIR:-/tmp/nccl-tests-build}
step=${NCCL_TESTS_STEP:-all}
nv=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')
nccl=$nv/nccl
[[ -f $nccl/include/nccl.h && -f $nccl/lib/libnccl.so.2 ]] ||
    { echo "scripts/nccl-tests.sh: no NCCL wheel under $nv" >&2; exit 2; }
if [[ $step != run ]]; then
    rm -rf "$work" && mkdir -p "$work/home/lib"
    tar -xf "$archive" -C "$work"
    ln -s "$nccl/include" "$work/home/include"
    ln -s "$nccl/lib/libnccl.so.2" "$work/home/lib/libnccl.so"
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d '. ')
    make -s -C "$work/nccl-tests/src" -j"$(nproc)" MPI=0 NCCL_HOME="$work/home" \
        CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" BUILDDIR="$work/build" \
        NVCC_GENCODE="-gencode=arch=compute_$cap,code=sm_$cap" "$work/build/all_reduce_perf" >&2
fi
[[ $step == build ]] && exit 0
echo "nccl-tests: NCCL from $nccl; all_reduce_perf $*" >&2
LD_LIBRARY_PATH=$nccl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/build/all_reduce_perf" "$@"
