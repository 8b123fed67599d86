#!/usr/bin/env bash
# Line coverage of custack's src/ and ffi/ under everything that runs without a GPU (issue 20,
# item 3), and the list of `unsafe` blocks none of it executes.
#
#   bash scripts/coverage.sh                  # unit and integration tests, every checking program
#   COVERAGE_SCHEDULES=none bash scripts/coverage.sh    # checking programs clean only (faster)
#
# What runs, built with `-C instrument-coverage` in target/coverage (the usual build is
# untouched):
#  1. `cargo test --lib --tests` against the real driver library (no GPU: tests that need one
#     are ignored, and the GPU-less paths, cuInit's error included, run);
#  2. every program of benches/checking under the checking driver (checkdriver), clean and,
#     unless COVERAGE_SCHEDULES=none, with each driver call failed and made sticky in turn, as
#     scripts/check-driver.sh runs them: the error and drop paths.
# Then `llvm-cov report` over src/ and ffi/, and every line that opens an `unsafe` block whose
# region never ran is listed as FILE:LINE. Needs rustup's llvm-tools component (installed
# here when missing: `rustup component add llvm-tools-preview`). Writes target/coverage/lcov.info
# and target/coverage/unexecuted-unsafe.txt; exits 0 whatever the figure (it measures, it does
# not judge).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")/coverage
profiles=$target/profiles
mkdir -p "$target"
rm -rf "$profiles"
mkdir -p "$profiles"

sysroot=$(rustc --print sysroot)
tools=$sysroot/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin
if [[ ! -x $tools/llvm-cov ]]; then
    rustup component add llvm-tools-preview >/dev/null
fi
[[ -x $tools/llvm-cov ]] || { echo "coverage: no llvm-cov in $tools (rustup component add llvm-tools-preview)" >&2; exit 1; }

export RUSTFLAGS="-C instrument-coverage"
# %8m: one pool of 8 files per binary, merged online, whatever the number of runs.
export LLVM_PROFILE_FILE=$profiles/%8m.profraw

echo "coverage: 1. unit and integration tests (no GPU)" >&2
objects=()
while read -r exe; do objects+=("$exe"); done < <(
    CARGO_TARGET_DIR=$target/tests cargo test --quiet --lib --tests --no-run \
        --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p')
for exe in "${objects[@]}"; do
    # Each test binary runs from the package root, as cargo test runs it.
    "$exe" --quiet >/dev/null 2>&1 || echo "coverage: $(basename "$exe") failed (counted anyway)" >&2
done

echo "coverage: 2. the checking programs under the checking driver" >&2
nd=$target/checkdriver
lib_dir=$nd/check-lib
# The double itself is not measured: only custack's code.
RUSTFLAGS="" cargo build --quiet --release --manifest-path checkdriver/Cargo.toml --target-dir "$nd"
mkdir -p "$lib_dir"
cp -f "$nd/release/libcuda.so" "$lib_dir/libcuda.so"
ln -sf libcuda.so "$lib_dir/libcuda.so.1"
CUDA_DRIVER_LIB_DIR=$lib_dir cargo build --quiet --manifest-path benches/checking/Cargo.toml \
    --target-dir "$target/checking"
bin=$target/checking/debug/custack-checking
objects+=("$bin")
programs=$(sed -n '/^programs=(\${CHECK_PROGRAMS:-/,/})/p' scripts/check-driver.sh |
    sed 's/.*CHECK_PROGRAMS:-//; s/})//' | tr '\n' ' ')
report=$target/report
runs=0
for p in $programs; do
    LD_LIBRARY_PATH=$lib_dir NULLDRIVER_CHECK=1 NULLDRIVER_REPORT=$report "$bin" "$p" >/dev/null 2>&1 || true
    runs=$((runs + 1))
    [[ ${COVERAGE_SCHEDULES:-all} != none ]] || continue
    n=$(awk '$1 == "calls" { print $2 }' "$report" 2>/dev/null || echo 0)
    for ((k = 1; k <= n; k++)); do
        for var in NULLDRIVER_FAIL_AT NULLDRIVER_STICKY_AT; do
            env LD_LIBRARY_PATH="$lib_dir" NULLDRIVER_CHECK=1 NULLDRIVER_REPORT="$report" \
                "$var=$k" "$bin" "$p" >/dev/null 2>&1 || true
            runs=$((runs + 1))
        done
    done
done
echo "coverage: $runs checking runs" >&2

"$tools/llvm-profdata" merge -sparse "$profiles"/*.profraw -o "$target/custack.profdata"
object_args=()
for o in "${objects[@]:1}"; do object_args+=(-object "$o"); done
cov=("$tools/llvm-cov")
filter=(-instr-profile="$target/custack.profdata" "${objects[0]}" "${object_args[@]}"
    -ignore-filename-regex='(/\.cargo/|/rustc/|/tests/|/benches/|/checkdriver/|/ui-tests/|/examples/)')
"${cov[@]}" export -format=lcov "${filter[@]}" >"$target/lcov.info"
echo "coverage: line coverage of src/ and ffi/" >&2
"${cov[@]}" report -summary-only "${filter[@]}" >"$target/summary.txt"
sed -n '1p;$p' "$target/summary.txt"

# Unsafe blocks: a line opening `unsafe {` (code, not comments) whose line count is 0, or, when
# the line itself carries no count, whose next counted line is 0.
python3 - "$target/lcov.info" "$root" >"$target/unexecuted-unsafe.txt" <<'EOF'
import re, sys, os
lcov, root = sys.argv[1], sys.argv[2]
counts, cur = {}, None
for line in open(lcov):
    if line.startswith("SF:"):
        cur = os.path.relpath(line[3:].strip(), root)
        counts.setdefault(cur, {})
    elif line.startswith("DA:") and cur:
        n, c = line[3:].split(",")[:2]
        counts[cur][int(n)] = counts[cur].get(int(n), 0) + int(c)
total = missed = 0
for path in sorted(counts):
    if not (path.startswith("src/") or path.startswith("ffi/")):
        continue
    lines = open(os.path.join(root, path)).read().split("\n")
    da = counts[path]
    in_tests = False
    for i, text in enumerate(lines, 1):
        code = text.split("//")[0]
        if re.match(r"\s*mod tests\b|\s*#\[cfg\(test\)\]", text):
            in_tests = True  # the unit tests' own unsafe blocks are not the library's
        if in_tests or not re.search(r"\bunsafe\s*\{", code):
            continue
        total += 1
        c = next((da[j] for j in range(i, min(i + 8, len(lines) + 1)) if j in da), None)
        if c == 0:
            missed += 1
            print(f"{path}:{i}: {text.strip()[:100]}")
print(f"# {missed} of {total} unsafe blocks in src/ and ffi/ never executed", file=sys.stderr)
EOF
echo "coverage: unexecuted unsafe blocks: $(wc -l <"$target/unexecuted-unsafe.txt") (listed in $target/unexecuted-unsafe.txt)" >&2
