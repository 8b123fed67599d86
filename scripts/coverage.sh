#!/usr/bin/env bash
# Line and branch coverage of custack's src/ and ffi/ under everything that runs without a GPU,
# per module for the modules that carry the safety claims, with what none of it executes listed
# by function and compared with the documents.
#
#   bash scripts/coverage.sh                  # unit and integration tests, every checking program
#   COVERAGE_SCHEDULES=none bash scripts/coverage.sh    # checking programs clean only (faster)
#   COVERAGE_BRANCH=1 bash scripts/coverage.sh          # branch coverage too (nightly rustc's
#                                                       # -Zcoverage-options=branch; the nightly
#                                                       # scripts/miri.sh installs)
#   COVERAGE_CHECK_DOC=1 bash scripts/coverage.sh       # exit 1 where the documents' lists differ
#
# What runs, built with `-C instrument-coverage` in target/coverage (the usual build is
# untouched), in LLVM's continuous mode (see LLVM_PROFILE_FILE below: what runs before an
# `_exit`, the safe state's included, is counted):
#  1. `cargo test --lib --tests` against the real driver library (no GPU: tests that need one
#     are ignored, and the GPU-less paths, cuInit's error included, run);
#  2. every program of benches/checking under the checking driver (checkdriver), clean and,
#     unless COVERAGE_SCHEDULES=none, with each driver call failed and made sticky in turn, as
#     scripts/check-driver.sh runs them: the error and drop paths; then redundant_inject, as
#     that script's injection pass runs it (fewer frames), and with its calls failed in turn;
#     then, as scripts/test.sh does, a few programs with each failed call returning a
#     non-sticky error; then, as the hang pass of scripts/check-driver.sh does, each enqueue of
#     its strict programs (every wait bounded) never completing, in turn.
# Then `llvm-cov report` over src/ and ffi/, and:
#  - target/coverage/modules.txt: the line (and, with COVERAGE_BRANCH=1, branch) coverage of the
#    library code (a file's `#[cfg(test)]` unit tests left out) of each module that carries the
#    safety claims: src/safety/, src/deadline/, src/error/poison.rs, src/error/confinement.rs,
#    the rest of src/error/, and the whole of src/;
#  - target/coverage/uncovered-safety.txt: every line and branch of src/safety/, src/deadline/
#    and src/error/ that never ran, as FILE:LINE with its function; uncovered-safety.md: the same
#    grouped by function, the rows of the table of docs/safety.md ("Code of the claims' modules
#    no run without a GPU reaches"), which it compares with that table;
#  - target/coverage/unexecuted-unsafe.txt: every line that opens an `unsafe` block whose
#    region never ran, as FILE:LINE with its function; unexecuted-unsafe.md: the rows of the
#    table in docs/reliability.md, which it compares with that table.
# Needs rustup's llvm-tools component (installed here when missing: `rustup component add
# llvm-tools-preview`). Exits 0 whatever the figures (it measures, it does not judge), unless
# COVERAGE_CHECK_DOC=1 and a table does not name exactly what it found.
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

# %8m: one pool of 8 files per binary, merged online, whatever the number of runs. %c, LLVM's
# continuous mode (on Linux with runtime counter relocation): the counters are mapped onto the
# file and written as they change, so what runs before an `_exit` is counted too: the safe state
# (`fail_stop`), a scope's `Overrun::Exit`, the unit tests' forked children. Without it those
# would read as never executed. COVERAGE_CONTINUOUS=0 turns it off (counters written at exit).
if [[ ${COVERAGE_CONTINUOUS:-1} == 1 ]]; then
    RUSTFLAGS+=" -C llvm-args=-runtime-counter-relocation"
    export LLVM_PROFILE_FILE=$profiles/%c%8m.profraw
else
    export LLVM_PROFILE_FILE=$profiles/%8m.profraw
fi

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
# The libraries' stand-ins, for `solver_handles`, `sparse_handles`, `blas_handles`,
# `blaslt_handles`, `dnn_handles`, `dnn_matmul` and `nccl_parked` (as scripts/check-driver.sh).
for stand_in in cusolver cusparse cublas cublasLt; do
    cp -f "$nd/release/lib$stand_in.so" "$lib_dir/lib$stand_in.so"
    ln -sf "lib$stand_in.so" "$lib_dir/lib$stand_in.so.12"
done
cp -f "$nd/release/libcudnn.so" "$lib_dir/libcudnn.so"
ln -sf libcudnn.so "$lib_dir/libcudnn.so.9"
cp -f "$nd/release/libnccl.so" "$lib_dir/libnccl.so"
ln -sf libnccl.so "$lib_dir/libnccl.so.2"
CUDA_DRIVER_LIB_DIR=$lib_dir CUSTACK_CUSOLVER_LIB_DIR=$lib_dir CUSTACK_CUSPARSE_LIB_DIR=$lib_dir \
    CUSTACK_CUDNN_LIB_DIR=$lib_dir CUSTACK_CUBLAS_LIB_DIR=$lib_dir CUSTACK_CUBLASLT_LIB_DIR=$lib_dir \
    CUSTACK_NCCL_LIB_DIR=$lib_dir \
    cargo "${toolchain[@]}" build --quiet --manifest-path benches/checking/Cargo.toml \
    --target-dir "$target/checking" --features cusolver,cusparse,cudnn,cublas,cublaslt,nccl
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
# As the injection pass of scripts/check-driver.sh does, with fewer frames: redundant_inject
# (not in that script's list of programs) clean and with the double corrupting replica 1 of
# every odd frame (COVERAGE_INJECT_FRAMES frames, default 16: the injections' kinds, flipped
# bits and a dropped launch, drawn from the seed), compared on the host and on the device; then,
# unless COVERAGE_SCHEDULES=none, 2 clean frames with each driver call failed and made sticky
# in turn.
inject=(env LD_LIBRARY_PATH="$lib_dir" NULLDRIVER_CHECK=1 NULLDRIVER_REPORT="$report")
for seed in 0 "${CHECK_INJECT_SEED:-20261126}"; do
    "${inject[@]}" NULLDRIVER_INJECT="$seed" CHECK_INJECT_FRAMES="${COVERAGE_INJECT_FRAMES:-16}" \
        "$bin" redundant_inject >/dev/null 2>&1 || true
    runs=$((runs + 1))
done
if [[ ${COVERAGE_SCHEDULES:-all} != none ]]; then
    "${inject[@]}" CHECK_INJECT_FRAMES=2 "$bin" redundant_inject >/dev/null 2>&1 || true
    n=$(awk '$1 == "calls" { print $2 }' "$report" 2>/dev/null || echo 0)
    for ((k = 1; k <= n; k++)); do
        for var in NULLDRIVER_FAIL_AT NULLDRIVER_STICKY_AT; do
            "${inject[@]}" CHECK_INJECT_FRAMES=2 "$var=$k" "$bin" redundant_inject >/dev/null 2>&1 || true
            runs=$((runs + 1))
        done
    done
fi
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
# As scripts/check-driver.sh's hang pass does for the programs every wait of which has a
# deadline (CHECK_HANG_STRICT there): each of their enqueues never completes, in turn (the
# bounded waits' overruns, a scope's `Overrun::Exit`).
if [[ ${COVERAGE_SCHEDULES:-all} != none ]]; then
    strict=$(sed -n 's/^hang_strict=" \${CHECK_HANG_STRICT-\(.*\)} "$/\1/p' scripts/check-driver.sh)
    for p in $strict; do
        LD_LIBRARY_PATH=$lib_dir NULLDRIVER_CHECK=1 NULLDRIVER_REPORT=$report "$bin" "$p" >/dev/null 2>&1 || true
        for k in $(awk '$1 == "enqueues" { $1 = ""; print }' "$report" 2>/dev/null); do
            env LD_LIBRARY_PATH="$lib_dir" NULLDRIVER_CHECK=1 NULLDRIVER_REPORT="$report" \
                NULLDRIVER_HANG_AT="$k" NULLDRIVER_HANG_IDLE_SECS=2 \
                timeout -k 5 60 "$bin" "$p" >/dev/null 2>&1 || true
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
# COVERAGE_BRANCH=1) taken of branches found, of the library's code: a file's unit tests (from a
# `#[cfg(test)]` item at column 0 to its closing brace) are left out, as tests/ is.
# Then every line and branch of the modules that carry the safety claims (src/safety/,
# src/deadline/, src/error/) that nothing executed, as FILE:LINE with its function, in
# target/coverage/uncovered-safety.txt, and grouped by function into uncovered-safety.md: rows
# for the table of docs/safety.md ("Code of the claims' modules no run without a GPU reaches"),
# which it compares with them; COVERAGE_CHECK_DOC=1 makes a difference an error (exit 1).
check_doc=0
python3 - "$target/lcov.info" "$root" "$target/uncovered-safety.txt" "$target/uncovered-safety.md" \
    >"$target/modules.txt" <<'PY' || check_doc=$?
import os, re, sys
lcov, root, listing, table = sys.argv[1:5]
files, cur = {}, None
for line in open(lcov):
    if line.startswith("SF:"):
        cur = os.path.relpath(line[3:].strip(), root)
        files.setdefault(cur, [{}, {}])
    elif cur and line.startswith("DA:"):
        n, c = line[3:].split(",")[:2]
        files[cur][0][int(n)] = files[cur][0].get(int(n), 0) + int(c)
    elif cur and line.startswith("BRDA:"):
        ln, block, br, taken = line[5:].strip().split(",")
        key = (int(ln), block, br)
        hit = taken not in ("-", "0")
        files[cur][1][key] = files[cur][1].get(key, False) or hit

def source(path):
    try:
        return open(os.path.join(root, path)).read().split("\n")
    except OSError:
        return []

def test_lines(lines):
    """The lines of the file's unit tests: from a column-0 `#[cfg(test)]` (or `#[cfg(all(test,`)
    to the next line that is a column-0 `}`."""
    out, start = set(), None
    for i, text in enumerate(lines, 1):
        if start is None and re.match(r"#\[cfg\((all\()?test\b", text):
            start = i
        if start is not None:
            out.add(i)
            if text == "}":
                start = None
    return out

FN = re.compile(r'^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:unsafe\s+)?(?:extern\s+"C"\s+)?fn\s+(\w+)')
IMPL = re.compile(r'^impl\b(?:<[^{]*?>)?\s+(?:[\w:]+(?:<.*?>)?\s+for\s+)?(?:\w+::)*(\w+)')

def functions(lines):
    """(first, last, name) of every function with a body: from its `fn` line to the line that
    closes it at the `fn`'s indentation (rustfmt's layout), named `Type::name` in an impl."""
    spans = []
    for i, text in enumerate(lines, 1):
        m = FN.match(text)
        if not m:
            continue
        indent, name = m.group(1), m.group(2)
        head = text.split("//")[0]
        if head.rstrip().endswith("}") and head.count("{") == head.count("}") > 0:
            end = i  # a one-line function
        else:
            end = None
            for j in range(i, len(lines)):
                t = lines[j]
                if t.startswith(indent + "}") and not t.startswith(indent + "} else"):
                    end = j + 1
                    break
                if j + 1 == i and head.rstrip().endswith(";"):
                    break  # a declaration without a body
            if end is None:
                continue
        if indent:
            for j in range(i - 2, -1, -1):
                if lines[j].startswith("impl"):
                    mi = IMPL.match(lines[j])
                    if mi:
                        name = f"{mi.group(1)}::{name}"
                    break
                if re.match(r"^(pub(\(crate\))?\s+)?(mod|trait)\b", lines[j]):
                    break
        spans.append((i, end, name))
    return spans

def function_of(spans, n):
    inside = [s for s in spans if s[0] <= n <= s[1]]
    return max(inside)[2] if inside else "(outside any function)"

modules = [
    ("src/safety/", lambda p: p.startswith("src/safety/")),
    ("src/deadline/", lambda p: p.startswith("src/deadline/")),
    ("src/error/poison.rs", lambda p: p == "src/error/poison.rs"),
    ("src/error/confinement.rs", lambda p: p == "src/error/confinement.rs"),
    ("src/error/ (the rest)", lambda p: p.startswith("src/error/") and p not in ("src/error/poison.rs", "src/error/confinement.rs")),
    ("src/ (all)", lambda p: p.startswith("src/")),
]
claims = lambda p: p.startswith(("src/safety/", "src/deadline/", "src/error/"))
def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"

counted, rows, listed = {}, {}, []
for path, (da, br) in sorted(files.items()):
    if not path.startswith("src/"):
        continue
    lines = source(path)
    tests = test_lines(lines)
    da = {n: c for n, c in da.items() if n not in tests}
    br = {k: hit for k, hit in br.items() if k[0] not in tests}
    counted[path] = (len(da), sum(c > 0 for c in da.values()), len(br), sum(br.values()))
    if not claims(path):
        continue
    spans = functions(lines)
    for n in sorted(n for n, c in da.items() if c == 0):
        f = function_of(spans, n)
        listed.append(f"{path}:{n}: {f}: line: {lines[n - 1].strip()[:90] if n <= len(lines) else ''}")
        rows.setdefault((path, f), [0, 0])[0] += 1
    for (n, block, b), hit in sorted(br.items()):
        if not hit:
            f = function_of(spans, n)
            listed.append(f"{path}:{n}: {f}: branch {block}.{b}: {lines[n - 1].strip()[:80] if n <= len(lines) else ''}")
            rows.setdefault((path, f), [0, 0])[1] += 1

print(f"{'module (library code)':28} {'lines':>16} {'':>7} {'branches':>14} {'':>7}")
for name, take in modules:
    lf = lh = bf = bh = 0
    for p, (f_, h_, bf_, bh_) in counted.items():
        if take(p):
            lf += f_; lh += h_; bf += bf_; bh += bh_
    print(f"{name:28} {lh:>7} of {lf:<6} {pct(lh, lf):>7} {bh:>5} of {bf:<6} {pct(bh, bf):>7}")

with open(listing, "w") as out:
    out.write("\n".join(listed) + ("\n" if listed else ""))
with open(table, "w") as out:
    for (path, f), (nl, nb) in sorted(rows.items()):
        out.write(f"| `{path}` | `{f}` | {nl} | {nb} | |\n")
print(f"coverage: {sum(r[0] for r in rows.values())} lines and {sum(r[1] for r in rows.values())} "
      f"branches of src/safety/, src/deadline/, src/error/ never executed, in {len(rows)} functions",
      file=sys.stderr)

doc = open(os.path.join(root, "docs/safety.md")).read()
section = doc.split("## Code of the claims' modules no run without a GPU reaches", 1)
documented = {}
if len(section) == 2:
    for line in section[1].split("\n## ", 1)[0].splitlines():
        m = re.match(r"\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|", line)
        if m:
            documented[(m.group(1), m.group(2))] = [int(m.group(3)), int(m.group(4))]
differ = False
for key in sorted(set(rows) | set(documented)):
    if rows.get(key) != documented.get(key):
        differ = True
        got, said = rows.get(key, [0, 0]), documented.get(key, [0, 0])
        print(f"coverage: {key[0]} {key[1]}: {got[0]} lines, {got[1]} branches unexecuted; "
              f"docs/safety.md says {said[0]}, {said[1]}", file=sys.stderr)
if not differ:
    print("coverage: docs/safety.md names every function with unexecuted code", file=sys.stderr)
sys.exit(1 if differ and os.environ.get("COVERAGE_CHECK_DOC") == "1" else 0)
PY
cat "$target/modules.txt"

# Unsafe blocks: a line opening `unsafe {` (code, not comments) whose line count is 0, or, when
# the line itself carries no count, whose next counted line is 0. Each is listed as FILE:LINE
# with the function it is in (`Type::method`, or `function`), and grouped by function into
# target/coverage/unexecuted-unsafe.md: rows for the table of docs/reliability.md ("Unsafe code
# no test without a GPU executes"), whose first two columns name the same functions. The rows
# found here and the rows of that table are compared; COVERAGE_CHECK_DOC=1 makes a difference
# an error (exit 1).
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
