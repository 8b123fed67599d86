// How to install each optional library, one sentence each, read by two programs so that they
// say the same: build.rs (`#[path] mod`), in its warning when a feature's library is missing,
// and the crate (`include!` in `src/error/not_linked.rs`), in the `LibraryNotLinked` error a
// call returns in such a build. Plain `//` comments: an `include!`d file takes no inner docs.

/// NVRTC (feature `nvrtc`).
pub(crate) const NVRTC: &str = "the CUDA toolkit or NVRTC's Python wheel of the driver's CUDA version, no newer (`pip install 'nvidia-cuda-nvrtc==13.0.*'` for a 13.0 driver, `'nvidia-cuda-nvrtc-cu12==12.2.*'` for 12.2)";

/// cuBLAS (feature `cublas`).
pub(crate) const CUBLAS: &str = "the CUDA toolkit or cuBLAS's Python wheel of the driver's CUDA version, no newer (`pip install 'nvidia-cublas==13.*'` for a 13.x driver, `'nvidia-cublas-cu12==12.2.*'` for 12.2)";

/// cuBLASLt (feature `cublaslt`), shipped with cuBLAS.
pub(crate) const CUBLASLT: &str = "the CUDA toolkit or cuBLAS's Python wheel of the driver's CUDA version, no newer, which holds cuBLASLt (`pip install 'nvidia-cublas==13.*'` for a 13.x driver, `'nvidia-cublas-cu12==12.2.*'` for 12.2)";

/// cuFFT (feature `cufft`).
pub(crate) const CUFFT: &str = "the CUDA toolkit or cuFFT's Python wheel of the driver's CUDA version, no newer (`pip install 'nvidia-cufft==12.0.*'` for a 13.0 driver, `'nvidia-cufft-cu12==11.0.8.*'` for 12.2)";

/// cuRAND (feature `curand`).
pub(crate) const CURAND: &str = "the CUDA toolkit or cuRAND's Python wheel of the driver's CUDA version, no newer (`pip install 'nvidia-curand==10.4.0.*'` for a 13.0 driver, `'nvidia-curand-cu12==10.3.3.*'` for 12.2)";

/// cuSPARSE (feature `cusparse`); it loads libnvJitLink, whose wheel pip installs with it.
pub(crate) const CUSPARSE: &str = "the CUDA toolkit or cuSPARSE's Python wheel of the driver's CUDA version, no newer, with nvJitLink's (`pip install 'nvidia-cusparse==12.6.*'` for a 13.0 driver, `'nvidia-cusparse-cu12==12.1.2.*' 'nvidia-nvjitlink-cu12==12.2.*'` for 12.2)";
/// cuDNN (feature `cudnn`), version 9.
pub(crate) const CUDNN: &str = "cuDNN 9's Python wheel of the driver's CUDA major version (`pip install 'nvidia-cudnn-cu13==9.*'` for a 13.x driver, `'nvidia-cudnn-cu12==9.1.0.70'` for 12.x) or the cuDNN 9 package";

/// cuSOLVER (feature `cusolver`), which needs cuBLAS, cuSPARSE and nvJitLink at load time.
pub(crate) const CUSOLVER: &str = "the CUDA toolkit or cuSOLVER's Python wheel of the driver's CUDA version, no newer, with the cuBLAS, cuSPARSE and nvJitLink it loads (`pip install 'nvidia-cusolver==12.0.*'` for a 13.0 driver, `'nvidia-cusolver-cu12==11.5.2.*'` for 12.2)";

/// NCCL (feature `nccl`).
pub(crate) const NCCL: &str = "NCCL's Python wheel of the driver's CUDA major version (`pip install nvidia-nccl-cu13` for a 13.x driver, `nvidia-nccl-cu12` for 12.x) or the NCCL package";

/// NVML (feature `nvml`), the driver's management library.
pub(crate) const NVML: &str = "the NVIDIA driver's NVML library, which every driver install ships (Debian: `libnvidia-ml1` from non-free, the version of `libcuda1`; Ubuntu: `libnvidia-compute-<version>`)";
