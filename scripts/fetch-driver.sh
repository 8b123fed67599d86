#!/usr/bin/env bash
# Fetches the NVIDIA driver's libcuda for a Debian architecture, without installing it: from the
# distribution's own archive (Debian: libcuda1 from non-free; Ubuntu: libnvidia-compute-535 from
# restricted), with a private apt configuration derived from this machine's apt sources, and
# unpacked with dpkg -x. Prints the directory holding libcuda.so.1.
#
#   bash scripts/fetch-driver.sh ARCH DEST     # ARCH: amd64, arm64; DEST: e.g. target/cuda-driver-arm64
#   bash scripts/fetch-driver.sh ARCH DEST nvml
#
# With `nvml`, it fetches the driver's NVML instead (Debian: libnvidia-ml1, of the same release
# and version as libcuda1; Ubuntu: libnvidia-compute-535, which holds it) and prints the
# directory holding libnvidia-ml.so.1: the feature `nvml` links it (CUSTACK_NVML_LIB_DIR). Use a
# DEST of its own (e.g. target/nvml-driver).
#
# With `vulkan`, it fetches the Vulkan loader instead (libvulkan1, from the release's main
# component) and prints the directory holding libvulkan.so.1; scripts/fetch-vulkan.sh calls it
# so and writes the ICD manifest beside it.
#
# Nothing outside DEST changes: no dpkg --add-architecture, no apt-get install; apt's lists,
# cache and sources for this fetch live in DEST/apt. A second run reuses DEST/root.
set -euo pipefail

die() { echo "scripts/fetch-driver.sh: $*" >&2; exit 1; }
(($# == 2 || $# == 3)) || die "usage: fetch-driver.sh ARCH DEST [nvml|vulkan]"
deb_arch=$1
fetch_dir=$(realpath -m "$2")
what=${3:-cuda}
[[ $what == cuda || $what == nvml || $what == vulkan ]] ||
    die "the third argument, if any, is nvml or vulkan (not $what)"
# The library this fetch is for.
wanted=libcuda.so.1
[[ $what == nvml ]] && wanted=libnvidia-ml.so.1
[[ $what == vulkan ]] && wanted=libvulkan.so.1

# Prints "URI SUITE [SIGNED_BY]" for each enabled binary source of this machine: the one-line
# format (sources.list, sources.list.d/*.list) and deb822 (sources.list.d/*.sources). Files with
# any other suffix (*.disabled, *.save, ...) are ignored, as apt ignores them.
machine_sources() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -f $f ]] || continue
        awk '
            { sub(/#.*/, "") }
            $1 != "deb" { next }
            {
                signed = ""; i = 2
                if ($2 ~ /^\[/) {                       # [arch=amd64 signed-by=/path ...]
                    for (; i <= NF; i++) {
                        if ($i ~ /^\[?signed-by=/) { signed = $i; sub(/^\[?signed-by=/, "", signed); sub(/\]$/, "", signed) }
                        if ($i ~ /\]$/) { i++; break }
                    }
                }
                print $i, $(i + 1), signed
            }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -f $f ]] || continue
        # Stanzas are separated by blank lines; continuation lines start with a space.
        awk '
            function flush(   n, u, s, uris, suites, a, b) {
                if (types ~ /(^| )deb( |$)/ && enabled !~ /^(no|false|0)$/) {
                    n = split(uri, uris, " "); split(suite, suites, " ")
                    for (a = 1; a <= n; a++) for (b in suites) print uris[a], suites[b], signed
                }
                types = uri = suite = signed = enabled = ""; key = ""
            }
            /^#/ { next }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]/ { next }                           # continuation (an inline key): skip
            {
                key = tolower($0); sub(/:.*/, "", key)
                val = $0; sub(/^[^:]*:[ \t]*/, "", val)
                if (key == "types") types = val
                else if (key == "uris") uri = val
                else if (key == "suites") suite = val
                else if (key == "signed-by") signed = (val ~ /^\//) ? val : ""
                else if (key == "enabled") enabled = tolower(val)
            }
            END { flush() }' "$f"
    done
}

if [[ -d $fetch_dir/root ]]; then
    lib=$(find "$fetch_dir/root" -name "$wanted" -print -quit)
    if [[ -n $lib ]]; then
        dirname "$lib"
        exit 0
    fi
fi
{ command -v apt-get && command -v dpkg; } >/dev/null ||
    die "no apt-get/dpkg to fetch $wanted for $deb_arch with"

id="" id_like="" codename=""
# shellcheck disable=SC1091
if [[ -r /etc/os-release ]]; then
    . /etc/os-release
    id=${ID:-} id_like=${ID_LIKE:-} codename=${VERSION_CODENAME:-}
fi
if [[ " $id $id_like " == *" ubuntu "* ]]; then
    # Ubuntu (best effort, untested: CI runs Debian). arm64 lives on Ubuntu's ports archive,
    # which this machine's sources (for amd64) do not name: only amd64 is fetched there.
    [[ $deb_arch == "$(dpkg --print-architecture)" ]] ||
        die "on Ubuntu only the machine's own architecture can be fetched ($deb_arch lives on the ports archive)"
    component=restricted
    packages=(libnvidia-compute-535)
    [[ $what == vulkan ]] && component=main packages=(libvulkan1)
    skip='-(backports|proposed)$'
else
    # Debian: the release suite's non-free (535.x on bookworm), for every architecture Debian
    # builds the driver for (amd64, arm64, ppc64el) from the same archive.
    component=non-free
    packages=(libcuda1 libnvidia-ptxjitcompiler1)
    [[ $what == nvml ]] && packages=(libnvidia-ml1)
    [[ $what == vulkan ]] && component=main packages=(libvulkan1)
    skip='-(security|updates|backports|proposed)$|/updates$'
fi

apt=$fetch_dir/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$fetch_dir/debs"
: >"$apt/sources.list"
while read -r uri suite signed; do
    [[ -n $suite && $uri != cdrom:* && ! $suite =~ $skip ]] || continue
    # Only the distribution's own archive: its suites are named after the release.
    [[ -z $codename || $suite == "$codename"* || $suite =~ ^(stable|oldstable|testing|unstable|sid) ]] || continue
    opts="arch=$deb_arch${signed:+ signed-by=$signed}"
    echo "deb [$opts] $uri $suite $component" >>"$apt/sources.list"
done < <(machine_sources | sort -u)
[[ -s $apt/sources.list ]] ||
    die "no usable apt source in /etc/apt to fetch $component/${packages[*]} from"

# APT::Architecture(s) make this private apt see $deb_arch alone; the machine's dpkg is untouched.
apt_opts=(
    -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
    -o "APT::Architecture=$deb_arch" -o "APT::Architectures=$deb_arch"
)
# As root, apt downloads as user _apt, who may not be able to write into the checkout.
if [[ $(id -u) == 0 ]]; then
    apt_opts+=(-o APT::Sandbox::User=root)
fi
echo "scripts/fetch-driver.sh: fetching ${packages[*]} ($deb_arch) into $fetch_dir" >&2
log=$fetch_dir/apt.log
if ! { apt-get -q "${apt_opts[@]}" update &&
    (cd "$fetch_dir/debs" && apt-get -q "${apt_opts[@]}" download "${packages[@]/%/:$deb_arch}"); } >"$log" 2>&1; then
    cat "$log" >&2
    die "fetching ${packages[*]} ($deb_arch) failed (sources: $apt/sources.list, log: $log)"
fi
for deb in "$fetch_dir"/debs/*.deb; do
    dpkg -x "$deb" "$fetch_dir/root"
done
lib=$(find "$fetch_dir/root" -name "$wanted" -print -quit)
[[ -n $lib ]] || die "the fetched packages (${packages[*]}) hold no $wanted; see $fetch_dir/root"
dirname "$lib"
