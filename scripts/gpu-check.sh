#!/usr/bin/env bash
# On the GPU machine, after `bash scripts/gpu-bundle.sh --example 01_vector_add` here and with .gpu/
# carried along: the whole GPU suite, then compute-sanitizer (memcheck + leak check) on every
# test binary that touches the GPU and on the example.
#
# Skipped under the sanitizer: tests/gpu_faults.rs (its kernels fault on purpose) and the
# binaries that make no CUDA call (lib, errors, symbols). API errors are not reported as
# sanitizer errors: the bad-input tests provoke them on purpose (invalid launches, invalid PTX,
# out of memory); their tests check them. LOAD sets the iterations of the load test under the
# sanitizer (default 40). Child processes are not sanitized (--target-processes
# application-only): the only tests that start them do so to fault on purpose (gpu_faults) or to
# leak a pending submission on purpose (gpu_submission's R11 test, whose leak is the point).
set -u
cd "$(dirname "$0")/.."
out=${OUT:-.gpu/out}; mkdir -p "$out"
bash .gpu/run.sh > /dev/null 2>&1; rc=$?
grep -E '^=== |^test result:|^--- |panicked|FAILED' "$out/gpu.log"
echo "normal run exit: $rc"
san="$out/sanitizer.log"; : > "$san"
# The cubins run.sh built with nvcc, for the profile's tests and example (CUSTACK_FRAME_CUBIN, …).
[ -f .gpu/env.sh ] && source .gpu/env.sh
for b in .gpu/bin/test-* .gpu/bin/example-*; do
  case "$b" in *gpu_faults|*test-lib|*test-errors|*test-symbols) continue ;; esac
  args=(); [[ $b == *test-* ]] && args=(--include-ignored --test-threads=1)
  echo "=== sanitize $b" >> "$san"
  CUSTACK_LOAD_ITERS=${LOAD:-40} compute-sanitizer --leak-check full --report-api-errors no --target-processes application-only \
    --error-exitcode 86 "$b" "${args[@]}" >> "$san" 2>&1
  s=$?; [ $s = 0 ] || rc=1
  echo "--- $b: exit $s" >> "$san"
done
grep -E '^=== |ERROR SUMMARY|LEAK SUMMARY|^test result|^--- ' "$san"
exit $rc
