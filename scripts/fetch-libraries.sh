#!/usr/bin/env bash
# Fetches a CUDA library from NVIDIA's Python wheel, without installing it: `pip download` of
# one pinned wheel (from pip's configured index) into DEST, unpacked there with python3's
# zipfile. Prints the directory holding the library. Nothing outside DEST changes (no pip
# install, no site-packages).
#
#   bash scripts/fetch-libraries.sh LIBRARY DEST      # LIBRARY: nvrtc, cublas, nccl, cufft, curand, cusparse, cudnn, cusolver; DEST: e.g. target/cuda-libs
#
# The versions are the ones scripts/test.sh pairs with the driver library it fetches (Debian's
# libcuda1, CUDA 12.2): an NVRTC newer than the driver emits PTX the driver cannot JIT, so the
# NVRTC is 12.2 as well; cuBLAS is the 12.2 toolkit's too, and NCCL 2.18.1 of the same CUDA 12
# generation (no GPU test runs there: they are linked and loaded, and their calls' checks run);
# cuFFT 11.0.8 and cuRAND 10.3.3 are the 12.2 toolkit's, and cuBLAS's wheel holds cuBLASLt;
# cuSPARSE 12.1.2 is the 12.2 toolkit's, with the nvJitLink 12.2 it loads.
# A second run reuses DEST.
set -euo pipefail

die() { echo "scripts/fetch-libraries.sh: $*" >&2; exit 1; }
(($# == 2)) || die "usage: fetch-libraries.sh LIBRARY DEST"
extra=""
case $1 in
    nvrtc) wheel=nvidia-cuda-nvrtc-cu12==12.2.140 dir=nvidia/cuda_nvrtc/lib file=libnvrtc.so.12 ;;
    cublas) wheel=nvidia-cublas-cu12==12.2.5.6 dir=nvidia/cublas/lib file=libcublas.so.12 ;;
    nccl) wheel=nvidia-nccl-cu12==2.18.1 dir=nvidia/nccl/lib file=libnccl.so.2 ;;
    cufft) wheel=nvidia-cufft-cu12==11.0.8.103 dir=nvidia/cufft/lib file=libcufft.so.11 ;;
    curand) wheel=nvidia-curand-cu12==10.3.3.141 dir=nvidia/curand/lib file=libcurand.so.10 ;;
    # libcusparse.so.12 needs libnvJitLink.so.12 (`readelf -d`), which it finds through its
    # RUNPATH `$ORIGIN/../../nvjitlink/lib`: nvJitLink's wheel (CUDA 12.2 too) is unpacked into
    # the same root, so the linker and the loader find it with no LD_LIBRARY_PATH of its own.
    cusparse) wheel=nvidia-cusparse-cu12==12.1.2.141 dir=nvidia/cusparse/lib file=libcusparse.so.12
        extra=nvidia-nvjitlink-cu12==12.2.140 ;;
    # cuDNN 9.1.0.70 of the CUDA 12 generation: libcudnn.so.9 needs no CUDA library at link
    # time (readelf -d) and loads its sub-libraries, libcuda.so.1 and, for some engines,
    # libcublasLt.so.12 (the cublas wheel's) at run time.
    cudnn) wheel=nvidia-cudnn-cu12==9.1.0.70 dir=nvidia/cudnn/lib file=libcudnn.so.9 ;;
    # cuSOLVER 11.5.2 of the CUDA 12.2 toolkit: libcusolver.so.11 needs libcublas.so.12,
    # libcublasLt.so.12, libcusparse.so.12 and libnvJitLink.so.12 (`readelf -d`), which it finds
    # through its RUNPATH (`$ORIGIN/../../cusparse/lib`, `../../nvjitlink/lib`,
    # `../../cublas/lib`): cuSPARSE's and nvJitLink's wheels are unpacked into the same root;
    # cuBLAS (400 MiB) is the cublas entry's, on LD_LIBRARY_PATH.
    cusolver) wheel=nvidia-cusolver-cu12==11.5.2.141 dir=nvidia/cusolver/lib file=libcusolver.so.11
        extra="nvidia-cusparse-cu12==12.1.2.141 nvidia-nvjitlink-cu12==12.2.140" ;;
    *) die "unknown library $1 (known: nvrtc, cublas, nccl, cufft, curand, cusparse, cudnn, cusolver; cuBLASLt comes with cublas)" ;;
esac
dest=$(realpath -m "$2")/$1
# The stamp, written last, names the wheel: a changed pin or a cut-short unpacking fetches anew.
if [[ -f $dest/root/$dir/$file && $(cat "$dest/stamp" 2>/dev/null) == "$wheel${extra:+ $extra}" ]]; then
    echo "$dest/root/$dir"
    exit 0
fi
command -v python3 >/dev/null || die "no python3 to fetch $wheel with"
python3 -m pip --version >/dev/null 2>&1 || die "no pip (python3 -m pip) to fetch $wheel with"
rm -rf "$dest"
mkdir -p "$dest/wheels" "$dest/root"
echo "scripts/fetch-libraries.sh: fetching $wheel into $dest" >&2
log=$dest/pip.log
# shellcheck disable=SC2086 # $extra is a list of wheels (none, one or two), split on purpose
if ! python3 -m pip download --quiet --no-deps --only-binary=:all: --no-cache-dir \
    --disable-pip-version-check --dest "$dest/wheels" "$wheel" $extra >"$log" 2>&1; then
    cat "$log" >&2
    die "pip download $wheel failed (log: $log)"
fi
python3 - "$dest/wheels" "$dest/root" <<'PY'
import pathlib, sys, zipfile
for wheel in pathlib.Path(sys.argv[1]).glob("*.whl"):
    with zipfile.ZipFile(wheel) as z:
        z.extractall(sys.argv[2])
PY
rm -rf "$dest/wheels" # unpacked: the wheel itself (cuBLAS's is 400 MiB) is not needed again
[[ -f $dest/root/$dir/$file ]] || die "the wheel $wheel holds no $dir/$file; see $dest/root"
echo "$wheel${extra:+ $extra}" >"$dest/stamp"
echo "$dest/root/$dir"
