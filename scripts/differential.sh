#!/usr/bin/env bash
# The differential run of the checking driver (docs/validation.md, contract row R26): the
# programs of benches/checking run once against the checking driver (checkdriver/, the double)
# and once against a real libcuda behind the trace interposer (checkdriver/trace/, LD_PRELOAD);
# the comparer (custack-differential) sets the two traces of driver calls, the programs'
# observations (`observe` lines) and their outcomes side by side, program by program.
#
#   bash scripts/differential.sh                # here, no GPU: the self-test (below)
#   bash scripts/differential.sh pack DIR       # builds and copies what a GPU machine needs to DIR
#   bash DIR/differential.sh run DIR            # on the GPU machine (scripts/gpu-bundle.sh packs
#                                               # it as .gpu/differential/; `bash .gpu/differential.sh`)
#
# `run` writes the report $OUT/differential.json (.gpu/out/ where OUT is unset) and the log
# $OUT/differential.log (the comparer's table, the first difference of each program); it exits 0
# when every program was compared, whatever the comparison found (the report says), 1 otherwise.
# DIFF_PROGRAMS="p1 p2" narrows the programs; the double's runs go DIFF_JOBS at once (default: the
# cores, at most 8), then the real driver's DIFF_REAL_JOBS at once (default 2); DIFF_TIMEOUT
# (default 120) bounds each run, in seconds.
#
# Each program of checkdriver/trace/programs.txt whose class is not `cannot` runs twice, with
# CUSTACK_OBSERVE=1 (the programs print what they observe):
# - the double's run: LD_LIBRARY_PATH leads to the double, NULLDRIVER_CHECK=1, its trace
#   NULLDRIVER_TRACE=double.trace, NULLDRIVER_DRIVER_VERSION_MAX= the real driver's version (a
#   program that asks for a newer one gets that);
# - the real run: LD_PRELOAD=libcustack_trace.so, CUSTACK_TRACE=real.trace,
#   CUSTACK_TRACE_DRIVER_VERSION=12020 (the version the double reports by default, emulated: so
#   that custack takes the same version-dependent paths; a program's request for a newer one is
#   honoured up to the real driver's), and the real cubins the bundle built (CUSTACK_FRAME_CUBIN,
#   CUSTACK_FRAME_CUBIN_WRONG_ARCH, CUSTACK_CONDITIONAL_CUBIN) for the programs that load one.
#
# The self-test (no argument): builds the double, the checking programs, the interposer and the
# comparer here, and runs the harness with the double as the "real" driver too (the interposer
# in front of it), three times: (1) the interposer forwarding every extension to the double: every
# program must compare equal; (2) CUSTACK_TRACE_OWN=1, the interposer answering the version,
# the call counts and the failure requests itself, as in front of a real driver: every program
# that makes no failure of its own must compare equal; (3) the double's run of `p1` made to fail
# its module load (NULLDRIVER_FAIL_AT): the comparer must report exactly that call as p1's first
# difference, and no other program may differ.
set -euo pipefail
# Only the settings this script makes: a NULLDRIVER_* variable inherited from the caller (the
# test command runs check-driver.sh, and so this self-test, again under NULLDRIVER_FAIL_CODE=1)
# would change what the double answers on both of its sides.
while read -r v; do unset "$v"; done < <(compgen -e | grep '^NULLDRIVER_' || true)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "differential: $*" >&2; exit 2; }

# harness OUTDIR BIN DOUBLE_DIR INTERPOSER COMPARER PROGRAMS REAL_VERSION [real-side env...]
# Runs every program on both sides into OUTDIR/runs, then the comparer: OUTDIR/report.json and
# OUTDIR/report.txt. Extra arguments are environment settings for the real side only.
harness() {
    local outdir=$1 bin=$2 double=$3 interposer=$4 comparer=$5 programs=$6 version=$7
    shift 7
    local real_env=("$@")
    rm -rf "$outdir/runs"
    mkdir -p "$outdir/runs"
    local names
    names=$(awk '!/^#/ && NF >= 2 && $2 != "cannot" { print $1 }' "$programs")
    if [[ -n ${DIFF_PROGRAMS:-} ]]; then
        names=$(for p in $DIFF_PROGRAMS; do grep -qx "$p" <<<"$names" && echo "$p"; done)
    fi
    local jobs=${DIFF_JOBS:-$(nproc 2>/dev/null || echo 2)}
    ((jobs <= 8)) || jobs=8
    export -f one_side
    export DIFF_BIN=$bin DIFF_DOUBLE=$double DIFF_INTERPOSER=$interposer DIFF_VERSION=$version \
        DIFF_OUT=$outdir/runs DIFF_TIMEOUT=${DIFF_TIMEOUT:-120} DIFF_REAL_ENV=$outdir/real.env \
        DIFF_DOUBLE_ENV=${DIFF_DOUBLE_ENV:-}
    # The real side's settings, one a line (a path may hold spaces).
    if ((${#real_env[@]})); then printf '%s\n' "${real_env[@]}"; fi >"$outdir/real.env"
    # The double's runs, then the real driver's, fewer at once (DIFF_REAL_JOBS, default 2): many
    # processes sharing one device slow each other's work, and the programs' waits have deadlines.
    # shellcheck disable=SC2086 # one program name per argument
    printf '%s\n' $names | xargs -P "$jobs" -I{} bash -c 'one_side double "$1"' _ {}
    # shellcheck disable=SC2086 # as above
    printf '%s\n' $names | xargs -P "${DIFF_REAL_JOBS:-2}" -I{} bash -c 'one_side real "$1"' _ {}
    "$comparer" "$outdir/runs" --programs "$programs" --json "$outdir/report.json" >"$outdir/report.txt"
}

# one_side SIDE NAME: one program's run on the double or on the real driver (environment from
# `harness`).
one_side() {
    local side=$1 p=$2 dir=$DIFF_OUT/$2 rc=0
    mkdir -p "$dir"
    if [[ $side == double ]]; then
        # The double loads the stand-in cubins, never the device's (which .gpu/env.sh exports);
        # a schedule of DIFF_DOUBLE_ENV is the double's only.
        # shellcheck disable=SC2086 # DIFF_DOUBLE_ENV: settings, one word each
        env -u CUSTACK_FRAME_CUBIN -u CUSTACK_FRAME_CUBIN_WRONG_ARCH -u CUSTACK_CONDITIONAL_CUBIN \
            LD_LIBRARY_PATH="$DIFF_DOUBLE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" NULLDRIVER_CHECK=1 \
            NULLDRIVER_REPORT="$dir/double.report" NULLDRIVER_TRACE="$dir/double.trace" \
            NULLDRIVER_DRIVER_VERSION_MAX="$DIFF_VERSION" CUSTACK_OBSERVE=1 $DIFF_DOUBLE_ENV \
            timeout -k 5 "$DIFF_TIMEOUT" "$DIFF_BIN" "$p" >"$dir/double.out" 2>&1 || rc=$?
    else
        local settings=()
        mapfile -t settings <"$DIFF_REAL_ENV"
        env LD_PRELOAD="$DIFF_INTERPOSER" CUSTACK_TRACE="$dir/real.trace" \
            CUSTACK_TRACE_DRIVER_VERSION=12020 CUSTACK_OBSERVE=1 "${settings[@]}" \
            timeout -k 5 "$DIFF_TIMEOUT" "$DIFF_BIN" "$p" >"$dir/real.out" 2>&1 || rc=$?
    fi
    echo "$rc" >"$dir/$side.rc"
}

# The real driver's version, as a program linked to it sees it (python3's ctypes; 0 if none).
real_version() {
    python3 - "$@" <<'PY'
import ctypes, sys
try:
    lib = ctypes.CDLL("libcuda.so.1")
    v = ctypes.c_int(0)
    print(v.value if lib.cuDriverGetVersion(ctypes.byref(v)) == 0 else 0)
except OSError:
    print(0)
PY
}

# differing REPORT: the programs the comparer found different, but those of class `timing`
# (whose calls depend on how threads interleave: they may differ between two runs of one driver).
differing() {
    awk '$NF == "different" && $2 != "timing" { print $1 }' "$1"
}

# build TARGET: the double, the checking programs (linked to the double's directory: they link
# the double's call counters, which the interposer also defines), the interposer, the comparer.
build() {
    local target=$1
    cd "$here/.."
    cargo build --quiet --release --manifest-path checkdriver/Cargo.toml --target-dir "$target/checkdriver"
    mkdir -p "$target/checkdriver/check-lib"
    cp -f "$target/checkdriver/release/libcuda.so" "$target/checkdriver/check-lib/libcuda.so"
    ln -sf libcuda.so "$target/checkdriver/check-lib/libcuda.so.1"
    CUDA_DRIVER_LIB_DIR=$target/checkdriver/check-lib cargo build --quiet --release \
        --manifest-path benches/checking/Cargo.toml --target-dir "$target/check-driver"
    cargo build --quiet --release --manifest-path checkdriver/trace/Cargo.toml --target-dir "$target/trace"
}

case ${1:-self-test} in
    pack)
        (($# == 2)) || die "usage: scripts/differential.sh pack DIR"
        dest=$(realpath -m "$2")
        target=$(realpath -m "${CARGO_TARGET_DIR:-$here/../target}")
        build "$target"
        rm -rf "$dest"
        mkdir -p "$dest/double"
        cp "$target/check-driver/release/custack-checking" "$dest/"
        cp "$target/checkdriver/release/libcuda.so" "$dest/double/libcuda.so"
        strip --strip-debug "$dest/double/libcuda.so" 2>/dev/null || true
        ln -sf libcuda.so "$dest/double/libcuda.so.1"
        cp "$target/trace/release/libcustack_trace.so" "$target/trace/release/custack-differential" "$dest/"
        cp "$here/../checkdriver/trace/programs.txt" "$here/differential.sh" "$dest/"
        echo "differential: packed into $dest ($(du -sh "$dest" | cut -f1))"
        ;;
    run)
        (($# == 2)) || die "usage: differential.sh run DIR"
        dir=$(realpath "$2")
        out=$(realpath -m "${OUT:-$dir/../out}")
        mkdir -p "$out"
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
        version=$(real_version)
        [[ $version -gt 0 ]] || die "no libcuda.so.1 answers cuDriverGetVersion here"
        real_env=()
        # The bundle's cubins (run.sh's build for the device writes .gpu/env.sh): those three
        # variables only, read in a shell of their own.
        if [[ -f $dir/../env.sh ]]; then
            for var in CUSTACK_FRAME_CUBIN CUSTACK_FRAME_CUBIN_WRONG_ARCH CUSTACK_CONDITIONAL_CUBIN; do
                value=$(bash -c 'source "$1" >/dev/null 2>&1; printf %s "${!2:-}"' _ "$dir/../env.sh" "$var")
                [[ -z $value ]] || real_env+=("$var=$value")
            done
        fi
        [[ ${#real_env[@]} -gt 0 ]] ||
            echo "differential: no cubins built for this device (run .gpu/run.sh first): the programs that load one fail on the real driver"
        start=$SECONDS
        {
            echo "differential: real driver $version; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
            echo "differential: real-side settings: ${real_env[*]:-none}"
            harness "$work" "$dir/custack-checking" "$dir/double" "$dir/libcustack_trace.so" \
                "$dir/custack-differential" "$dir/programs.txt" "$version" "${real_env[@]}"
            cat "$work/report.txt"
            echo "differential: $((SECONDS - start)) s"
        } 2>&1 | tee "$out/differential.log"
        cp "$work/report.json" "$out/differential.json"
        # Every program compared (none missing its traces).
        missing=0
        for d in "$work"/runs/*/; do
            [[ -s $d/double.trace && -s $d/real.trace ]] || { echo "differential: $(basename "$d"): a side wrote no trace" | tee -a "$out/differential.log"; missing=1; }
        done
        exit $missing
        ;;
    self-test)
        target=$(realpath -m "${CARGO_TARGET_DIR:-$here/../target}")
        echo "differential: building" >&2
        build "$target"
        lib=$target/checkdriver/check-lib
        bin=$target/check-driver/release/custack-checking
        interposer=$target/trace/release/libcustack_trace.so
        comparer=$target/trace/release/custack-differential
        programs=$here/../checkdriver/trace/programs.txt
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
        # The "real" driver: the double again, configured as the double's run (1), or reporting
        # 13.0 as the H100's 580 does, the interposer emulating versions in front of it (2).
        real_env=(LD_LIBRARY_PATH="$lib" NULLDRIVER_CHECK=1 NULLDRIVER_DRIVER_VERSION_MAX=13000)
        bad=0
        start=$SECONDS
        echo "differential: self-test 1: the interposer in front of the double, forwarding" >&2
        harness "$work/1" "$bin" "$lib" "$interposer" "$comparer" "$programs" 13000 "${real_env[@]}"
        tail -n 1 "$work/1/report.txt"
        [[ -z $(differing "$work/1/report.txt") ]] ||
            { echo "differential: FAIL self-test 1: differences found"; cat "$work/1/report.txt"; bad=1; }
        echo "differential: self-test 2: the interposer answering its extensions itself" >&2
        DIFF_PROGRAMS=$(awk -v only=" ${DIFF_PROGRAMS:-} " '!/^#/ && NF >= 2 && $2 != "cannot" && $2 != "fault" &&
            (only == "  " || index(only, " " $1 " ")) { print $1 }' "$programs") \
            harness "$work/2" "$bin" "$lib" "$interposer" "$comparer" "$programs" 13000 \
            LD_LIBRARY_PATH="$lib" NULLDRIVER_CHECK=1 NULLDRIVER_DRIVER_VERSION=13000 CUSTACK_TRACE_OWN=1
        tail -n 1 "$work/2/report.txt"
        # `cuCtxGetApiVersion` answers 3020 whatever version the double reports (as the H200 run's
        # driver did), so the emulation leaves no difference of its own.
        [[ -z $(differing "$work/2/report.txt") ]] ||
            { echo "differential: FAIL self-test 2: differences found"; cat "$work/2/report.txt"; bad=1; }
        echo "differential: self-test 3: the double made to fail p1's module load" >&2
        # The counted number (the double's: no error texts, no lookups) of p1's first module load.
        k=$(awk -F'\t' '$3 !~ /^cuGetError|^cuGetProcAddress/ { n++ } $3 == "cuModuleLoadDataEx" { print n; exit }' "$work/1/runs/p1/double.trace")
        [[ -n $k ]] || die "p1 made no cuModuleLoadDataEx"
        DIFF_PROGRAMS="p1" DIFF_DOUBLE_ENV="NULLDRIVER_FAIL_AT=$k" \
            harness "$work/3" "$bin" "$lib" "$interposer" "$comparer" "$programs" 13000 "${real_env[@]}"
        first=$(grep '^  p1: ' "$work/3/report.txt" || true)
        echo "differential: p1's first difference: $first"
        [[ $first == *"cuModuleLoadDataEx answered 2 by the double, 0 by the real driver"* ]] ||
            { echo "differential: FAIL self-test 3: not the failed call"; cat "$work/3/report.txt"; bad=1; }
        echo "differential: self-test $( ((bad)) && echo FAILED || echo passed) ($((SECONDS - start)) s)"
        exit $bad
        ;;
    *) die "unknown mode $1 (self-test, pack DIR, run DIR)" ;;
esac
