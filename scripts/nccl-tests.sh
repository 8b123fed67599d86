#!/usr/bin/env bash
# Builds NVIDIA's nccl-tests (the six binaries of NCCL_TESTS_BINS, all_reduce_perf alone by
# default) from a source archive with nvcc, against the NCCL
# of the `nvidia-nccl-cu13` (or -cu12) Python wheel installed on a GPU machine, and runs it: the
# reference column of BENCHMARKS.md's NCCL rows. Run on the GPU machine, from the repository
# root:
#
#   bash scripts/nccl-tests.sh ARCHIVE.tar [arguments of the binary...]
#
# ARCHIVE.tar is `git archive --prefix=nccl-tests/` of github.com/NVIDIA/nccl-tests (the figures
# name the commit). Built for the GPU's own architecture only (sm_90 on Hopper), without MPI: one
# process drives every GPU (-g N) or one thread each (-t N -g 1). NCCL_TESTS_STEP=build only
# builds, =run only runs what an earlier build left in NCCL_TESTS_DIR (default: both), so that a
# caller can build while the GPUs do other work and time all_reduce_perf on a quiet machine.
# NCCL_TESTS_BINS (build): the binaries to build, e.g. "all_reduce_perf all_gather_perf
# reduce_scatter_perf broadcast_perf reduce_perf sendrecv_perf"; NCCL_TESTS_BIN (run): the one
# to run (all_reduce_perf).
set -euo pipefail
archive=${1:?usage: scripts/nccl-tests.sh ARCHIVE.tar [arguments of the binary]}
shift
bin=${NCCL_TESTS_BIN:-all_reduce_perf}
read -r -a bins <<<"${NCCL_TESTS_BINS:-all_reduce_perf}"
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
        NVCC_GENCODE="-gencode=arch=compute_$cap,code=sm_$cap" "${bins[@]/#/$work/build/}" >&2
fi
[[ $step == build ]] && exit 0
echo "nccl-tests: NCCL from $nccl; $bin $*" >&2
LD_LIBRARY_PATH=$nccl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/build/$bin" "$@"
