#!/usr/bin/env bash
# Measures what one NCCL all-reduce costs the host with a blocking and a non-blocking
# communicator (nccl_facts.cu beside this file; the facts are in BENCHMARKS.md, "One process per
# GPU"). On the GPU machine, from the repository root, with NCCL's Python wheel installed:
#
#   bash scripts/nccl-facts/run.sh
#
# Needs nvcc (PATH or /usr/local/cuda/bin). Every visible GPU is one rank (one thread each).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
nv=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')
out=${OUT:-/tmp}/nccl-facts
mkdir -p "$out"
"$nvcc" -O2 -o "$out/nccl_facts" scripts/nccl-facts/nccl_facts.cu -I"$nv/nccl/include" \
    -L"$nv/nccl/lib" -l:libnccl.so.2 -Xlinker -rpath="$nv/nccl/lib" -lpthread
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
export NCCL_NVLS_ENABLE=0
"$out/nccl_facts"
