#!/usr/bin/env bash
# Measures what the driver does to a process's work after a sticky fault (fault_facts.c beside
# this file; the facts are in docs/reliability.md, "What a sticky fault does"). On the GPU
# machine, from the repository root:
#
#   bash scripts/fault-facts/run.sh [RUNS]     # each scenario RUNS times (default 3)
#
# Needs nvcc (PATH or /usr/local/cuda/bin) and the driver. Each run is its own process: a sticky
# fault poisons the process that sees it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
runs=${1:-3}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
out=${OUT:-/tmp}/fault-facts
mkdir -p "$out"
"$nvcc" -O2 -o "$out/fault_facts" scripts/fault-facts/fault_facts.c -lcuda -lpthread
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
for scenario in other-context same-context; do
    for ((i = 1; i <= runs; i++)); do
        echo "== $scenario, run $i"
        "$out/fault_facts" "$scenario" tests/fixtures/spin.ptx tests/fixtures/kernels.ptx || echo "exit $?"
    done
done
