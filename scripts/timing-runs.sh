#!/usr/bin/env bash
# The timing benches run by hand on the GPU machine, with chosen counts and interference
# (docs/safety.md, "Fault to restarted frame" and "Run-phase latency under interference"):
# after `bash scripts/gpu-bundle.sh --bench fault_to_frame --bench run_phase_tail` here and with
# .gpu/ copied there, from the repository root:
#
#   bash scripts/timing-runs.sh fault_to_frame --runs 1000 --cell-max-s 240
#   bash scripts/timing-runs.sh fault_to_frame --runs 300 --interference cpu,gpu,pcie --cell-max-s 100
#   bash scripts/timing-runs.sh run_phase_tail --samples 1000000 --reps 1 --interference cpu
#
# Each bench's flags are in its header (benches/fault_to_frame.rs, benches/run_phase_tail.rs)
# and in what it prints without arguments. The cubins they need (CUSTACK_FRAME_CUBIN, and
# CUSTACK_PROCESS_CUBIN for fault_to_frame's faults): those an earlier `bash .gpu/run.sh` built
# (.gpu/env.sh), else these two built here with the machine's nvcc (seconds), so that the
# timings need not wait for the whole run.sh. The output goes to stdout and is appended, line by
# line as the bench prints it, to $OUT/timing-BENCH.log (.gpu/out/ where OUT is unset): a run cut
# short keeps every cell it finished (`grep '^{' …` gives its JSON lines). Exits with the
# bench's status.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { echo "scripts/timing-runs.sh: $*" >&2; exit 2; }
(($# >= 1)) || die "usage: bash scripts/timing-runs.sh fault_to_frame|run_phase_tail [FLAGS...]"
bench=$1
shift
case $bench in
    fault_to_frame | run_phase_tail) ;;
    *) die "no timing bench '$bench' (fault_to_frame, run_phase_tail)" ;;
esac
bin=.gpu/bin/bench-$bench
[[ -x $bin ]] || die "no $bin: pack it with bash scripts/gpu-bundle.sh --bench $bench"
# shellcheck disable=SC1091 # written by .gpu/run.sh
if [[ -f .gpu/env.sh ]]; then source .gpu/env.sh; fi
if [[ ! -f ${CUSTACK_FRAME_CUBIN:-} || ! -f ${CUSTACK_PROCESS_CUBIN:-} ]]; then
    nvcc=$(command -v nvcc || true)
    if [[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]]; then nvcc=/usr/local/cuda/bin/nvcc; fi
    [[ -n $nvcc ]] || die "no cubins (.gpu/env.sh from bash .gpu/run.sh) and no nvcc to build them"
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' ')
    [[ $cap =~ ^[0-9]+\.[0-9]+$ ]] || die "cannot read the device's compute capability (got '$cap')"
    mkdir -p .gpu
    echo "+ nvcc -cubin -arch=sm_${cap/./} (examples/kernels/frame.cu, tests/fixtures/restricted_process.cu)"
    "$nvcc" -cubin -arch="sm_${cap/./}" -o .gpu/frame.cubin examples/kernels/frame.cu
    "$nvcc" -cubin -arch="sm_${cap/./}" -o .gpu/restricted_process.cubin tests/fixtures/restricted_process.cu
    export CUSTACK_FRAME_CUBIN=$PWD/.gpu/frame.cubin CUSTACK_PROCESS_CUBIN=$PWD/.gpu/restricted_process.cubin
fi
out=${OUT:-.gpu/out}
mkdir -p "$out"
log=$out/timing-$bench.log
echo "+ $bin $* ($(date -u +%Y-%m-%dT%H:%M:%SZ))" | tee -a "$log"
"$bin" "$@" 2>&1 | tee -a "$log"
