#!/usr/bin/env bash
# Fetches the Vulkan loader (Debian's libvulkan1, 1.3.239 on bookworm) for the GPU machine, which
# has NVIDIA's Vulkan driver but no loader, without installing it: `apt-get download` from this
# machine's own apt sources, unpacked with `dpkg -x` (scripts/fetch-driver.sh ARCH DEST vulkan
# does both), then writes beside it an ICD manifest that names NVIDIA's driver by
# libEGL_nvidia.so.0: the driver's own manifest names libGLX_nvidia.so.0, which fails without a
# display. Prints the directory that holds both:
#
#   bash scripts/fetch-vulkan.sh DEST        # e.g. target/vulkan; prints DEST/root/.../lib dir
#
#   DEST/nvidia_icd.json                     # the manifest (VK_ICD_FILENAMES names it)
#   DIR/libvulkan.so.1                       # the loader (DIR goes on LD_LIBRARY_PATH)
#
# scripts/gpu-bundle.sh runs it and carries both into .gpu/vulkan/; .gpu/run.sh sets
# LD_LIBRARY_PATH and VK_ICD_FILENAMES from there for every binary (the test gpu_external, the
# example 27_vulkan_interop). Nothing outside DEST changes; a second run reuses it.
set -euo pipefail
die() { echo "scripts/fetch-vulkan.sh: $*" >&2; exit 1; }
(($# == 1)) || die "usage: fetch-vulkan.sh DEST"
dest=$(realpath -m "$1")
here=$(dirname "${BASH_SOURCE[0]}")
arch=$(dpkg --print-architecture 2>/dev/null) || die "no dpkg to name the architecture with"
lib_dir=$(bash "$here/fetch-driver.sh" "$arch" "$dest" vulkan)
[[ -e $lib_dir/libvulkan.so.1 ]] || die "no libvulkan.so.1 in $lib_dir"
# The ICD: NVIDIA's EGL library, which the driver installs and which needs no X server. The
# api_version is what the loader checks an instance's request against (the test asks for 1.2).
cat >"$dest/nvidia_icd.json" <<'ICD'
{
    "file_format_version": "1.0.0",
    "ICD": {
        "library_path": "libEGL_nvidia.so.0",
        "api_version": "1.3.0"
    }
}
ICD
echo "$lib_dir"
