#!/usr/bin/env bash
# custack's own instructions per graph operation (benches/graph_count.rs), under callgrind, on
# the checking driver (checkdriver, NULLDRIVER_CHECK=1): the counts BENCHMARKS.md's "Graphs
# built node by node" cites. No GPU needed; valgrind and python3 are.
#
#   bash scripts/graph-count.sh
#   CUSTACK_GRAPH_COUNT_REPS=50 bash scripts/graph-count.sh
#
# One callgrind run per operation, collecting only inside its `count_*` function; what is
# collected is split by object: custack (the benchmark binary: custack's code, inlined into it,
# and the operation's function), the driver (libcuda.so, and the dynamic loader, whose TLS
# lookups only the driver, a shared library, makes) and the C library (its allocator, as custack
# calls it, and as the driver does). Per operation: instructions ÷ operations, the same build on
# every run, so exact up to the few allocations made once (a first update's box, a list's growth).
# Built in its own target directories (target/checkdriver, target/graph-count), as
# scripts/bench-nulldriver.sh does.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v valgrind >/dev/null || { echo "graph-count: valgrind not found" >&2; exit 1; }
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
lib_dir=$target/checkdriver/lib
cargo build --release --manifest-path checkdriver/Cargo.toml --target-dir "$target/checkdriver" >&2
mkdir -p "$lib_dir"
cp -f "$target/checkdriver/release/libcuda.so" "$lib_dir/libcuda.so"
ln -sf libcuda.so "$lib_dir/libcuda.so.1"
export CUDA_DRIVER_LIB_DIR=$lib_dir
export LD_LIBRARY_PATH=$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$(CARGO_TARGET_DIR=$target/graph-count cargo bench --no-run -p custack-benches --bench graph_count \
    --message-format=json-render-diagnostics | python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "graph_count":
        print(m["executable"])')
[[ -x $bin ]] || { echo "graph-count: no benchmark binary built" >&2; exit 1; }
reps=${CUSTACK_GRAPH_COUNT_REPS:-200}
export CUSTACK_GRAPH_COUNT_REPS=$reps NULLDRIVER_CHECK=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "graph-count: $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $reps repetitions, $(valgrind --version)"
echo "| operation | custack | custack's allocator calls | driver (libcuda, its TLS) |"
echo "| --- | ---: | ---: | ---: |"
for row in "count_kernel_node:$((reps * 100)):build one kernel node" \
           "count_build:$((reps * 100)):build_graph of 100 kernel nodes, per node" \
           "count_set_kernel:$((reps * 100)):update one kernel node (kernel_node + set_kernel)" \
           "count_update_fixed:$reps:update_kernels with no update" \
           "count_update_host:$reps:update one host node (update_nodes + host_node + set_host)" \
           "count_update_record:$reps:update one event record node" \
           "count_update_wait:$reps:update one event wait node"; do
    IFS=: read -r fn ops name <<<"$row"
    valgrind --tool=callgrind --callgrind-out-file="$out/$fn" --collect-atstart=no \
        --toggle-collect="*$fn*" "$bin" --bench >/dev/null 2>"$out/$fn.log" ||
        { cat "$out/$fn.log" >&2; exit 1; }
    python3 - "$out/$fn" "$ops" "$name" "$(basename "$bin")" <<'PY'
import collections, re, sys
path, ops, name, binary = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
names = {"ob": {}, "fn": {}, "fl": {}}
def named(kind, v):
    m = re.match(r"\((\d+)\)(?: (.*))?", v)
    if not m:
        return v
    if m.group(2) is not None:
        names[kind][m.group(1)] = m.group(2)
    return names[kind].get(m.group(1), "?")
ob = fn = callee = None
skip = False
own = collections.Counter()
alloc = 0
for line in open(path):
    line = line.rstrip("\n")
    if line.startswith("ob="): ob = named("ob", line[3:]); continue
    if line.startswith("fn="): fn = named("fn", line[3:]); continue
    if line.startswith("cob="): callee = named("ob", line[4:]); continue
    if line.startswith("cfn="): named("fn", line[4:]); continue
    if line.startswith(("cfi=", "cfl=")): named("fl", line[4:]); continue
    if line.startswith(("fl=", "fi=", "fe=")): named("fl", line[3:]); continue
    if line.startswith("calls="): skip = True; continue
    if line and (line[0].isdigit() or line[0] in "+-*"):
        cost = int(line.split()[1]) if len(line.split()) > 1 else 0
        if skip:
            # A call's inclusive cost: the C library's, called from custack's own code.
            if callee and "libc.so" in callee and binary in (ob or "") and fn.startswith("__rustc::"):
                alloc += cost
            skip, callee = False, None
            continue
        own[ob or "?"] += cost
mine = sum(v for o, v in own.items() if binary in o)
driver = sum(v for o, v in own.items() if "libcuda" in o or "ld-linux" in o)
print(f"| {name} | {mine / ops:.1f} | {alloc / ops:.1f} | {driver / ops:.1f} |")
PY
done
