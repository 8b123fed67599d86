#!/usr/bin/env bash
# Line coverage of custack's src/ and ffi/ under everything that runs without a GPU, and the list of `unsafe` blocks none of it executes.
#
#   bash scripts/coverage.sh                  # unit and integration tests, every checking program
#   COVERAGE_SCHEDULES=none bash scripts/coverage.sh    # checking programs clean only (faster)
#   COVERAGE_BRANCH=1 bash scripts/coverage.sh          # branch coverage too (nightly rustc's
#                                                       # -Zcoverage-options=branch; the nightly
#                                                       # scripts/miri.sh installs)
#
# What runs, built with `-C instrument-coverage` in target/coverage (the usual build is
# untouched):
#  1. `cargo test --lib --tests` against the real driver library (no GPU: tests that need one
#     are ignored, and the GPU-less paths, cuInit's error included, run);
#  2. every program of benches/checking under the checking driver (checkdriver), clean and,
#     unless COVERAGE_SCHEDULES=none, with each driver call failed and made sticky in turn, as
#     scripts/check-driver.sh runs them: the error and drop paths; then, as scripts/test.sh
#     does, a few programs with each failed call returning a non-sticky error.
# Then `llvm-cov report` over src/ and ffi/, the line (and, with COVERAGE_BRANCH=1, branch)
# coverage of each module that carries the safety claims (target/coverage/modules.txt: src/safety/,
# src/deadline/, src/error/poison.rs, src/error/confinement.rs, the rest of src/error/, the whole
# of src/), and every line that opens an `unsafe` block whose
# region never ran is listed as FILE:LINE with its function. Needs rustup's llvm-tools
# component (installed here when missing: `rustup component add llvm-tools-preview`). Writes
# target/coverage/lcov.info, unexecuted-unsafe.txt and unexecuted-unsafe.md (the rows of the
# table in docs/reliability.md, which it compares with that table: see the end). Exits 0
# whatever the figure (it measures, it does not judge), unless COVERAGE_CHECK_DOC=1 and the
# table does not name exactly the unexecuted blocks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")/coverage
profiles=$target/profiles
mkdir -p "$target"
rm -rf "$profiles"
mkdir -p "$profiles"

toolchain=()
export RUSTFLAGS="-C instrument-coverage"
if [[ ${COVERAGE_BRANCH:-0} == 1 ]]; then
    toolchain=(+nightly)
    RUSTFLAGS+=" -Zcoverage-options=branch"
fi
sysroot=$(rustc "${toolchain[@]}" --print sysroot)
tools=$sysroot/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin
if [[ ! -x $tools/llvm-cov ]]; then
    rustup component add "${toolchain[@]/#+/--toolchain=}" llvm-tools-preview >/dev/null
fi
[[ -x $tools/llvm-cov ]] || { echo "coverage: no llvm-cov in $tools (rustup component add llvm-tools-preview)" >&2; exit 1; }

# %8m: one pool of 8 files per binary, merged online, whatever the number of runs.
export LLVM_PROFILE_FILE=$profiles/%8m.profraw

echo "coverage: 1. unit and integration tests (no GPU)" >&2
objects=()
while read -r exe; do objects+=("$exe"); done < <(
    CARGO_TARGET_DIR=$target/tests cargo "${toolchain[@]}" test --quiet --lib --tests --no-run \
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
CUDA_DRIVER_LIB_DIR=$lib_dir cargo "${toolchain[@]}" build --quiet --manifest-path benches/checking/Cargo.toml \
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
# As scripts/test.sh does: every failed call returns CUDA_ERROR_INVALID_VALUE, which is not
# sticky (a synchronize that fails so, and the polling after it).
if [[ ${COVERAGE_SCHEDULES:-all} != none ]]; then
    for p in example p1 p3 scoped_alloc reuse_after_scope; do
        n=$(LD_LIBRARY_PATH=$lib_dir NULLDRIVER_CHECK=1 NULLDRIVER_REPORT=$report "$bin" "$p" >/dev/null 2>&1
            awk '$1 == "calls" { print $2 }' "$report" 2>/dev/null || echo 0)
        for ((k = 1; k <= n; k++)); do
            env LD_LIBRARY_PATH="$lib_dir" NULLDRIVER_CHECK=1 NULLDRIVER_REPORT="$report" \
                NULLDRIVER_FAIL_CODE=1 NULLDRIVER_FAIL_AT=$k "$bin" "$p" >/dev/null 2>&1 || true
            runs=$((runs + 1))
        done
    done
fi
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
# Per module, from the lcov export: lines hit of lines found, and branches (BRDA records, with
# COVERAGE_BRANCH=1) taken of branches found.
python3 - "$target/lcov.info" "$root" >"$target/modules.txt" <<'PY'
import os, sys
lcov, root = sys.argv[1], sys.argv[2]
files, cur = {}, None
for line in open(lcov):
    if line.startswith("SF:"):
        cur = os.path.relpath(line[3:].strip(), root)
        files.setdefault(cur, [set(), set(), set(), set()])
    elif cur and line.startswith("DA:"):
        n, c = line[3:].split(",")[:2]
        files[cur][0].add(int(n))
        if int(c) > 0:
            files[cur][1].add(int(n))
    elif cur and line.startswith("BRDA:"):
        ln, block, br, taken = line[5:].strip().split(",")
        key = (ln, block, br)
        files[cur][2].add(key)
        if taken not in ("-", "0"):
            files[cur][3].add(key)
modules = [
    ("src/safety/", lambda p: p.startswith("src/safety/")),
    ("src/deadline/", lambda p: p.startswith("src/deadline/")),
    ("src/error/poison.rs", lambda p: p == "src/error/poison.rs"),
    ("src/error/confinement.rs", lambda p: p == "src/error/confinement.rs"),
    ("src/error/ (the rest)", lambda p: p.startswith("src/error/") and p not in ("src/error/poison.rs", "src/error/confinement.rs")),
    ("src/ (all)", lambda p: p.startswith("src/")),
]
def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"
print(f"{'module':28} {'lines':>16} {'':>7} {'branches':>14} {'':>7}")
for name, take in modules:
    lf = lh = bf = bh = 0
    for p, (found, hit, bfound, bhit) in files.items():
        if take(p):
            lf += len(found); lh += len(hit); bf += len(bfound); bh += len(bhit)
    print(f"{name:28} {lh:>7} of {lf:<6} {pct(lh, lf):>7} {bh:>5} of {bf:<6} {pct(bh, bf):>7}")
PY
cat "$target/modules.txt"

# Unsafe blocks: a line opening `unsafe {` (code, not comments) whose line count is 0, or, when
# the line itself carries no count, whose next counted line is 0. Each is listed as FILE:LINE
# with the function it is in (`Type::method`, or `function`), and grouped by function into
# target/coverage/unexecuted-unsafe.md: rows for the table of docs/reliability.md ("Unsafe code
# no test without a GPU executes"), whose first two columns name the same functions. The rows
# found here and the rows of that table are compared; COVERAGE_CHECK_DOC=1 makes a difference
# an error (exit 1).
check_doc=0
python3 - "$target/lcov.info" "$root" "$target/unexecuted-unsafe.md" >"$target/unexecuted-unsafe.txt" <<'EOF' || check_doc=$?
import re, sys, os
lcov, root, table = sys.argv[1], sys.argv[2], sys.argv[3]
counts, cur = {}, None
for line in open(lcov):
    if line.startswith("SF:"):
        cur = os.path.relpath(line[3:].strip(), root)
        counts.setdefault(cur, {})
    elif line.startswith("DA:") and cur:
        n, c = line[3:].split(",")[:2]
        counts[cur][int(n)] = counts[cur].get(int(n), 0) + int(c)

FN = re.compile(r'^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:unsafe\s+)?(?:extern\s+"C"\s+)?fn\s+(\w+)')
IMPL = re.compile(r'^impl\b(?:<[^{]*?>)?\s+(?:[\w:]+(?:<.*?>)?\s+for\s+)?(?:\w+::)*(\w+)')

def function_of(lines, i):
    """The function around line i (1-based): `Type::name` inside an impl block, else `name`."""
    depth = len(lines[i - 1]) - len(lines[i - 1].lstrip())
    name = None
    for j in range(i - 2, -1, -1):
        m = FN.match(lines[j])
        if name is None and m and len(m.group(1)) < depth:
            name = m.group(2)
            if not m.group(1):
                return name
            continue
        if name is not None and lines[j].startswith("impl"):
            m = IMPL.match(lines[j])
            return f"{m.group(1)}::{name}" if m else name
        if name is not None and re.match(r'^(pub(\(crate\))?\s+)?(mod|trait)\b', lines[j]):
            return name
    return name or "?"

total = missed = 0
rows = {}
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
            f = function_of(lines, i)
            print(f"{path}:{i}: {f}: {text.strip()[:100]}")
            rows[(path, f)] = rows.get((path, f), 0) + 1
with open(table, "w") as out:
    for (path, f), n in sorted(rows.items()):
        out.write(f"| `{path}` | `{f}` | {n} | | |\n")
print(f"coverage: {missed} of {total} unsafe blocks in src/ and ffi/ never executed, in {len(rows)} functions", file=sys.stderr)

# The table of docs/reliability.md: the first two columns of its rows.
doc = open(os.path.join(root, "docs/reliability.md")).read()
section = doc.split("## Unsafe code no test without a GPU executes", 1)
documented = {}
if len(section) == 2:
    for line in section[1].split("\n## ", 1)[0].splitlines():
        m = re.match(r"\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|", line)
        if m:
            documented[(m.group(1), m.group(2))] = int(m.group(3))
differ = False
for key in sorted(set(rows) | set(documented)):
    if rows.get(key) != documented.get(key):
        differ = True
        print(f"coverage: {key[0]} {key[1]}: {rows.get(key, 0)} unexecuted block(s), docs/reliability.md says {documented.get(key, 0)}", file=sys.stderr)
if not differ:
    print("coverage: docs/reliability.md names every unexecuted block", file=sys.stderr)
sys.exit(1 if differ and os.environ.get("COVERAGE_CHECK_DOC") == "1" else 0)
EOF
echo "coverage: unexecuted unsafe blocks listed in $target/unexecuted-unsafe.txt, as table rows in $target/unexecuted-unsafe.md" >&2
exit "$check_doc"
