#!/usr/bin/env bash
# Runs custack's whole test suite: unit, integration, ui and doc tests (the ui tests are the crate
# custack-ui-tests, ui-tests/tests/ui.rs, so that custack's examples do not build trybuild), the
# benches crate's targets (benches/, custack-benches: each bench once without `--bench`, the
# tokio example and test), the rendezvous crate's tests (rendezvous/, loopback only), clippy over
# every target of the workspace with every feature and warnings denied, the API docs with
# warnings denied, the example, plain `cargo test` in a fresh clone without the CUDA
# variables, the restricted profile's clippy list (scripts/clippy-safety.sh), the MSRV of every
# published crate, the release as a dry run (below), the checking-driver schedules
# (scripts/check-driver.sh, contract row R10; scripts/checked-app.sh, a user's crate under
# custack-check; clippy over the checking driver's crates, outside the workspace, with its
# lints), the process-wide states model-checked (scripts/loom.sh), Miri over the
# unsafe code (scripts/miri.sh; the nightly toolchain with Miri is
# installed with rustup when missing, skipped with a message only where rustup is) and the
# platform legs (scripts/platforms.sh: aarch64 under qemu, Windows under Wine, MSVC and QNX
# checks).
#
#   bash scripts/test.sh [ARGS...]      # ARGS go to the test binaries, e.g. --include-ignored
#
# The release is one command, run from the repository root on a clean checkout of the tagged
# commit:
#
#   cargo publish --workspace
#
# It packages the workspace's three published crates in dependency order (custack-derive,
# custack-rendezvous, custack), builds each package as a user would get it, and uploads them in
# that order. This script runs the same command with --dry-run, checks what each package
# holds, and runs custack's unit and doc tests in its unpacked .crate.
#
# The tests link and load the real CUDA driver library, but need no GPU. The library is taken
# from, in order:
#   1. CUDA_DRIVER_LIB_DIR, if set;
#   2. the usual places: CUDA_LIBRARY_PATH, the toolkit roots (CUDA_PATH, CUDA_HOME, CUDA_ROOT,
#      CUDA_TOOLKIT_ROOT_DIR, /usr/local/cuda), the distro and driver directories, ldconfig -p
#      (toolkit stubs/ do not count: they cannot be loaded at run time);
#   3. otherwise it is fetched, not installed, from the distribution's own archive into
#      target/cuda-driver/ (Debian: libcuda1 from non-free; Ubuntu: libnvidia-compute-535 from
#      restricted), with a private apt configuration derived from this machine's apt sources.
# The chosen directory is exported as CUDA_DRIVER_LIB_DIR (build.rs links it) and, unless the
# loader already finds it, prepended to LD_LIBRARY_PATH (the test binaries load it).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
target_dir=$(realpath -m "${CARGO_TARGET_DIR:-target}")
fetch_dir=$target_dir/cuda-driver

die() { echo "scripts/test.sh: $*" >&2; exit 1; }

arch=$(uname -m)
multiarch=$arch-linux-gnu
case $arch in
    x86_64) ld_tag=x86-64 ;;
    aarch64) ld_tag=AArch64 ;;
    *) ld_tag= ;;
esac

# Prints the first non-stub directory holding libcuda.so.1 or libcuda.so, in build.rs's order.
find_installed() {
    local dirs=() root d ld_cache_dirs
    if [[ -n ${CUDA_LIBRARY_PATH:-} ]]; then
        IFS=: read -r -a dirs <<<"$CUDA_LIBRARY_PATH"
    fi
    for root in ${CUDA_PATH:+"$CUDA_PATH"} ${CUDA_HOME:+"$CUDA_HOME"} ${CUDA_ROOT:+"$CUDA_ROOT"} \
        ${CUDA_TOOLKIT_ROOT_DIR:+"$CUDA_TOOLKIT_ROOT_DIR"} /usr/local/cuda; do
        dirs+=("$root/lib64" "$root/lib" "$root/targets/$arch-linux/lib")
    done
    dirs+=("/usr/lib/$multiarch" /usr/lib64 "/usr/lib/$multiarch/nvidia/current"
        /usr/local/nvidia/lib64 /usr/lib/wsl/lib)
    for d in "${dirs[@]}"; do
        if [[ $d != */stubs* && ( -f $d/libcuda.so.1 || -f $d/libcuda.so ) ]]; then
            echo "$d"
            return
        fi
    done
    ld_cache_dirs=$(ld_cache)
    echo "${ld_cache_dirs%%$'\n'*}"
}

# Directories of libcuda in the loader cache (empty if ldconfig is missing).
ld_cache() {
    local ldconfig
    ldconfig=$(PATH=$PATH:/sbin:/usr/sbin command -v ldconfig) || return 0
    "$ldconfig" -p | awk -v tag="$ld_tag" '
        ($1 == "libcuda.so.1" || $1 == "libcuda.so") && index($2, tag) && $NF !~ /\/stubs\// {
            sub(/\/[^\/]*$/, "", $NF); print $NF
        }' | while read -r d; do realpath -m "$d"; done
}

# Fetches the driver library for this machine's architecture into $fetch_dir/root, without
# installing it (scripts/fetch-driver.sh, which scripts/platforms.sh also uses for arm64), and
# prints the directory holding libcuda.so.1.
fetch_driver() {
    local deb_arch
    deb_arch=$(dpkg --print-architecture 2>/dev/null) ||
        die "no libcuda found and no dpkg/apt-get to fetch one: set CUDA_DRIVER_LIB_DIR to the directory holding the NVIDIA driver's libcuda.so.1"
    bash scripts/fetch-driver.sh "$deb_arch" "$fetch_dir" ||
        die "no libcuda found and fetching one failed (above); install the NVIDIA driver or set CUDA_DRIVER_LIB_DIR to the directory holding libcuda.so.1"
}

if [[ -n ${CUDA_DRIVER_LIB_DIR:-} ]]; then
    dir=$CUDA_DRIVER_LIB_DIR
else
    dir=$(find_installed)
    [[ -n $dir ]] || dir=$(fetch_driver)
fi
dir=$(realpath -m "$dir")
export CUDA_DRIVER_LIB_DIR=$dir
[[ -n ${LD_LIBRARY_PATH+set} ]] && user_ld_library_path=$LD_LIBRARY_PATH
ld_cache_dirs=$(ld_cache)
if [[ $dir != */stubs* && $'\n'$ld_cache_dirs$'\n' != *$'\n'"$dir"$'\n'* ]]; then
    export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
lib=$dir/libcuda.so
[[ -e $lib ]] || lib=$dir/libcuda.so.1
echo "scripts/test.sh: using libcuda $lib${LD_LIBRARY_PATH:+ (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)}"

# The free space on the target directory's disk, in GiB (empty where df cannot say). A whole run
# writes about need_gib GiB there (measured in a fresh clone, docs/reliability.md); a CI log that ends
# in "No space left on device" then says whether the disk was short before the run began.
free_gib() {
    mkdir -p "$target_dir" && df -P -BG "$target_dir" 2>/dev/null | awk 'NR == 2 { sub(/G$/, "", $4); print $4 }'
}
need_gib=20
free_at_start=$(free_gib || true)
lowest_free=$free_at_start # the least seen at a step's end, named in the last time line
echo "scripts/test.sh: ${free_at_start:-?} GiB free on the disk of $target_dir; a whole run writes about $need_gib GiB there"
if [[ -n $free_at_start ]] && ((free_at_start < need_gib)); then
    echo "scripts/test.sh: warning: less free space than a whole run writes: free some (old target directories, clones) or a step will fail with \"No space left on device\"" >&2
fi

# Both runs go ahead even if one fails; the script fails if either did.
status=0
failed=() # the steps that failed, named in the last line
# How long each step took, printed as it ends and once more in the last line, so that a CI log
# cut off by its time limit still says where the minutes went.
step_start=$SECONDS
timings=()
# The steps, in order: each start prints "step k of N", so that a log shows what runs now (a
# step can take many minutes and print little), and each end its time.
steps=("tests, doc tests, rendezvous" "clippy" "rustdoc" "docs.rs build" "example"
    "fresh clone, dependent build" "clippy safety list" "libraries" "msrv" "package"
    "checking driver" "loom" "miri" "platforms")
step_no=0
step_begin() {
    step_no=$((step_no + 1))
    ((step_no <= ${#steps[@]})) || return 0
    echo "scripts/test.sh: step $step_no of ${#steps[@]}: ${steps[step_no - 1]} ($SECONDS s so far)"
}
step_done() {
    local took=$((SECONDS - step_start))
    step_start=$SECONDS
    timings+=("$1 ${took}s")
    [[ $1 == "${steps[step_no - 1]:-}" ]] ||
        echo "scripts/test.sh: (step $step_no ended as \"$1\", listed as \"${steps[step_no - 1]:-}\": fix the list)" >&2
    local free
    free=$(free_gib || true)
    [[ -z $free || ( -n $lowest_free && $lowest_free -le $free ) ]] || lowest_free=$free
    echo "scripts/test.sh: time: $1 took $took s ($SECONDS s so far, ${free:-?} GiB free)"
    step_begin
}
step_begin
# custack's targets, custack-benches' (benches/: the benches, each run once without `--bench`,
# which prints how to run it; example 13 and the test gpu_tokio, on tokio), the compile-fail
# tests with custack's default features (custack-ui-tests: its tests `ui` and `ui_facade`) and
# the facade crate's (custack-safety: example 22's pipeline and the derive through it alone; its
# doc test, a restricted program, with custack's).
cargo test --no-fail-fast -p custack -p custack-benches -p custack-ui-tests -p custack-safety --all-targets -- "$@" || { status=1; failed+=(tests); }
cargo test --no-fail-fast --doc -p custack -p custack-safety || { status=1; failed+=("doc tests"); }
# The rendezvous crate (custack::rendezvous with the feature `nccl`): plain std, no CUDA; its
# tests run on loopback, in threads and in child processes, in about two seconds.
cargo test --no-fail-fast -p custack-rendezvous --all-targets -- "$@" &&
    cargo test --no-fail-fast -p custack-rendezvous --doc ||
    { status=1; failed+=("rendezvous tests"); }
step_done "tests, doc tests, rendezvous"
# Clippy over every target of every workspace member (custack, custack-derive,
# custack-rendezvous, custack-benches, custack-ui-tests, custack-safety), warnings denied: the
# lints of Cargo.toml's [workspace.lints] and src/lib.rs, and the module-level denials (such as
# `clippy::arithmetic_side_effects` in src/safety/ and src/deadline/). `--all-features` is the
# library features (every member's features are custack's: nvrtc, cublas, nccl, cufft,
# curand, cublaslt, nvml, cusparse); it builds without the libraries too, since build.rs then only warns and
# sets cfg(custack_no_*), so the same command holds on CI and on a machine without them.
cargo clippy --workspace --all-targets --all-features -- -D warnings || { status=1; failed+=(clippy); }
step_done "clippy"
# The API docs of every crate of the workspace, with every rustdoc warning denied (broken
# intra-doc links, unclosed HTML, ...). The docs need no CUDA (docs.rs builds them without it);
# tests/doc_aliases.rs, run above, checks that every driver wrapper has its doc alias and
# NVIDIA link.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet --workspace || { status=1; failed+=(rustdoc); }
step_done "rustdoc"
# What custack's build script printed in target directory $1 (cargo's layout: build/custack-HASH/
# output, or build/custack/HASH/run/stdout in newer cargo).
build_script_output() {
    find "$1/debug/build" \( -path '*/custack-*/output' -o -path '*/custack/*/run/stdout' \) \
        -type f -exec cat {} +
}
# The API docs as docs.rs builds them ([package.metadata.docs.rs] in Cargo.toml): DOCS_RS=1 (so
# build.rs searches for and links nothing, as in docs.rs's sandbox, which has no libcuda), none
# of the CUDA variables, `--cfg docsrs`, no network (--offline), with the nightly rustdoc that
# docs.rs uses where it is installed. Broken intra-doc links (the guide's included) are errors.
# Its own target directory, so the usual build is not rebuilt.
docsrs_check() {
    local toolchain=() out=$target_dir/docsrs
    rustup run nightly rustdoc --version >/dev/null 2>&1 && toolchain=(+nightly)
    env -u CUDA_DRIVER_LIB_DIR -u CUDA_LIBRARY_PATH -u CUDA_PATH -u CUDA_HOME -u CUDA_ROOT \
        -u CUDA_TOOLKIT_ROOT_DIR -u CUSTACK_REQUIRE_LIBCUDA \
        DOCS_RS=1 CARGO_TARGET_DIR="$out" \
        RUSTDOCFLAGS="--cfg docsrs -D rustdoc::broken_intra_doc_links -D rustdoc::private_intra_doc_links -D rustdoc::invalid_html_tags -D rustdoc::bare_urls" \
        cargo "${toolchain[@]}" doc --no-deps --offline --quiet --features nvrtc,cublas,nccl,cufft,curand,cublaslt,nvml,cusparse,cudnn,cusolver || return 1
    # `grep -x >/dev/null`, not `grep -q`: grep must read all of it, or the `cat` that writes a
    # second build directory's output dies of SIGPIPE and pipefail fails the check.
    if ! build_script_output "$out" | grep -x 'cargo:rustc-cfg=custack_no_libcuda' >/dev/null; then
        echo "scripts/test.sh: docs.rs build: build.rs did not take its DOCS_RS path" >&2
        return 1
    fi
    [[ -f $out/doc/custack/guide/index.html && -f $out/doc/custack/guide/scopes/index.html ]] ||
        { echo "scripts/test.sh: docs.rs build: the guide is missing from $out/doc" >&2; return 1; }
    echo "scripts/test.sh: docs.rs build: docs built with DOCS_RS=1, offline, no libcuda (${toolchain[*]:-stable} rustdoc), every intra-doc link resolved"
}
docsrs_check || { status=1; failed+=("docs.rs build"); }
step_done "docs.rs build"

# The README's first command, as a user runs it: real GPU work where there is a device, and
# otherwise one clear line and exit status 1 -- never a panic (exit 101), a signal, or a link
# error. Run twice: here, linked against the driver library chosen above; and as a new user
# would, in a fresh clone of the committed tree with none of the variables this script set (on
# a machine without the NVIDIA driver, build.rs then finds no libcuda and builds without GPU
# access: the example must still build and say so in one line).
# Returns its own result (0 or 1), whatever earlier steps did: the caller records a failure,
# so that the subshell below, which cannot set this shell's `status`, reports only its own.
first_command() { # LABEL, then the command's environment and directory are the caller's
    local label=$1 log rc=0 result=0
    log=$(mktemp)
    cargo run --quiet --release --example 01_vector_add >"$log" 2>&1 || rc=$?
    cat "$log"
    case $rc in
        0) echo "scripts/test.sh: example ($label): ran on the GPU" ;;
        1) if grep -q '^01_vector_add: no GPU work done: ' "$log" && ! grep -qE 'panicked|undefined symbol|error: linking' "$log"; then
               echo "scripts/test.sh: example ($label): no GPU here, and it said so in one line (exit 1)"
           else
               echo "scripts/test.sh: example ($label): exit 1 without the expected line" >&2; result=1
           fi ;;
        *) echo "scripts/test.sh: example ($label): exit $rc (a panic, a signal or a build failure)" >&2; result=1 ;;
    esac
    rm -f "$log"
    return "$result"
}
linked_label="this tree, libcuda from $dir"
first_command "$linked_label" || { status=1; failed+=("example ($linked_label)"); }
step_done "example"
if git rev-parse --git-dir >/dev/null 2>&1; then
    fresh=$target_dir/first-run/custack
    rm -rf "$fresh"
    git clone --quiet "$PWD" "$fresh"
    (
        cd "$fresh"
        unset CUDA_DRIVER_LIB_DIR
        if [[ -n ${user_ld_library_path+set} ]]; then
            export LD_LIBRARY_PATH=$user_ld_library_path
        else
            unset LD_LIBRARY_PATH
        fi
        export CARGO_TARGET_DIR=$target_dir/first-run/target
        first_command "a fresh clone, as a new user runs it"
    ) || { status=1; failed+=("example (a fresh clone)"); }
    # Plain `cargo test`, as a Rust user, a packager or a dependent's CI types it: in the fresh
    # clone, with none of the CUDA variables (on a machine without the NVIDIA driver, as CI's,
    # the build links no libcuda). It must pass; what needs the driver library says SKIPPED.
    plain_log=$target_dir/first-run/cargo-test.log
    if (
        cd "$fresh"
        if [[ -n ${user_ld_library_path+set} ]]; then
            export LD_LIBRARY_PATH=$user_ld_library_path
        else
            unset LD_LIBRARY_PATH
        fi
        env -u CUDA_DRIVER_LIB_DIR -u CUDA_LIBRARY_PATH -u CUDA_PATH -u CUDA_HOME -u CUDA_ROOT \
            -u CUDA_TOOLKIT_ROOT_DIR -u CUSTACK_REQUIRE_LIBCUDA \
            CARGO_TARGET_DIR="$target_dir/first-run/target" cargo test --no-fail-fast
    ) >"$plain_log" 2>&1; then
        awk '/^test result:/ { p += $4; f += $6; i += $8 } /: SKIPPED/ { s++ }
            END { printf "scripts/test.sh: plain cargo test (a fresh clone, no CUDA variables): %d passed, %d failed, %d ignored; %d tests said SKIPPED\n", p, f, i, s }' "$plain_log"
        if build_script_output "$target_dir/first-run/target" | grep -x 'cargo:rustc-cfg=custack_no_libcuda' >/dev/null; then
            echo "scripts/test.sh: plain cargo test: this machine has no libcuda, and that build linked none"
        fi
    else
        grep -E '^(test .* FAILED|---- |test result: FAILED|error)' "$plain_log" >&2 || true
        echo "scripts/test.sh: plain cargo test (a fresh clone, no CUDA variables) failed; its output: $plain_log" >&2
        status=1; failed+=("plain cargo test (a fresh clone)")
    fi
else
    echo "scripts/test.sh: example (a fresh clone): skipped, this is not a git checkout"
fi

# A crate that depends on custack, built as its users build it: custack's build script must look
# for libcuda and nothing else. python3 on PATH is replaced by a script that records being
# called; it must never be (the libraries' searches, which may run python3, belong to the
# features `cublas`, `cublaslt`, `nvrtc`, `nccl`, `cufft` and `curand`). Its own target directory; the lock file is custack's, so no dependency is resolved
# anew.
dependent_check() {
    local dep=$target_dir/dependent
    [[ -n $target_dir && $dep == */dependent ]] || die "dependent build: bad target directory '$target_dir'"
    rm -rf "$dep/crate" "$dep/bin" "$dep/python3-called"
    mkdir -p "$dep/crate/src" "$dep/bin"
    printf '%s\n' '[package]' 'name = "custack-dependent"' 'version = "0.0.0"' 'edition = "2024"' \
        'publish = false' '' '[dependencies]' "custack = { path = \"$PWD\" }" '' '[workspace]' \
        >"$dep/crate/Cargo.toml"
    echo 'fn main() { println!("{:?}", custack::driver_version()); }' >"$dep/crate/src/main.rs"
    cp Cargo.lock "$dep/crate/Cargo.lock"
    printf '#!/bin/sh\necho "python3 $*" >>"%s"\nexit 1\n' "$dep/python3-called" >"$dep/bin/python3"
    chmod +x "$dep/bin/python3"
    # custack's build script must run in this build (its dependencies may stay built).
    if ! (cd "$dep/crate" && export CARGO_TARGET_DIR=$dep/target &&
        cargo clean --quiet -p custack && PATH=$dep/bin:$PATH cargo build --quiet) \
        >"$dep/build.log" 2>&1; then
        cat "$dep/build.log" >&2
        echo "scripts/test.sh: dependent build: a crate depending on custack does not build" >&2
        return 1
    fi
    if [[ -e $dep/python3-called ]]; then
        echo "scripts/test.sh: dependent build: custack's build script ran python3:" >&2
        cat "$dep/python3-called" >&2
        return 1
    fi
    # The cfg declarations (`rustc-check-cfg=cfg(custack_no_cublas)`) name the libraries in
    # every build; anything else about them means a search.
    if build_script_output "$dep/target" | grep -v '^cargo:rustc-check-cfg=' |
        grep -iE 'cublas|nccl|nvrtc|cufft|curand|cusparse|cusolver' >/dev/null; then
        echo "scripts/test.sh: dependent build: custack's build script looked for cuBLAS, cuBLASLt, NCCL, NVRTC, cuFFT or cuRAND" >&2
        return 1
    fi
    echo "scripts/test.sh: dependent build: a crate depending on custack builds; no python3 run, no cuBLAS/cuBLASLt/NCCL/NVRTC/cuFFT/cuRAND search"
}
dependent_check || { status=1; failed+=("dependent build"); }
step_done "fresh clone, dependent build"

# docs/clippy-safety.toml, the clippy list for programs that use the restricted profile and also
# depend on the full crate: clippy must refuse each full-API call of the fixture
# tests/fixtures/clippy-safety/ and nothing of the profile's, and every path of the list must
# resolve (scripts/clippy-safety.sh; no GPU, its own target directory under target/).
bash scripts/clippy-safety.sh || { status=1; failed+=("clippy safety list"); }
step_done "clippy safety list"

# The CUDA libraries' features, which the steps above leave off. NVRTC runs on the CPU: its
# library is fetched like libcuda (the `nvidia-cuda-nvrtc-cu12` wheel, pinned to the driver's
# CUDA 12.2 so that its PTX is one the driver loads; scripts/fetch-libraries.sh), then its tests
# compile real CUDA C++ and check contracts against NVRTC's PTX (tests/nvrtc.rs), the GPU tests
# are built and ignored, the compile-fail tests of NVRTC-compiled modules run (ui-tests/nvrtc),
# and the example must run on a GPU or say in one line that there is none. cuBLAS (with
# cuBLASLt), NCCL, cuFFT, cuRAND and cuSPARSE (with its nvJitLink) are the 12.2 generation's too: linked and loaded, their
# checks' unit tests, doc tests and compile-fail tests run, their GPU tests are built and
# ignored; cuDNN 9.1 (feature `cudnn`, the `nvidia-cudnn-cu12` wheel) likewise, its descriptors
# set and checked against custack's shapes on the CPU. NVML (feature `nvml`) is the driver's:
# Debian's libnvidia-ml1 of the same release as libcuda1 (scripts/fetch-driver.sh ... nvml);
# its unit tests run on a simulated NVML, its GPU tests are built and ignored. A library that cannot be fetched fails the step: it is never
# skipped silently.
libraries_check() {
    local nvrtc_dir cublas_dir nccl_dir cufft_dir curand_dir nvml_dir deb_arch log rc=0 example
    local cusparse_dir
    local cudnn_dir
    local cusolver_dir
    nvrtc_dir=$(bash scripts/fetch-libraries.sh nvrtc "$target_dir/cuda-libs") || return 1
    cublas_dir=$(bash scripts/fetch-libraries.sh cublas "$target_dir/cuda-libs") || return 1
    nccl_dir=$(bash scripts/fetch-libraries.sh nccl "$target_dir/cuda-libs") || return 1
    cufft_dir=$(bash scripts/fetch-libraries.sh cufft "$target_dir/cuda-libs") || return 1
    curand_dir=$(bash scripts/fetch-libraries.sh curand "$target_dir/cuda-libs") || return 1
    # cuSPARSE, with the nvJitLink it needs beside it (found through its RUNPATH).
    cusparse_dir=$(bash scripts/fetch-libraries.sh cusparse "$target_dir/cuda-libs") || return 1
    local CUSTACK_CUSPARSE_LIB_DIR=$cusparse_dir
    export CUSTACK_CUSPARSE_LIB_DIR
    cudnn_dir=$(bash scripts/fetch-libraries.sh cudnn "$target_dir/cuda-libs") || return 1
    local CUSTACK_CUDNN_LIB_DIR=$cudnn_dir
    export CUSTACK_CUDNN_LIB_DIR
    # cuSOLVER, with the cuSPARSE and nvJitLink it loads beside it (found through its RUNPATH);
    # the cuBLAS it loads is the cublas directory, on LD_LIBRARY_PATH below.
    cusolver_dir=$(bash scripts/fetch-libraries.sh cusolver "$target_dir/cuda-libs") || return 1
    local CUSTACK_CUSOLVER_LIB_DIR=$cusolver_dir
    export CUSTACK_CUSOLVER_LIB_DIR
    deb_arch=$(dpkg --print-architecture) || return 1
    nvml_dir=$(bash scripts/fetch-driver.sh "$deb_arch" "$target_dir/nvml-driver" nvml) || return 1
    local CUSTACK_NVRTC_LIB_DIR=$nvrtc_dir CUSTACK_CUBLAS_LIB_DIR=$cublas_dir CUSTACK_NCCL_LIB_DIR=$nccl_dir
    local CUSTACK_CUFFT_LIB_DIR=$cufft_dir CUSTACK_CURAND_LIB_DIR=$curand_dir CUSTACK_CUBLASLT_LIB_DIR=$cublas_dir
    local CUSTACK_NVML_LIB_DIR=$nvml_dir
    export CUSTACK_NVRTC_LIB_DIR CUSTACK_CUBLAS_LIB_DIR CUSTACK_NCCL_LIB_DIR CUSTACK_CUFFT_LIB_DIR \
        CUSTACK_CURAND_LIB_DIR CUSTACK_CUBLASLT_LIB_DIR CUSTACK_NVML_LIB_DIR
    local LD_LIBRARY_PATH=$nvrtc_dir:$cublas_dir:$nccl_dir:$cufft_dir:$curand_dir:$nvml_dir:$cusparse_dir:$cudnn_dir:$cusolver_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
    local features=nvrtc,cublas,nccl,cufft,curand,cublaslt,nvml,cusparse,cudnn,cusolver
    # The features' unit tests (custack::blas's shape checks, cuBLAS statuses; NVRTC's; NCCL's
    # count checks and statuses; cuFFT's, cuRAND's and cuBLASLt's checks and statuses), their
    # integration tests (the GPU ones ignored here), doc tests and compile-fail tests.
    cargo test --no-fail-fast --features $features --lib -- blas nvrtc nccl fft rand blaslt health sparse dnn solver "$@" || return 1
    cargo test --no-fail-fast --features $features --test nvrtc --test gpu_nvrtc --test gpu_cublas \
        --test nccl --test gpu_nccl --test gpu_cufft --test gpu_curand --test gpu_cublaslt \
        --test gpu_health --test gpu_cusparse --test gpu_cudnn --test gpu_cusolver -- "$@" || return 1
    cargo test --no-fail-fast --features $features --doc -- nvrtc blas nccl fft rand health sparse dnn solver FromCudarc || return 1
    cargo test --no-fail-fast -p custack-ui-tests --features $features --test ui -- ui_nvrtc ui_cublas \
        ui_nccl ui_cufft ui_curand ui_cublaslt ui_cusparse ui_cudnn ui_cusolver || return 1
    # NVRTC under the checking driver (checkdriver/tests/nvrtc.rs, the double's one test that is
    # ignored without NVRTC): a kernel compiled and loaded clean, then under every schedule of
    # custack-check.
    cargo test --quiet --manifest-path checkdriver/Cargo.toml --target-dir "$target_dir/checkdriver" \
        -- --ignored || return 1
    # The features' API docs, every rustdoc warning denied, as the main step does without them.
    RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet --features $features || return 1
    for example in 18_nvrtc_clock 11_cublas 12_nccl 20_nccl_ranks 23_signal_chain 24_gpu_health \
        25_safety_redundant 27_cusparse 29_cudnn 30_cusolver; do
        log=$(mktemp); rc=0
        cargo run --quiet --release --features $features --example $example >"$log" 2>&1 || rc=$?
        cat "$log"
        case $rc in
            0) echo "scripts/test.sh: libraries: $example ran on the GPU" ;;
            1) grep -q "^$example: no GPU work done: " "$log" ||
                { echo "scripts/test.sh: libraries: $example failed without saying it had no GPU" >&2; rm -f "$log"; return 1; } ;;
            *) echo "scripts/test.sh: libraries: $example exited with $rc" >&2; rm -f "$log"; return 1 ;;
        esac
        rm -f "$log"
    done
    echo "scripts/test.sh: libraries: NVRTC from $nvrtc_dir, cuBLAS and cuBLASLt from $cublas_dir, NCCL from $nccl_dir, cuFFT from $cufft_dir, cuRAND from $curand_dir, cuSPARSE from $cusparse_dir, NVML from $nvml_dir, cuDNN from $cudnn_dir, cuSOLVER from $cusolver_dir: tests, doc tests, compile-fail tests and the examples passed"
}
libraries_check "$@" || { status=1; failed+=("libraries (nvrtc, cublas, nccl, cufft, curand, cublaslt, nvml, cusparse, cudnn, cusolver)"); }
step_done "libraries"

# The MSRV each published crate's Cargo.toml declares (`rust-version`), checked on its library
# (dev-dependencies, and the unpublished crates' trybuild and cudarc, need newer compilers, and
# users do not build them). A
# toolchain is installed with rustup if it is missing; where that is impossible the step says
# plainly that it skipped.
msrv_check() { # MANIFEST PACKAGE
    local msrv
    msrv=$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' "$1")
    if [[ -z $msrv ]]; then
        echo "scripts/test.sh: msrv: $2 declares none in $1" >&2
        return 1
    fi
    if ! command -v rustup >/dev/null ||
        ! { rustup run "$msrv" rustc --version >/dev/null 2>&1 ||
            rustup toolchain install "$msrv" --profile minimal >/dev/null 2>&1; }; then
        echo "scripts/test.sh: msrv: SKIPPED $2, Rust $msrv is not installed and rustup cannot install it here"
        msrv_skipped+=" $2"
        return 0
    fi
    if CARGO_TARGET_DIR=$target_dir/msrv cargo "+$msrv" check --quiet --lib -p "$2"; then
        echo "scripts/test.sh: msrv: $2's library builds with Rust $msrv"
    else
        echo "scripts/test.sh: msrv: $2's library does not build with Rust $msrv, the rust-version $1 declares" >&2
        return 1
    fi
}
msrv_skipped=
for crate in Cargo.toml:custack derive/Cargo.toml:custack-derive rendezvous/Cargo.toml:custack-rendezvous; do
    msrv_check "${crate%%:*}" "${crate#*:}" || { status=1; failed+=("msrv (${crate#*:})"); }
done
[[ -z $msrv_skipped ]] || msrv_skipped=" (skipped:$msrv_skipped)"
step_done "msrv"

# The release as a dry run: `cargo publish --workspace --dry-run` packages custack-derive,
# custack-rendezvous and custack in dependency order and builds each package as a user gets it
# (custack against the other two as packaged, through cargo's local overlay, before they are on
# the registry). Then what each package holds, against the list of what a user and docs.rs
# need: the library's sources, the README, the licences (custack: also ffi/, the build script
# and build/, the CHANGELOG, and what its unit and doc tests read: two PTX fixtures and the three
# docs pages whose examples are doc tests); no integration or ui tests, examples, benches, other
# docs pages, scripts or build outputs. Any other warning than cargo's note for each of those
# targets fails the step. custack-benches and custack-ui-tests (publish = false) are not packaged.
publish_check() {
    local log=$target_dir/publish-dry-run.log listing bad missing order name allowed required f version
    if ! cargo publish --workspace --dry-run --allow-dirty >"$log" 2>&1; then
        cat "$log" >&2
        echo "scripts/test.sh: package: cargo publish --workspace --dry-run failed (above)" >&2
        return 1
    fi
    # cargo drops the test, bench and example targets whose files the package leaves out, and
    # says so for each; warns that a version is already on the registry (after a release, until
    # the next version is set); and ends a dry run with "aborting upload". What custack's build
    # script says while the package is built (a libcuda it did not find, a toolkit stub) is
    # about this machine, not the package: shown, not failed on.
    grep -E '^warning: custack@[^ ]+: ' "$log" || true
    bad=$(grep '^warning' "$log" | grep -vE '^warning: custack@[^ ]+: ' |
        grep -vE '^warning: ignoring (test|benchmark|example) `[^`]+` as `(tests|benches|examples)/[^`]+` is not included in the published package$' |
        grep -vE '^warning: crate custack(-derive|-rendezvous)?@[^ ]+ already exists on ' |
        grep -vx 'warning: aborting upload due to dry run' || true)
    if [[ -n $bad ]]; then
        echo "$bad" >&2
        echo "scripts/test.sh: package: unexpected warnings from cargo publish --dry-run (above; the whole log: $log)" >&2
        return 1
    fi
    order=$(sed -n 's/^ *Uploading \([^ ]*\) .*/\1/p' "$log" | paste -sd' ')
    if [[ $order != "custack-derive custack-rendezvous custack" ]]; then
        echo "scripts/test.sh: package: the release would upload '$order', not custack-derive, custack-rendezvous, custack in that order" >&2
        return 1
    fi
    # What is released is in the CHANGELOG: a heading for the version Cargo.toml states (the
    # release commit gives it its date).
    version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -1)
    if ! grep -qE "^## \[${version//./\\.}\]" CHANGELOG.md; then
        echo "scripts/test.sh: package: CHANGELOG.md has no entry for $version, the version Cargo.toml states" >&2
        return 1
    fi
    for name in custack-derive custack-rendezvous custack; do
        listing=$(cargo package --list --allow-dirty --quiet -p "$name" 2>&1) || {
            echo "$listing" >&2
            echo "scripts/test.sh: package: cargo package --list -p $name failed" >&2
            return 1
        }
        allowed='src/.*\.rs|README\.md|LICENSE-MIT|LICENSE-APACHE|Cargo\.toml|Cargo\.toml\.orig|Cargo\.lock|\.cargo_vcs_info\.json'
        required=(src/lib.rs README.md LICENSE-MIT LICENSE-APACHE)
        if [[ $name == custack ]]; then
            allowed+='|ffi/.*\.rs|build\.rs|build/.*\.rs|CHANGELOG\.md|tests/fixtures/(kernels|contracts)\.ptx'
            allowed+='|docs/(features|interop|from-cudarc|from-cuda-core)\.md'
            # The comparison kernel's CUDA C, which ReplicasCompare::SOURCE includes.
            allowed+='|src/safety/replicas_compare\.cu'
            required+=(ffi/mod.rs build.rs CHANGELOG.md tests/fixtures/kernels.ptx tests/fixtures/contracts.ptx
                docs/features.md docs/interop.md docs/from-cudarc.md docs/from-cuda-core.md
                src/safety/replicas_compare.cu)
        fi
        bad=$(grep -vxE "$allowed" <<<"$listing" || true)
        missing=
        for f in "${required[@]}"; do
            grep -qxF "$f" <<<"$listing" || missing+=" $f"
        done
        if [[ -n $bad || -n $missing ]]; then
            bad=${bad//$'\n'/ }
            echo "scripts/test.sh: package: $name: should not be there: ${bad:-none}; missing:${missing:- none}" >&2
            return 1
        fi
        echo "scripts/test.sh: package: $name: $(wc -l <<<"$listing") files: its sources, README, licences$([[ $name == custack ]] && echo ', CHANGELOG, what its unit and doc tests read'); nothing else"
    done
    echo "scripts/test.sh: package: cargo publish --workspace --dry-run packaged, built and would upload custack-derive, custack-rendezvous, custack, in that order"
}
publish_check || { status=1; failed+=(package); }

# The packaged crate's own tests, as a user (or a distribution that tests what it packages) runs
# them on the .crate: `cargo package --no-verify` for the three published crates, each unpacked
# outside the repository, then custack's unit tests and doc tests there. They read the PTX
# fixtures and the docs pages the package includes; the integration tests and examples are not
# in it. custack-derive and custack-rendezvous, not on the registry before the release, come from
# their own unpacked packages (a [patch]); everything else from cargo's cache (--offline). Its
# own target directory, so the usual build is not rebuilt.
package_tests() {
    local dir crate version log=$target_dir/package-tests.log
    local patch=()
    version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -1)
    if ! cargo package --no-verify --allow-dirty --quiet -p custack-derive -p custack-rendezvous \
        -p custack >"$log" 2>&1; then
        cat "$log" >&2
        echo "scripts/test.sh: packaged crate: cargo package --no-verify failed (above)" >&2
        return 1
    fi
    dir=$(mktemp -d)
    for crate in custack-derive custack-rendezvous custack; do
        tar -xzf "$target_dir/package/$crate-$version.crate" -C "$dir" || return 1
    done
    for crate in custack-derive custack-rendezvous; do
        patch+=(--config "patch.crates-io.$crate.path='$dir/$crate-$version'")
    done
    if ! (
        cd "$dir/custack-$version"
        export CARGO_TARGET_DIR=$target_dir/package-tests
        cargo test --offline --no-fail-fast "${patch[@]}" --lib &&
            cargo test --offline --no-fail-fast "${patch[@]}" --doc
    ) >>"$log" 2>&1; then
        grep -E '^(error|test .* FAILED|test result: FAILED)' "$log" >&2 || true
        echo "scripts/test.sh: packaged crate: custack-$version.crate's own tests fail in the unpacked package; the whole log: $log" >&2
        rm -rf "$dir"
        return 1
    fi
    rm -rf "$dir"
    awk '/^test result:/ { p += $4; f += $6; i += $8 }
        END { printf "scripts/test.sh: packaged crate: the unit and doc tests of custack in its unpacked .crate: %d passed, %d failed, %d ignored\n", p, f, i }' "$log"
}
package_tests || { status=1; failed+=("packaged crate's tests"); }
step_done "package"

# R10: the P-patterns and the example under the checking driver, each driver call failed once
# and made sticky once (scripts/check-driver.sh; no GPU, its own target directories).
bash scripts/check-driver.sh || { status=1; failed+=("checking driver"); }
# Again with every failed call returning CUDA_ERROR_INVALID_VALUE, which is not sticky: a scope
# whose synchronize fails so must still not release its memory while its work may run, nor a
# module unload its code (parked_graph: modules owned by graphs, unloaded by parked drops).
NULLDRIVER_FAIL_CODE=1 CHECK_PROGRAMS="example p1 p3 scoped_alloc reuse_after_scope parked_graph" \
    bash scripts/check-driver.sh || { status=1; failed+=("checking driver, non-sticky failures"); }
# The checking driver as a user's tool: custack-check's own tests, then
# examples/checked-app (a crate depending on custack by path) under every fault schedule: its
# fixed program passes, its buggy twin's leak is reported with the failed call's number and name.
cargo test --quiet --manifest-path checkdriver/Cargo.toml --target-dir "$target_dir/checkdriver" ||
    { status=1; failed+=("custack-check's tests"); }
bash scripts/checked-app.sh || { status=1; failed+=("checked-app under custack-check"); }
# The crates of the checking driver are outside the workspace, so each states the workspace's
# lints in its own [lints] (checkdriver/tests/lints.rs keeps them equal): clippy over the
# double, the trace interposer and comparer, and the checking programs (built against the
# double's directory, as scripts/check-driver.sh builds them), warnings denied, each in the
# target directory its scripts use.
cargo clippy --quiet --manifest-path checkdriver/Cargo.toml --target-dir "$target_dir/checkdriver" \
    --all-targets -- -D warnings || { status=1; failed+=("clippy of checkdriver"); }
cargo clippy --quiet --manifest-path checkdriver/trace/Cargo.toml --target-dir "$target_dir/trace" \
    --all-targets -- -D warnings || { status=1; failed+=("clippy of checkdriver/trace"); }
# (With the features of the programs on the libraries' stand-ins, which scripts/check-driver.sh
# put in the double's directory above.)
CUDA_DRIVER_LIB_DIR=$target_dir/checkdriver/check-lib \
    CUSTACK_CUSOLVER_LIB_DIR=$target_dir/checkdriver/check-lib \
    CUSTACK_CUSPARSE_LIB_DIR=$target_dir/checkdriver/check-lib \
    CUSTACK_CUDNN_LIB_DIR=$target_dir/checkdriver/check-lib \
    CUSTACK_CUBLAS_LIB_DIR=$target_dir/checkdriver/check-lib \
    CUSTACK_CUBLASLT_LIB_DIR=$target_dir/checkdriver/check-lib \
    CUSTACK_NCCL_LIB_DIR=$target_dir/checkdriver/check-lib cargo clippy --quiet \
    --manifest-path benches/checking/Cargo.toml --target-dir "$target_dir/check-driver" \
    --features cusolver,cusparse,cudnn,cublas,cublaslt,nccl \
    --all-targets -- -D warnings || { status=1; failed+=("clippy of benches/checking"); }
step_done "checking driver"

# The process-wide states (the confinement's latch, the count of restricted contexts, the
# poison's record, the safe state's entry) under every interleaving of their model tests' two
# or three threads: loom, a cfg(loom) dev-dependency, in its own target directory
# (scripts/loom.sh; about two minutes, most of it the build).
bash scripts/loom.sh || { status=1; failed+=(loom); }
step_done "loom"

# Miri over custack's unsafe code, against the same double linked as an rlib (scripts/miri.sh),
# under Stacked Borrows and Tree Borrows. What it needs (a nightly toolchain with the miri and
# rust-src components) is installed with rustup when missing, as the MSRV toolchain is; the step
# is skipped only where rustup itself is missing, and says so. A failed install fails the step.
miri_log=$(mktemp)
if ! command -v rustup >/dev/null; then
    echo "scripts/test.sh: miri: SKIPPED, rustup is not installed (it installs the nightly toolchain with Miri)"
    miri_summary=" (skipped: no rustup)"
elif ! { cargo +nightly miri --version >/dev/null 2>&1 ||
    rustup toolchain install nightly --component miri,rust-src --profile minimal >/dev/null 2>&1; } ||
    ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "scripts/test.sh: miri: rustup could not install a nightly toolchain with Miri (rustup toolchain install nightly --component miri,rust-src)" >&2
    status=1; failed+=(miri)
elif MIRI_REQUIRED=1 bash scripts/miri.sh 2>&1 | tee "$miri_log"; then
    # The last line of scripts/miri.sh counts what ran: "miri: ... (N s)".
    miri_summary=" ($(sed -n 's/^miri: total: //p' "$miri_log" | tail -1))"
else
    status=1; failed+=(miri)
fi
rm -f "$miri_log"
step_done "miri"

# The platform legs: aarch64 under qemu, Windows under Wine, the MSVC and QNX checks
# (scripts/platforms.sh installs what they need; each leg passes, fails or says why it skipped).
platforms_log=$(mktemp)
bash scripts/platforms.sh 2>&1 | tee "$platforms_log" || { status=1; failed+=(platforms); }
platforms_summary=$(sed -n 's/^platforms: summary: //p' "$platforms_log")
rm -f "$platforms_log"
step_done "platforms"

# One line to end on, whatever scrolled past.
joined_times=$(printf '%s, ' "${timings[@]}")
echo "scripts/test.sh: time: $SECONDS s in all: ${joined_times%, }; disk: ${free_at_start:-?} GiB free at the start, ${lowest_free:-?} at the least"
if ((status == 0)); then
    echo "scripts/test.sh: all passed: tests, doc tests, the rendezvous tests, clippy, rustdoc, the docs.rs build, the first command (linked and in a fresh clone), plain cargo test (a fresh clone), a dependent build, the clippy safety list, the libraries (nvrtc, cublas, nccl, cufft, curand, cublaslt, nvml), MSRV${msrv_skipped:-}, the release dry run and packages, the packaged crate's tests, checking driver, loom, Miri${miri_summary:-}, platforms (${platforms_summary:-none ran})"
else
    joined=$(printf '%s, ' "${failed[@]}")
    echo "scripts/test.sh: FAILED: ${joined%, }${platforms_summary:+; platforms: $platforms_summary}" >&2
fi
exit "$status"
