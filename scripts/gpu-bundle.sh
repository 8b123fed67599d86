#!/usr/bin/env bash
# Builds custack's test binaries (and the benches and examples named) on this machine and packs
# them into .gpu/ with a runner, for a GPU machine that has the NVIDIA driver but no Rust
# toolchain:
#
#   bash scripts/gpu-bundle.sh [--features F] [--test NAME]... [--bench NAME]... [--example NAME]...
#
# --features F builds everything with custack's features F (`nvrtc`: set CUSTACK_NVRTC_LIB_DIR
# to an NVRTC the GPU machine also has, of a CUDA version its driver supports). --test NAME packs
# only the test targets named (and the unit tests) instead of every one.
#   # on the GPU machine, from the repository root, with .gpu/ copied there:
#   bash .gpu/run.sh                 # every test binary with --include-ignored, then the benches
#                                    # (--bench) and examples; one log, $OUT/gpu.log (.gpu/out/)
#   SANITIZE=1 bash .gpu/run.sh      # each test binary under compute-sanitizer's leak check
#   bash scripts/gpu-check.sh        # the run, then compute-sanitizer over every binary
#
# Linking needs a libcuda here (build.rs finds one, or set CUDA_DRIVER_LIB_DIR, as
# scripts/test.sh does with the library it fetches). The trybuild test (tests/ui.rs) is left
# out: it needs cargo. Tests embed their fixtures (include_str!), so the binaries run anywhere.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { echo "scripts/gpu-bundle.sh: $*" >&2; exit 2; }
benches=() examples=() features=() tests=(--tests)
while (($#)); do
    case $1 in
        --features) (($# > 1)) || die "--features needs a list"; features=(--features "$2"); shift 2 ;;
        --test) (($# > 1)) || die "--test needs a name"
            [[ ${tests[0]} == --tests ]] && tests=(--lib)
            tests+=(--test "$2"); shift 2 ;;
        --bench) (($# > 1)) || die "--bench needs a name"; benches+=("$2"); shift 2 ;;
        --example) (($# > 1)) || die "--example needs a name"; examples+=("$2"); shift 2 ;;
        *) die "unknown argument $1" ;;
    esac
done
rm -rf .gpu
mkdir -p .gpu/bin
# Prints "ROLE NAME PATH" for each executable cargo reports (JSON messages on stdin).
executables() {
    python3 -c '
import json, sys
role = sys.argv[1]
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        t = m["target"]
        name = "lib" if "lib" in t["kind"] else t["name"]
        print(role, name, m["executable"])' "$1"
}
{
    cargo test --release --no-run "${tests[@]}" "${features[@]}" --message-format=json-render-diagnostics | executables test
    for b in "${benches[@]}"; do
        cargo bench --no-run --bench "$b" "${features[@]}" --message-format=json-render-diagnostics | executables bench
    done
    for e in "${examples[@]}"; do
        cargo build --release --example "$e" "${features[@]}" --message-format=json-render-diagnostics | executables example
    done
} >.gpu/found
: >.gpu/list
while read -r role name path; do
    [[ $role == test && $name == ui ]] && continue
    cp "$path" ".gpu/bin/$role-$name"
    strip ".gpu/bin/$role-$name" 2>/dev/null || true
    echo "$role $role-$name" >>.gpu/list
done <.gpu/found
rm .gpu/found
cat >.gpu/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs the packed binaries from the repository root; the whole log goes to $OUT/gpu.log
# (.gpu/out/gpu.log where OUT is unset). Exits non-zero if any binary failed.
cd "$(dirname "$0")/.."
out=${OUT:-.gpu/out}
mkdir -p "$out"
log=$out/gpu.log
: >"$log"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$log"
fail=0
while read -r role bin; do
    case $role in
        test)
            if [[ ${SANITIZE:-0} == 1 ]]; then
                cmd=(compute-sanitizer --leak-check full --error-exitcode 86 ".gpu/bin/$bin" --include-ignored --test-threads=1)
            else
                cmd=(".gpu/bin/$bin" --include-ignored)
            fi ;;
        bench) cmd=(".gpu/bin/$bin" --bench) ;;
        *) cmd=(".gpu/bin/$bin") ;;
    esac
    echo "=== $bin" | tee -a "$log"
    rc=0
    "${cmd[@]}" >.gpu/one.log 2>&1 || rc=$?
    cat .gpu/one.log >>"$log"
    if [[ $role == test ]]; then
        grep -E '^test result:|panicked|FAILED|SKIPPED|ERROR SUMMARY|LEAK SUMMARY' .gpu/one.log | tail -n 20
    else
        tail -n 40 .gpu/one.log
    fi
    if ((rc == 0)); then status=ok; else status="FAILED (exit $rc)"; fail=1; fi
    echo "--- $bin: $status" | tee -a "$log"
done <.gpu/list
exit $fail
RUN
chmod +x .gpu/run.sh
echo "scripts/gpu-bundle.sh: packed $(wc -l <.gpu/list) binaries into .gpu/ ($(du -sh .gpu | cut -f1)); on the GPU machine: bash .gpu/run.sh"
