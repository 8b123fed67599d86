#!/usr/bin/env bash
# The platform legs of the test command, none of which needs a GPU; each prints its
# own line, and the last line ("platforms: summary: ...") lists each leg as passed, FAILED or
# skipped with its reason. scripts/test.sh runs this; it also runs on its own:
#
#   bash scripts/platforms.sh            # every leg
#   PLATFORM_LEGS="aarch64 qnx" bash scripts/platforms.sh
#
# Legs:
#   aarch64       cross-build for aarch64-unknown-linux-gnu (Debian's gcc-aarch64-linux-gnu),
#                 linked against Debian's arm64 libcuda1 (fetched, not installed, by
#                 scripts/fetch-driver.sh): the library's unit tests and the GPU-less test
#                 binaries run under qemu-aarch64 (Debian's qemu-user) and pass, and
#                 01_vector_add says its one no-GPU line; the build machine's x86_64 libcuda,
#                 named with CUDA_DRIVER_LIB_DIR, must be refused for the aarch64 target.
#   windows       cross-build for x86_64-pc-windows-gnu (Debian's mingw-w64): the same tests and
#                 01_vector_add run under Wine (Debian's wine64), where there is no nvcuda.dll:
#                 the GPU-less build; then 01_vector_add linked to nvcuda.dll (raw-dylib, forced
#                 with CUSTACK_REQUIRE_LIBCUDA=1) must import nvcuda.dll.
#   windows-msvc  cargo check --target x86_64-pc-windows-msvc: every target of custack, of
#                 custack-benches (tests, examples, benches) and of custack-ui-tests in the
#                 GPU-less build, the library and 01_vector_add in the raw-dylib one.
#   qnx           cargo +nightly check -Zbuild-std --target aarch64-unknown-nto-qnx710 --lib
#                 (a tier-3 target: no prebuilt std, no linker here; a check is as far as it goes).
#
# What the legs need is installed the way scripts/test.sh fetches the driver: apt-get install
# (as root, or through sudo -n) and rustup target add / component add. A leg is skipped, with
# its reason, only where that cannot work (no apt-get, no root, no rustup).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
target_dir=$(realpath -m "${CARGO_TARGET_DIR:-target}")
legs=${PLATFORM_LEGS:-aarch64 windows windows-msvc qnx}
summary=()
status=0

say() { echo "platforms: $*"; }

# The test binaries the cross legs run: the library's unit tests and the integration tests that
# need no GPU and no cargo (the ui test, custack-ui-tests', runs cargo; the gpu_* tests are all
# #[ignore]d without a device). Windows runs the GPU-less build, where no_device.rs checks the
# no-driver answer; aarch64 links the real arm64 driver, so it also runs the tests that read the
# driver's own error strings and version (errors, lookup) and checks its symbols (symbols,
# Linux-only).
gpu_less_tests=(--lib --test build_search --test error_api --test no_device --test patterns
    --test zero_alloc)
driver_tests=(--test errors --test lookup --test symbols)

# apt-get install for the packages whose command or file is missing; prints a reason and
# fails where it cannot install.
apt_missing=()
need_apt() { # PACKAGE PATH_OR_COMMAND ...pairs
    apt_missing=()
    while (($#)); do
        if ! command -v "$2" >/dev/null 2>&1 && [[ ! -e $2 ]]; then
            apt_missing+=("$1")
        fi
        shift 2
    done
    ((${#apt_missing[@]})) || return 0
    local sudo=()
    if [[ $(id -u) != 0 ]]; then
        sudo -n true 2>/dev/null || { echo "needs ${apt_missing[*]} (not root, no sudo to install them)"; return 1; }
        sudo=(sudo -n)
    fi
    command -v apt-get >/dev/null || { echo "needs ${apt_missing[*]} and there is no apt-get"; return 1; }
    local log
    log=$(mktemp)
    echo "platforms: installing ${apt_missing[*]}" >&2
    if ! { "${sudo[@]}" apt-get -q update && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -q install -y \
        --no-install-recommends "${apt_missing[@]}"; } >"$log" 2>&1; then
        tail -20 "$log" >&2
        rm -f "$log"
        echo "apt-get install ${apt_missing[*]} failed"
        return 1
    fi
    rm -f "$log"
}

need_rust_target() { # [+TOOLCHAIN] TRIPLE
    local tc=() triple
    [[ $1 == +* ]] && { tc=(--toolchain "${1#+}"); shift; }
    triple=$1
    command -v rustup >/dev/null || { echo "no rustup to add the $triple target with"; return 1; }
    rustup target list --installed "${tc[@]}" 2>/dev/null | grep -qx "$triple" && return 0
    rustup target add "${tc[@]}" "$triple" >/dev/null 2>&1 || { echo "rustup target add $triple failed"; return 1; }
}

# Runs 01_vector_add with cargo's runner for the target and checks for its one no-GPU line
# (exit 1, "01_vector_add: no GPU work done: ..."), never a panic, a crash or a loader error.
first_command() { # LABEL TRIPLE
    local label=$1 triple=$2 log rc=0
    log=$(mktemp)
    cargo run --quiet --target "$triple" --example 01_vector_add >"$log" 2>&1 || rc=$?
    if ((rc == 1)) && grep -q '^01_vector_add: no GPU work done: ' "$log" &&
        ! grep -qE 'panicked|error while loading|c0000135|not found' "$log"; then
        say "$label: 01_vector_add said its line: $(grep -m1 '^01_vector_add: ' "$log")"
        rm -f "$log"
        return 0
    fi
    cat "$log" >&2
    rm -f "$log"
    say "$label: 01_vector_add exited $rc without its one no-GPU line" >&2
    return 1
}

record() { # LEG START RESULT [REASON]
    local leg=$1 secs=$((SECONDS - $2)) result=$3 reason=${4:-}
    case $result in
        passed) summary+=("$leg passed (${secs}s)"); say "$leg: passed in ${secs}s" ;;
        skipped) summary+=("$leg skipped: $reason"); say "$leg: SKIPPED: $reason" ;;
        *) summary+=("$leg FAILED"); say "$leg: FAILED after ${secs}s${reason:+: $reason}" >&2; status=1 ;;
    esac
}

leg_aarch64() {
    local start=$SECONDS why dir host_dir=${CUDA_DRIVER_LIB_DIR:-}
    if [[ $(uname -m) == aarch64 ]]; then
        record aarch64 "$start" skipped "this machine is aarch64: the native suite is this leg"
        return
    fi
    why=$(need_apt gcc-aarch64-linux-gnu aarch64-linux-gnu-gcc libc6-dev-arm64-cross \
        /usr/aarch64-linux-gnu/lib/libc.so qemu-user qemu-aarch64) || { record aarch64 "$start" skipped "$why"; return; }
    why=$(need_rust_target aarch64-unknown-linux-gnu) || { record aarch64 "$start" skipped "$why"; return; }
    dir=$(bash scripts/fetch-driver.sh arm64 "$target_dir/cuda-driver-arm64") ||
        { record aarch64 "$start" failed "fetching Debian's arm64 libcuda1 failed"; return; }
    # Linked against the arm64 libcuda (CUSTACK_REQUIRE_LIBCUDA: finding none is an error, not
    # a GPU-less build); the guest's loader finds it and its libc through qemu's -L and -E.
    if (
        export CUDA_DRIVER_LIB_DIR=$dir CUSTACK_REQUIRE_LIBCUDA=1
        export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
        export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$dir"
        # A test that runs its own binary again in a child process (tests/error_api.rs) runs it
        # through the same emulator.
        export CUSTACK_TEST_RUNNER=$CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER
        cargo test --quiet --target aarch64-unknown-linux-gnu "${gpu_less_tests[@]}" "${driver_tests[@]}" || exit 1
        first_command aarch64 aarch64-unknown-linux-gnu || exit 1
        # The build machine's own x86_64 libcuda, named explicitly, is refused for the target.
        if [[ -n $host_dir && -e $host_dir/libcuda.so.1 ]]; then
            local log
            if log=$(CUDA_DRIVER_LIB_DIR=$host_dir cargo check --quiet --target aarch64-unknown-linux-gnu --lib 2>&1); then
                say "aarch64: build.rs accepted the x86_64 libcuda in $host_dir for aarch64" >&2
                exit 1
            fi
            grep -q "for another architecture than the target's (aarch64)" <<<"$log" || { echo "$log" >&2; exit 1; }
            say "aarch64: build.rs refuses the build machine's x86_64 libcuda ($host_dir) for the aarch64 target"
        fi
    ); then
        record aarch64 "$start" passed
    else
        record aarch64 "$start" failed
    fi
}

# Wine before 9.0 (Debian 12 ships 8.0) has no bcryptprimitives.dll, whose ProcessPrng the Rust
# standard library imports since Rust 1.78: the prefix gets a two-function stand-in built with
# mingw (RtlGenRandom underneath). Test-harness plumbing for old Wine only, not part of custack.
wine_prefix() {
    local prefix=$target_dir/wine sys shim
    sys=$prefix/drive_c/windows/system32
    export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
    if [[ ! -d $sys ]]; then
        mkdir -p "$prefix"
        "$wine" wineboot --init >/dev/null 2>&1 || true
    fi
    [[ -d $sys ]] || return 1
    if [[ ! -e $sys/bcryptprimitives.dll ]] && ! find /usr/lib/x86_64-linux-gnu/wine /usr/lib/wine \
        -iname bcryptprimitives.dll -print -quit 2>/dev/null | grep -q .; then
        shim=$target_dir/wine-shim
        mkdir -p "$shim"
        printf '%s\n' '#include <windows.h>' \
            'BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);' \
            'BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {' \
            '    while (len) {' \
            '        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;' \
            '        if (!SystemFunction036(data, n)) return FALSE;' \
            '        data += n; len -= n;' \
            '    }' \
            '    return TRUE;' \
            '}' >"$shim/bcryptprimitives.c"
        x86_64-w64-mingw32-gcc -O2 -shared -o "$sys/bcryptprimitives.dll" "$shim/bcryptprimitives.c" -ladvapi32 || return 1
    fi
}

leg_windows() {
    local start=$SECONDS why exe imports
    why=$(need_apt gcc-mingw-w64-x86-64 x86_64-w64-mingw32-gcc wine64 /usr/lib/wine/wine64) ||
        { record windows "$start" skipped "$why"; return; }
    why=$(need_rust_target x86_64-pc-windows-gnu) || { record windows "$start" skipped "$why"; return; }
    wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
    wine_prefix || { record windows "$start" failed "could not set up the Wine prefix $target_dir/wine"; return; }
    # No nvcuda.dll anywhere here: the GPU-less build, whatever the Linux side links.
    if (
        unset CUDA_DRIVER_LIB_DIR CUSTACK_REQUIRE_LIBCUDA
        export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=$wine
        cargo test --quiet --target x86_64-pc-windows-gnu "${gpu_less_tests[@]}" &&
            first_command windows x86_64-pc-windows-gnu
    ); then
        :
    else
        record windows "$start" failed
        return
    fi
    # Linked to the driver: nvcuda.dll named by raw-dylib, no toolkit, no LoadLibrary.
    exe=$target_dir/x86_64-pc-windows-gnu/debug/examples/01_vector_add.exe
    if (unset CUDA_DRIVER_LIB_DIR && CUSTACK_REQUIRE_LIBCUDA=1 cargo build --quiet \
        --target x86_64-pc-windows-gnu --example 01_vector_add) &&
        imports=$(x86_64-w64-mingw32-objdump -p "$exe") && grep -qi 'DLL Name: nvcuda.dll' <<<"$imports"; then
        say "windows: 01_vector_add built with CUSTACK_REQUIRE_LIBCUDA=1 imports nvcuda.dll (raw-dylib)"
        record windows "$start" passed
    else
        record windows "$start" failed "the raw-dylib build does not import nvcuda.dll"
    fi
}

leg_windows_msvc() {
    local start=$SECONDS why
    why=$(need_rust_target x86_64-pc-windows-msvc) || { record windows-msvc "$start" skipped "$why"; return; }
    if (
        unset CUDA_DRIVER_LIB_DIR CUSTACK_REQUIRE_LIBCUDA
        cargo check --quiet --target x86_64-pc-windows-msvc -p custack -p custack-benches \
            -p custack-ui-tests --all-targets &&
            CUSTACK_REQUIRE_LIBCUDA=1 cargo check --quiet --target x86_64-pc-windows-msvc --lib --example 01_vector_add
    ); then
        record windows-msvc "$start" passed
    else
        record windows-msvc "$start" failed
    fi
}

leg_qnx() {
    local start=$SECONDS
    if ! command -v rustup >/dev/null; then
        record qnx "$start" skipped "no rustup to install a nightly toolchain with"
        return
    fi
    if ! rustup run nightly rustc --version >/dev/null 2>&1 &&
        ! rustup toolchain install nightly --profile minimal --component rust-src >/dev/null 2>&1; then
        record qnx "$start" skipped "no nightly toolchain, and rustup cannot install one"
        return
    fi
    if ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src' &&
        ! rustup component add rust-src --toolchain nightly >/dev/null 2>&1; then
        record qnx "$start" skipped "nightly has no rust-src, and rustup cannot add it"
        return
    fi
    # Its own target directory: another toolchain, and -Zbuild-std builds std for the target.
    if (
        unset CUDA_DRIVER_LIB_DIR CUSTACK_REQUIRE_LIBCUDA
        CARGO_TARGET_DIR=$target_dir/qnx cargo +nightly check --quiet -Zbuild-std \
            --target aarch64-unknown-nto-qnx710 --lib
    ); then
        record qnx "$start" passed
    else
        record qnx "$start" failed
    fi
}

for leg in $legs; do
    case $leg in
        aarch64) leg_aarch64 ;;
        windows) leg_windows ;;
        windows-msvc) leg_windows_msvc ;;
        qnx) leg_qnx ;;
        *) say "unknown leg '$leg' (aarch64, windows, windows-msvc, qnx)" >&2; status=1 ;;
    esac
done

joined=$(printf '%s, ' "${summary[@]}")
say "summary: ${joined%, }"
exit "$status"
