#!/usr/bin/env bash
# Builds custack's test binaries (and the benches and examples named) on this machine and packs
# them into .gpu/ with a runner, for a GPU machine that has the NVIDIA driver but no Rust
# toolchain:
#
#   bash scripts/gpu-bundle.sh [--features F] [--test NAME]... [--bench NAME]... [--example NAME]...
#
# --features F builds everything with custack's features F (`nvrtc`: set CUSTACK_NVRTC_LIB_DIR
# to an NVRTC the GPU machine also has, of a CUDA version its driver supports; `cusparse`:
# CUSTACK_CUSPARSE_LIB_DIR to its nvidia/cu13/lib, which holds the libnvJitLink.so.13 that
# libcusparse.so.12 needs, found there at link and run time through its RUNPATH $ORIGIN, so the
# run needs that directory on LD_LIBRARY_PATH as cuBLAS's does; `cusolver`:
# CUSTACK_CUSOLVER_LIB_DIR to the same nvidia/cu13/lib, which holds what libcusolver.so.12 needs,
# libcublas.so.13, libcublasLt.so.13, libcusparse.so.12 and libnvJitLink.so.13; run.sh appends
# the GPU machine's site-packages/nvidia/cu13/lib to LD_LIBRARY_PATH when python3 finds it). --test NAME packs
# only the test targets named (and the unit tests) instead of every one. Tests and examples are
# looked for in custack and in custack-benches (benches/Cargo.toml: the test gpu_tokio, the
# example 13_tokio_requests), benches in custack-benches, which has custack's features too.
#   # on the GPU machine, from the repository root, with .gpu/ copied there:
#   bash .gpu/run.sh                 # every test binary with --include-ignored, then the benches
#                                    # (--bench) and examples; one log, $OUT/gpu.log (.gpu/out/),
#                                    # and the report $OUT/gpu-report.json (below)
#   SANITIZE=1 bash .gpu/run.sh      # each test binary under compute-sanitizer's leak check
#   ONLY="test-lib test-gpu_x" bash .gpu/run.sh   # those binaries alone (the report says so)
#   bash scripts/gpu-check.sh        # the run, then compute-sanitizer over every binary
#   bash scripts/frame-bench.sh .gpu/bin/example-NAME   # after run.sh: the frame loop, Rust vs C
#   bash .gpu/differential.sh        # the differential run alone (run.sh runs it as its last step)
#
# Before the binaries, run.sh builds with the GPU machine's CUDA toolkit (nvcc from PATH or
# /usr/local/cuda/bin; without one it says so and skips this step) what is compiled for the
# device itself, from the sources in the working tree: .gpu/frame.cubin (examples/kernels/
# frame.cu for the device's compute capability), .gpu/frame_wrong_arch.cubin (the same for an
# architecture of another major version, which the device must refuse), .gpu/device_launch.cubin
# (tests/fixtures/device_launch.cu, a relocatable cubin that launches from the device; the log
# lists its undefined symbols) and
# .gpu/bin/c-safety_frame (benches/safety_frame.c, the frame loop in C), which it runs once as
# a smoke check. Every binary then runs with CUSTACK_FRAME_CUBIN, CUSTACK_FRAME_CUBIN_WRONG_ARCH,
# CUSTACK_DEVICE_LAUNCH_CUBIN, CUSTACK_PROCESS_CUBIN, CUSTACK_REDUNDANCY_CUBIN (tests/fixtures/
# redundancy.cu), CUSTACK_CONDITIONAL_CUBIN (tests/fixtures/conditional.cu, kernels that set
# conditional graph nodes) and CUSTACK_TMA_CUBIN (tests/fixtures/tma.cu, tiles loaded through a
# tensor map by the Tensor Memory Accelerator) set to the cubins' absolute paths; .gpu/env.sh holds the same
# exports, for scripts that run the binaries themselves.
#
# The last step of run.sh is the differential run of the checking driver (docs/validation.md,
# contract row R26; scripts/differential.sh): the programs of benches/checking, built here against
# the checking driver (.gpu/differential/: the programs, the double's libcuda.so, the trace
# interposer, the comparer), run once against the double and once against this machine's
# libcuda, compared call by call; its report is $OUT/differential.json, its log
# $OUT/differential.log.
#
# The report, $OUT/gpu-report.json (written by python3 on the GPU machine; docs/evidence/README.md
# says what it is for): the commit packed and whether the working tree differed from it
# (recorded here at pack time, .gpu/source.json: `git rev-parse HEAD`, `git status --porcelain`),
# the features, each GPU's name, driver, memory and compute capability (nvidia-smi), the CUDA
# libraries' wheel versions (every installed `nvidia-*` distribution, importlib.metadata) and
# nvcc's version, then each binary with its exit code and, for a test binary, each test's name
# and result as libtest printed them (`test NAME ... ok|FAILED|ignored`), with its summary line.
#
# Vulkan, for the test gpu_external, the example 27_vulkan_interop (external memory and
# semaphores, contract rows C30, C31) and the bench external_memory: where one is packed,
# scripts/fetch-vulkan.sh fetches the Vulkan loader (Debian's libvulkan1) and writes an ICD
# manifest naming NVIDIA's libEGL_nvidia.so.0; both go into .gpu/vulkan/ (lib/libvulkan.so.1,
# nvidia_icd.json), and run.sh puts .gpu/vulkan/lib on LD_LIBRARY_PATH and sets VK_ICD_FILENAMES
# to the manifest (unless it is set already) for every binary, and in .gpu/env.sh. The GPU
# machine has NVIDIA's Vulkan driver but no loader. Where the fetch fails, the bundle says so and those fail there, naming it.
#
# Linking needs a libcuda here (build.rs finds one, or set CUDA_DRIVER_LIB_DIR, as
# scripts/test.sh does with the library it fetches). The trybuild test (`ui`, of the crate
# custack-ui-tests) is not packed: it needs cargo. Tests embed their fixtures (include_str!),
# so the binaries run anywhere.
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
# The packages whose tests and examples are packed: custack, and custack-benches (what needs
# tokio). cargo looks for a target named by --test or --example in both.
packages=(-p custack -p custack-benches)
rm -rf .gpu
mkdir -p .gpu/bin
# What was packed, for the report: the commit, the working tree's differences from it (a report
# of a dirty tree is no evidence for the commit), the features.
python3 - "${features[1]:-}" >.gpu/source.json <<'SOURCE'
import datetime, json, subprocess, sys
def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout
changed = [line for line in git("status", "--porcelain").splitlines() if line.strip()]
print(json.dumps({
    "commit": git("rev-parse", "HEAD").strip(),
    "dirty": bool(changed),
    "changed": changed,
    "features": sys.argv[1],
    "packed_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
}, indent=2))
SOURCE
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
    cargo test --release --no-run "${packages[@]}" "${tests[@]}" "${features[@]}" --message-format=json-render-diagnostics | executables test
    for b in "${benches[@]}"; do
        cargo bench --no-run -p custack-benches --bench "$b" "${features[@]}" --message-format=json-render-diagnostics | executables bench
    done
    for e in "${examples[@]}"; do
        cargo build --release "${packages[@]}" --example "$e" "${features[@]}" --message-format=json-render-diagnostics | executables example
    done
} >.gpu/found
: >.gpu/list
while read -r role name path; do
    cp "$path" ".gpu/bin/$role-$name"
    strip ".gpu/bin/$role-$name" 2>/dev/null || true
    echo "$role $role-$name" >>.gpu/list
done <.gpu/found
rm .gpu/found
# Vulkan's loader and NVIDIA's headless ICD manifest, where the interop test or example is packed.
if grep -qE ' (test-gpu_external|example-27_vulkan_interop|bench-external_memory)$' .gpu/list; then
    if vulkan_lib=$(bash scripts/fetch-vulkan.sh target/vulkan); then
        mkdir -p .gpu/vulkan/lib
        cp -L "$vulkan_lib/libvulkan.so.1" .gpu/vulkan/lib/libvulkan.so.1
        cp target/vulkan/nvidia_icd.json .gpu/vulkan/nvidia_icd.json
    else
        echo "scripts/gpu-bundle.sh: no Vulkan loader fetched (scripts/fetch-vulkan.sh failed):" \
            "gpu_external, 27_vulkan_interop and external_memory will fail on the GPU machine, naming it" >&2
    fi
fi
# The differential run (scripts/differential.sh): what it needs, and its step, last.
bash scripts/differential.sh pack .gpu/differential
cat >.gpu/differential.sh <<'DIFFERENTIAL'
#!/usr/bin/env bash
# The differential run of the checking driver against this machine's libcuda (scripts/differential.sh).
exec bash "$(dirname "$0")/differential/differential.sh" run "$(dirname "$0")/differential"
DIFFERENTIAL
echo "differential differential" >>.gpu/list
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
# cuDNN (feature `cudnn`): its Python wheel's directory, nvidia/cudnn/lib under python3's
# site-packages, on the loader's path when it is there (the binaries carry no rpath); cuDNN
# loads its sub-libraries from there and cuBLASLt (nvidia/cu13/lib) at run time.
for d in $(python3 -c 'import site; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null); do
    for lib in "$d/nvidia/cudnn/lib" "$d/nvidia/cu13/lib"; do
        if [[ -d $lib ]]; then export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; fi
    done
    # cudarc (the cuDNN bench's third column) dlopens `libcudnn.so` before `libcudnn.so.9`; the
    # wheel has only the latter, so the name found another cuDNN on the machine (9.14 in
    # /usr/lib/x86_64-linux-gnu beside the wheel's 9.19) and the process mixed two: the name is
    # put first on the path for the wheel's own library.
    if [[ -f $d/nvidia/cudnn/lib/libcudnn.so.9 && ! -e $d/nvidia/cudnn/lib/libcudnn.so ]]; then
        mkdir -p .gpu/cudnn-alias && ln -sf "$d/nvidia/cudnn/lib/libcudnn.so.9" .gpu/cudnn-alias/libcudnn.so
        export LD_LIBRARY_PATH=$PWD/.gpu/cudnn-alias:$LD_LIBRARY_PATH
    fi
done
fail=0
# The CUDA libraries a feature links (cuBLAS, cuSPARSE, cuSOLVER and what they load) come from
# NVIDIA's CUDA 13 wheels in this machine's Python: no rpath is set, so their directory
# (site-packages/nvidia/cu13/lib) is appended to the loader's path when it exists; a path set
# by the caller comes first.
wheels=$(python3 -c 'import nvidia, os; print(next(p for p in (os.path.join(d, "cu13", "lib") for d in nvidia.__path__) if os.path.isdir(p)))' 2>/dev/null || true)
if [[ -n $wheels ]]; then
    export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$wheels
    echo "run.sh: the CUDA libraries of the wheels in $wheels" | tee -a "$log"
fi
# Each step's outcome (role, name, exit status) and each binary's own log, for the report.
rm -rf .gpu/logs
mkdir -p .gpu/logs
: >.gpu/results.tsv

# What is compiled for this device, with this machine's CUDA toolkit: the frame loop's cubins,
# the cubin that launches from the device, and the frame loop in C (see scripts/gpu-bundle.sh).
# Returns 1 if a build failed, 2 when there is no toolkit (and says so); what an earlier run
# built is removed first.
: >.gpu/env.sh
build_for_device() {
    local nvcc="" inc="" d cap major arch wrong lib linked=0
    rm -f .gpu/frame.cubin .gpu/frame_wrong_arch.cubin .gpu/device_launch.cubin .gpu/restricted_process.cubin \
        .gpu/redundancy.cubin .gpu/conditional.cubin .gpu/tma.cubin .gpu/bin/c-safety_frame
    nvcc=$(command -v nvcc || true)
    if [[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]]; then nvcc=/usr/local/cuda/bin/nvcc; fi
    if [[ -z $nvcc ]]; then
        echo "run.sh: no CUDA toolkit here (nvcc neither on PATH nor in /usr/local/cuda/bin):" \
            "the cubins and .gpu/bin/c-safety_frame are not built, CUSTACK_FRAME_CUBIN," \
            "CUSTACK_FRAME_CUBIN_WRONG_ARCH, CUSTACK_DEVICE_LAUNCH_CUBIN, CUSTACK_PROCESS_CUBIN, CUSTACK_REDUNDANCY_CUBIN, CUSTACK_CONDITIONAL_CUBIN and CUSTACK_TMA_CUBIN stay unset, and" \
            "the tests that need them fail naming them"
        return 2
    fi
    # cuda.h: beside nvcc (through its links too), then the usual roots.
    for d in "$(dirname "$nvcc")/../include" "$(dirname "$(readlink -f "$nvcc")")/../include" \
        ${CUDA_HOME:+"$CUDA_HOME/include"} ${CUDA_PATH:+"$CUDA_PATH/include"} /usr/local/cuda/include; do
        if [[ -f $d/cuda.h ]]; then inc=$(cd "$d" && pwd); break; fi
    done
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' ')
    if [[ ! $cap =~ ^[0-9]+\.[0-9]+$ ]]; then
        echo "run.sh: cannot read the device's compute capability from nvidia-smi (got '$cap'): nothing built"
        return 1
    fi
    major=${cap%%.*}
    arch=sm_${cap/./}
    if ((major == 9)); then wrong=sm_80; else wrong=sm_90; fi
    echo "run.sh: building for $arch (compute capability $cap) with $nvcc; the wrong-architecture cubin for $wrong"
    # Each cubin, then its variable in .gpu/env.sh (only what was built is exported).
    cubin() {
        local var=$1 out=$2
        shift 2
        echo "+ nvcc $* -o $out"
        "$nvcc" "$@" -o "$out" || return 1
        printf 'export %s=%q\n' "$var" "$PWD/$out" >>.gpu/env.sh
    }
    cubin CUSTACK_FRAME_CUBIN .gpu/frame.cubin -cubin -arch="$arch" examples/kernels/frame.cu || return 1
    cubin CUSTACK_FRAME_CUBIN_WRONG_ARCH .gpu/frame_wrong_arch.cubin \
        -cubin -arch="$wrong" examples/kernels/frame.cu || return 1
    cubin CUSTACK_DEVICE_LAUNCH_CUBIN .gpu/device_launch.cubin \
        -cubin -rdc=true -arch="$arch" tests/fixtures/device_launch.cu || return 1
    cubin CUSTACK_PROCESS_CUBIN .gpu/restricted_process.cubin \
        -cubin -arch="$arch" tests/fixtures/restricted_process.cu || return 1
    cubin CUSTACK_REDUNDANCY_CUBIN .gpu/redundancy.cubin \
        -cubin -arch="$arch" tests/fixtures/redundancy.cu || return 1
    cubin CUSTACK_CONDITIONAL_CUBIN .gpu/conditional.cubin \
        -cubin -arch="$arch" tests/fixtures/conditional.cu || return 1
    cubin CUSTACK_TMA_CUBIN .gpu/tma.cubin -cubin -arch="$arch" tests/fixtures/tma.cu || return 1
    # The evidence the safety profile refuses it on: its undefined (device runtime) symbols.
    if command -v readelf >/dev/null; then
        echo "undefined symbols of .gpu/device_launch.cubin:"
        readelf -sW .gpu/device_launch.cubin | awk '$7 == "UND" && $8 != "" { print "    " $8 }'
    fi
    if [[ -z $inc ]]; then
        echo "run.sh: no cuda.h beside $nvcc nor in /usr/local/cuda/include: .gpu/bin/c-safety_frame is not built"
        return 1
    fi
    # libcuda: the driver's (-lcuda), else the toolkit's link-time stub (the loader still picks
    # the driver's libcuda.so.1 at run time), else the driver's versioned name.
    for lib in "-lcuda" "-L$inc/../lib64/stubs -lcuda" "-L$inc/../lib/stubs -lcuda" "-l:libcuda.so.1"; do
        # shellcheck disable=SC2086 # $lib is one or two words on purpose
        if cc -O2 -std=c99 benches/safety_frame.c -I"$inc" $lib -o .gpu/bin/c-safety_frame 2>.gpu/cc.log; then
            linked=1
            echo "run.sh: built .gpu/bin/c-safety_frame with cuda.h from $inc, linked with $lib"
            break
        fi
    done
    if ((!linked)); then
        echo "run.sh: cc failed to build .gpu/bin/c-safety_frame:"
        cat .gpu/cc.log
        return 1
    fi
}
echo "=== build for the device" | tee -a "$log"
rc=0
build_for_device >.gpu/one.log 2>&1 || rc=$?
case $rc in
    0) status=ok ;;
    2) status="skipped (no CUDA toolkit)" ;;
    *) status=FAILED; fail=1 ;;
esac
tee -a "$log" <.gpu/one.log
echo "--- build for the device: $status" | tee -a "$log"
printf 'build\tfor-device\t%s\n' "$rc" >>.gpu/results.tsv
cp .gpu/one.log .gpu/logs/for-device.log
# shellcheck disable=SC1091 # written just above
source .gpu/env.sh
# Vulkan (scripts/gpu-bundle.sh packed it where gpu_external, 27_vulkan_interop or the bench
# external_memory is packed): the fetched loader on the library path, NVIDIA's headless ICD
# named, for every binary and env.sh.
if [[ -d .gpu/vulkan ]]; then
    export LD_LIBRARY_PATH=$PWD/.gpu/vulkan/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-$PWD/.gpu/vulkan/nvidia_icd.json}
    printf 'export LD_LIBRARY_PATH=%q\nexport VK_ICD_FILENAMES=%q\n' "$LD_LIBRARY_PATH" "$VK_ICD_FILENAMES" >>.gpu/env.sh
    echo "run.sh: Vulkan: LD_LIBRARY_PATH starts with $PWD/.gpu/vulkan/lib, VK_ICD_FILENAMES=$VK_ICD_FILENAMES" | tee -a "$log"
fi

# The packed binaries, then (when built) one short run of the frame loop in C: 20 frames.
while read -r role bin; do
    case $role in
        test)
            if [[ ${SANITIZE:-0} == 1 ]]; then
                cmd=(compute-sanitizer --leak-check full --error-exitcode 86 ".gpu/bin/$bin" --include-ignored --test-threads=1)
            else
                cmd=(".gpu/bin/$bin" --include-ignored)
            fi ;;
        bench) cmd=(".gpu/bin/$bin" --bench) ;;
        c) cmd=(".gpu/bin/$bin" "$CUSTACK_FRAME_CUBIN" 20 1) ;;
        differential) cmd=(bash .gpu/differential.sh) ;;
        *) cmd=(".gpu/bin/$bin") ;;
    esac
    echo "=== $bin" | tee -a "$log"
    # RUN_UNTIL (seconds since the epoch): a binary starts only before it, and runs at most until
    # it (timeout's 124 then); one that could not start is reported `not-run` (the lanes of
    # scripts/gpu-lanes.sh share one command's time limit and still write their report).
    if [[ -n ${RUN_UNTIL:-} ]]; then
        left=$((RUN_UNTIL - $(date +%s)))
        if ((left <= 0)); then
            echo "--- $bin: not run (RUN_UNTIL passed)" | tee -a "$log"
            printf '%s\t%s\t%s\n' "$role" "$bin" "not-run" >>.gpu/results.tsv
            continue
        fi
        cmd=(timeout -k 5 "$left" "${cmd[@]}")
    fi
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
    printf '%s\t%s\t%s\n' "$role" "$bin" "$rc" >>.gpu/results.tsv
    cp .gpu/one.log ".gpu/logs/$bin.log"
done < <({ cat .gpu/list; if [[ -x .gpu/bin/c-safety_frame && -n ${CUSTACK_FRAME_CUBIN:-} ]]; then echo "c c-safety_frame"; fi; } |
    # ONLY="test-lib test-gpu_x ...": those binaries alone (a sanitizer run that cannot take
    # them all within the machine's time); the report says so ("only").
    if [[ -n ${ONLY:-} ]]; then awk -v only=" $ONLY " 'index(only, " " $2 " ")'; else cat; fi)

# The machine-readable report (scripts/gpu-bundle.sh's header says what it holds).
if python3 - "$out/gpu-report.json" "${SANITIZE:-0}" "$fail" <<'REPORT'; then
import datetime, json, os, platform, re, subprocess, sys
from importlib import metadata

path, sanitize, fail = sys.argv[1], sys.argv[2] == "1", sys.argv[3] != "0"

def run(cmd):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None

source = {}
if os.path.exists(".gpu/source.json"):
    with open(".gpu/source.json") as f:
        source = json.load(f)

gpus = []
fields = ["name", "driver_version", "memory_total", "compute_cap"]
smi = run(["nvidia-smi", "--query-gpu=" + ",".join(fields).replace("memory_total", "memory.total"),
           "--format=csv,noheader"])
for line in (smi or "").splitlines():
    gpus.append(dict(zip(fields, (p.strip() for p in line.split(",")))))

libraries = {}
for dist in metadata.distributions():
    name = dist.metadata["Name"] or ""
    if name.lower().startswith("nvidia-"):
        libraries[name] = dist.version
nvcc = run(["nvcc", "--version"]) or run(["/usr/local/cuda/bin/nvcc", "--version"])

RESULT = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)\b")
STARTED = re.compile(r"^test (\S+) \.\.\. ")
# A result line that another thread's or process's output (a test's skip message on stderr)
# pushed to the middle of a line, its result on that line or alone on the next.
MIDLINE = re.compile(r"\Stest (\S+) \.\.\. ?(ok|FAILED|ignored)?\s*$")
SUMMARY = re.compile(r"^test result: (\w+)\. (\d+) passed; (\d+) failed; (\d+) ignored")

def tests_of(log):
    """Each test's result as libtest printed it; a result line broken in two by other output
    ("...1test NAME ... " then "ok" alone) is read whole; a test whose result line another
    process's output broke otherwise is named under `failures:` if it failed, else its result
    is `unparsed`."""
    results, summary, in_failures, pending = {}, None, False, None
    for line in log.splitlines():
        if pending is not None and line.strip() in ("ok", "FAILED", "ignored"):
            results[pending] = line.strip()
            pending = None
            continue
        pending = None
        m = RESULT.match(line)
        if m:
            results[m.group(1)] = m.group(2)
            continue
        m = STARTED.match(line)
        if m:
            results.setdefault(m.group(1), "unparsed")
            pending = m.group(1)
            continue
        m = MIDLINE.search(line)
        if m:
            if m.group(2):
                results[m.group(1)] = m.group(2)
            else:
                results.setdefault(m.group(1), "unparsed")
                pending = m.group(1)
            continue
        m = SUMMARY.match(line)
        if m:
            summary = {"result": m.group(1), "passed": int(m.group(2)),
                       "failed": int(m.group(3)), "ignored": int(m.group(4))}
            continue
        if line == "failures:":
            in_failures = True
        elif in_failures and line.startswith("    ") and line.strip() in results:
            results[line.strip()] = "FAILED"
        elif in_failures and line and not line.startswith(" "):
            in_failures = False
    tests = [{"name": n, "result": r} for n, r in sorted(results.items())]
    return tests, summary

binaries = []
with open(".gpu/results.tsv") as f:
    for line in f:
        role, name, rc = line.rstrip("\n").split("\t")
        if rc == "not-run":
            binaries.append({"role": role, "name": name, "exit_code": None, "outcome": "not-run"})
            continue
        entry = {"role": role, "name": name, "exit_code": int(rc),
                 "outcome": "ok" if rc == "0" else ("skipped" if role == "build" and rc == "2" else "FAILED")}
        if role == "test":
            with open(f".gpu/logs/{name}.log", errors="replace") as log:
                entry["tests"], entry["summary"] = tests_of(log.read())
        binaries.append(entry)

tests = [t for b in binaries for t in b.get("tests", [])]
report = {
    "format": 1,
    "source": source,
    "ran_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "host": {"machine": platform.machine(), "kernel": platform.release()},
    "sanitize": sanitize,
    "only": os.environ.get("ONLY") or None,
    "gpus": gpus,
    "cuda_libraries": dict(sorted(libraries.items())),
    "nvcc": nvcc.splitlines()[-1] if nvcc else None,
    "binaries": binaries,
    "totals": {
        "binaries": len(binaries),
        "binaries_failed": sum(b["outcome"] == "FAILED" for b in binaries),
        "binaries_not_run": sum(b["outcome"] == "not-run" for b in binaries),
        "tests": len(tests),
        **{r: sum(t["result"] == r for t in tests) for r in ("ok", "FAILED", "ignored", "unparsed")},
    },
    "all_passed": not fail,
}
with open(path, "w") as f:
    json.dump(report, f, indent=2)
    f.write("\n")
print(f"run.sh: report {path}: {len(binaries)} steps, {len(tests)} tests, "
      f"commit {source.get('commit', '?')[:12]}{' (dirty)' if source.get('dirty') else ''}")
REPORT
    :
else
    echo "run.sh: the report $out/gpu-report.json could not be written (python3 failed)" | tee -a "$log"
    fail=1
fi
exit $fail
RUN
chmod +x .gpu/run.sh
echo "scripts/gpu-bundle.sh: packed $(($(wc -l <.gpu/list) - 1)) binaries and the differential run into .gpu/ ($(du -sh .gpu | cut -f1)); on the GPU machine: bash .gpu/run.sh"
