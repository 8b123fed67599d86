//! cuBLAS on custack's memory and streams: a 512×512×512 SGEMM by `cublasSgemm_v2` on custack
//! device buffers, in a custack stream scope, timed with custack events and checked against
//! the CPU.
//!
//! ```text
//! cargo run --release --features interop --example 11_cublas
//! ```
//!
//! Requires the feature `interop`, under which the build script looks for cuBLAS (a plain
//! build of custack, and every dependent crate's, looks for nothing but libcuda). Built with
//! cuBLAS only when the build script finds it: `CUSTACK_CUBLAS_LIB_DIR` (the directory
//! holding `libcublas.so`, `libcublas.so.13` or `libcublas.so.12`), else the CUDA toolkit, else
//! the `nvidia-cublas` Python wheel (`<site-packages>/nvidia/cu13/lib`) of `python3`. Without
//! it the example prints how to build it and exits with status 1. cuBLAS is linked, not
//! loaded at run time, and no rpath is set, so the loader must find it:
//!
//! ```text
//! NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')   # the wheels' nvidia/
//! LD_LIBRARY_PATH=$NV/cu13/lib:$LD_LIBRARY_PATH cargo run --release --features interop --example 11_cublas
//! ```
//!
//! What it shows: the few cuBLAS functions used are declared here, as a user would; the cuBLAS
//! handle is created while the custack context is current (cuBLAS binds a handle to the current
//! context) and borrows the guard, like the handles custack lends; the operands are bound to a
//! stream scope, and cuBLAS gets their raw device pointers and the scope's raw stream, so the
//! scope keeps the memory borrowed until the SGEMM is complete.

use std::process::ExitCode;

#[cfg(custack_cublas)]
mod sgemm {
    use core::ffi::{c_char, c_int};
    use core::marker::{PhantomData, PhantomPinned};
    use custack::{
        Context, ContextFlags, Driver, EventFlags, PushedGuard, ScopedSliceMut, Stack, StreamScope,
        ffi,
    };
    use std::ffi::CStr;

    /// `struct cublasContext`, opaque.
    #[repr(C)]
    struct CublasContext {
        _data: [u8; 0],
        _marker: PhantomData<(*mut u8, PhantomPinned)>,
    }
    #[allow(non_camel_case_types)]
    type cublasHandle_t = *mut CublasContext;
    /// `cublasStatus_t`, a C enum: kept as its integer, so an unlisted value is no UB.
    #[allow(non_camel_case_types)]
    type cublasStatus_t = c_int;
    const CUBLAS_STATUS_SUCCESS: cublasStatus_t = 0;
    /// `cublasOperation_t::CUBLAS_OP_N`: no transposition.
    const CUBLAS_OP_N: c_int = 0;

    // The build script sets `custack_cublas_lib` to the file it found: the development link
    // `libcublas.so` is linked as `-l cublas`, a versioned runtime file (the wheels have only
    // `libcublas.so.13`) by its exact name.
    #[cfg_attr(custack_cublas_lib = "libcublas.so", link(name = "cublas"))]
    #[cfg_attr(
        custack_cublas_lib = "libcublas.so.13",
        link(name = "libcublas.so.13", modifiers = "+verbatim")
    )]
    #[cfg_attr(
        custack_cublas_lib = "libcublas.so.12",
        link(name = "libcublas.so.12", modifiers = "+verbatim")
    )]
    unsafe extern "C" {
        fn cublasCreate_v2(handle: *mut cublasHandle_t) -> cublasStatus_t;
        fn cublasDestroy_v2(handle: cublasHandle_t) -> cublasStatus_t;
        // `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles.
        fn cublasSetStream_v2(handle: cublasHandle_t, stream: ffi::CUstream) -> cublasStatus_t;
        fn cublasSgemm_v2(
            handle: cublasHandle_t,
            transa: c_int,
            transb: c_int,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const f32,
            a: *const f32,
            lda: c_int,
            b: *const f32,
            ldb: c_int,
            beta: *const f32,
            c: *mut f32,
            ldc: c_int,
        ) -> cublasStatus_t;
        fn cublasGetStatusString(status: cublasStatus_t) -> *const c_char;
    }

    /// A custack error, a cuBLAS error, or a wrong result.
    #[derive(Debug)]
    pub(crate) enum Error {
        Cuda(custack::Error),
        Cublas(&'static str, cublasStatus_t),
        Shape(String),
    }

    impl From<custack::Error> for Error {
        fn from(e: custack::Error) -> Self {
            Self::Cuda(e)
        }
    }

    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                Self::Cuda(e) => write!(f, "{e}"),
                Self::Cublas(call, status) => {
                    // SAFETY: takes any value, reads nothing.
                    let ptr = unsafe { cublasGetStatusString(*status) };
                    // SAFETY: `cublasGetStatusString` returns a static NUL-terminated string for
                    // every value (a generic one for unlisted values).
                    let text = unsafe { CStr::from_ptr(ptr) };
                    write!(f, "{call} failed: {} ({status})", text.to_string_lossy())
                }
                Self::Shape(what) => f.write_str(what),
            }
        }
    }

    fn check(call: &'static str, status: cublasStatus_t) -> Result<(), Error> {
        if status == CUBLAS_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(Error::Cublas(call, status))
        }
    }

    /// A cuBLAS handle of the guard's context. cuBLAS binds a handle to the context current
    /// when it is created and must find it current whenever the handle is used or destroyed,
    /// so the handle borrows the guard, like the streams and buffers custack lends: it cannot
    /// outlive the pop, cross threads, or be used while another context is pushed on top.
    struct Cublas<'g> {
        raw: cublasHandle_t,
        _guard: PhantomData<&'g ()>,
    }

    impl<'g> Cublas<'g> {
        fn new(_current: &'g PushedGuard<'_, '_>) -> Result<Self, Error> {
            let mut raw = core::ptr::null_mut();
            // SAFETY: a valid out-pointer; the guard proves a context is current.
            check("cublasCreate", unsafe { cublasCreate_v2(&raw mut raw) })?;
            Ok(Self {
                raw,
                _guard: PhantomData,
            })
        }

        /// Row-major `c = a · b` (`a` is `m×k`, `b` is `k×n`, `c` is `m×n`), enqueued on the
        /// scope's stream. The operands are bound to the scope, so they stay borrowed until the
        /// scope has waited for the stream: cuBLAS's kernels can never outlive them.
        #[allow(
            clippy::many_single_char_names,
            reason = "BLAS's names: c = a·b, m×k by k×n"
        )]
        fn sgemm<'scope>(
            &self,
            scope: &StreamScope<'scope, '_>,
            a: &ScopedSliceMut<'scope, f32>,
            b: &ScopedSliceMut<'scope, f32>,
            c: &mut ScopedSliceMut<'scope, f32>,
            (m, n, k): (usize, usize, usize),
        ) -> Result<(), Error> {
            if a.len() != m * k || b.len() != k * n || c.len() != m * n {
                return Err(Error::Shape(format!(
                    "sgemm {m}x{n}x{k}: operands hold {}, {} and {} elements",
                    a.len(),
                    b.len(),
                    c.len()
                )));
            }
            let dim = |x: usize| {
                c_int::try_from(x).map_err(|_| Error::Shape(format!("{x} exceeds a C int")))
            };
            let (mi, ni, ki) = (dim(m)?, dim(n)?, dim(k)?);
            let (alpha, beta) = (1.0f32, 0.0f32);
            // SAFETY: a live handle; the scope's stream is a live stream of the handle's
            // context (the guard it borrows is current and lent the stream).
            check("cublasSetStream", unsafe {
                cublasSetStream_v2(self.raw, scope.as_raw())
            })?;
            // cuBLAS is column-major: the row-major `c = a·b` is the column-major
            // `cᵀ = bᵀ·aᵀ`, and a row-major matrix read column-major is its transpose. So pass
            // `b` first, with the roles of m and n swapped.
            // SAFETY: `b` holds k·n, `a` m·k and `c` m·n floats (checked above), all device
            // memory of the current context, bound to this scope until its stream is
            // synchronized, `c` exclusively; `alpha` and `beta` are host scalars, read before
            // the call returns (the default host pointer mode).
            let status = unsafe {
                cublasSgemm_v2(
                    self.raw,
                    CUBLAS_OP_N,
                    CUBLAS_OP_N,
                    ni,
                    mi,
                    ki,
                    &raw const alpha,
                    b.device_ptr() as *const f32,
                    ni,
                    a.device_ptr() as *const f32,
                    ki,
                    &raw const beta,
                    c.device_ptr() as *mut f32,
                    ni,
                )
            };
            check("cublasSgemm", status)
        }
    }

    impl Drop for Cublas<'_> {
        fn drop(&mut self) {
            // SAFETY: a live handle, destroyed once, while its context is current (it borrows
            // the guard).
            let status = unsafe { cublasDestroy_v2(self.raw) };
            if status != CUBLAS_STATUS_SUCCESS {
                eprintln!("11_cublas: {}", Error::Cublas("cublasDestroy", status));
            }
        }
    }

    const M: usize = 512;
    const N: usize = 512;
    const K: usize = 512;

    /// Multiples of 1/8 in [-1, 1]: every product and partial sum of the SGEMM is exact in
    /// f32 (and TF32), in any order, so the GPU result must equal the CPU's.
    fn value(i: usize, mul: usize, add: usize) -> f32 {
        f32::from(((i * mul + add) % 17) as u8) / 8.0 - 1.0
    }

    /// Runs the SGEMM; returns the time of one SGEMM in ms and the largest difference from the
    /// CPU's result.
    pub(crate) fn run() -> Result<(f32, f64), Error> {
        let driver = Driver::init()?;
        let device = driver.device(0)?;
        let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        println!(
            "device 0: {}, cuBLAS linked from {}",
            device.name()?,
            env!("CUSTACK_CUBLAS_FOUND")
        );
        let stream = guard.stream()?;
        let cublas = Cublas::new(&guard)?; // ctx is current: the handle is bound to it

        let mut a = guard.alloc_pinned::<f32>(M * K)?;
        let mut b = guard.alloc_pinned::<f32>(K * N)?;
        let mut c = guard.alloc_pinned::<f32>(M * N)?;
        for (i, x) in a.iter_mut().enumerate() {
            *x = value(i, 7, 3);
        }
        for (i, x) in b.iter_mut().enumerate() {
            *x = value(i, 5, 11);
        }
        let mut da = guard.alloc::<f32>(M * K)?;
        let mut db = guard.alloc::<f32>(K * N)?;
        let mut dc = guard.alloc::<f32>(M * N)?;
        let (start, stop) = (
            guard.event(EventFlags::empty())?,
            guard.event(EventFlags::empty())?,
        );

        stream.scope(|s| -> Result<(), Error> {
            let (mut da, mut db, mut dc) = (
                s.bind_mut(&mut da),
                s.bind_mut(&mut db),
                s.bind_mut(&mut dc),
            );
            s.copy_to_device(&mut da, &a)?;
            s.copy_to_device(&mut db, &b)?;
            cublas.sgemm(s, &da, &db, &mut dc, (M, N, K))?; // warm-up: loads cuBLAS's kernels
            s.record(&start)?;
            cublas.sgemm(s, &da, &db, &mut dc, (M, N, K))?;
            s.record(&stop)?;
            s.copy_to_host(&mut c, &dc)?;
            Ok(())
        })??; // the scope waited for the stream: `c` holds the result
        let ms = start.elapsed_ms(&stop)?;

        let mut max_error = 0f64;
        for i in 0..M {
            for j in 0..N {
                let expected: f64 = (0..K)
                    .map(|l| f64::from(a[i * K + l]) * f64::from(b[l * N + j]))
                    .sum();
                max_error = max_error.max((f64::from(c[i * N + j]) - expected).abs());
            }
        }
        Ok((ms, max_error))
    }

    pub(crate) const SHAPE: (usize, usize, usize) = (M, N, K);
}

#[cfg(custack_cublas)]
fn main() -> ExitCode {
    let (m, n, k) = sgemm::SHAPE;
    match sgemm::run() {
        Ok((ms, max_error)) if max_error <= 1e-3 => {
            let gflops = 2.0 * f64::from((m * n * k) as u32) / (f64::from(ms) * 1e6);
            println!(
                "cublas: {m}x{n}x{k} SGEMM on a custack stream in {ms:.3} ms ({gflops:.0} GFLOP/s), \
                 max error {max_error:e} vs the CPU"
            );
            ExitCode::SUCCESS
        }
        Ok((_, max_error)) => {
            eprintln!("11_cublas: the GPU result differs from the CPU's by up to {max_error:e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("11_cublas: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(not(custack_cublas))]
fn main() -> ExitCode {
    eprintln!(
        "11_cublas: not built with cuBLAS: set CUSTACK_CUBLAS_LIB_DIR to the directory holding \
         libcublas.so(.13), e.g. <site-packages>/nvidia/cu13/lib of the nvidia-cublas wheel, and \
         build again"
    );
    ExitCode::FAILURE
}
