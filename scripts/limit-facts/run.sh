#!/usr/bin/env bash
# On the GPU machine: builds limit_facts.cu (nvcc, the device's architecture) and runs it in
# each configuration: context flags 0 and CU_CTX_LMEM_RESIZE_TO_MAX (0x10), the stack limit
# not set, set after the lookup, or set before the module loads; lazy and eager module loading.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
out=${OUT:-/tmp}
nvcc -O2 -cubin -arch=sm_$cap -o "$out/limit_facts.cubin" limit_facts.cu
nvcc -O2 -o "$out/limit_facts" limit_facts.cu -lcuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for loading in LAZY EAGER; do
    for flags in 0 0x10; do
        for cfg in "0 0" "9216 0" "9216 1"; do
            set -- $cfg
            CUDA_MODULE_LOADING=$loading "$out/limit_facts" "$out/limit_facts.cubin" "$flags" "$1" "$2"
        done
    done
done
