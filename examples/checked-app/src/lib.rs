//! A small library built on custack, as an application's would be: `c = a + b` on the device,
//! with its two inputs handed to "a C library" as raw device addresses ([`Operands`]).
//!
//! custack's own types cannot leak: a buffer frees itself when an error unwinds the stack.
//! Code that steps outside them can. [`Operands::new_leaky`] hands the first input over
//! (`into_raw`) *before* the second one is allocated, so when that second allocation fails the
//! first is never freed. No ordinary test finds this: the allocation never fails on a test
//! machine. `custack-check` fails every driver call in turn and finds it at once
//! (`scripts/checked-app.sh`, and the guide page "Testing GPU code without a GPU").
//! [`Operands::new`] is the fix: allocate both, then hand both over.

use custack::ffi::CUdeviceptr;
use custack::{LaunchConfig, Module, PushedGuard, Result};

/// The kernel: `vector_add(const float* a, const float* b, float* c, unsigned n)`.
pub const PTX: &str = include_str!("vector_add.ptx");

/// Two device buffers of `len` floats held as raw addresses, as a C library that takes
/// `CUdeviceptr`s would hold them; freed on drop.
pub struct Operands<'g, 't, 'c> {
    guard: &'g PushedGuard<'t, 'c>,
    a: CUdeviceptr,
    b: CUdeviceptr,
    len: usize,
}

impl<'g, 't, 'c> Operands<'g, 't, 'c> {
    /// Copies `a` and `b` to the device: both allocated first, then both handed over.
    pub fn new(guard: &'g PushedGuard<'t, 'c>, a: &[f32], b: &[f32]) -> Result<Self> {
        let da = guard.alloc_from(a)?;
        let db = guard.alloc_from(b)?;
        let (a, len) = da.into_raw();
        let (b, _) = db.into_raw();
        Ok(Self { guard, a, b, len })
    }

    /// The bug: `a` is handed over before `b` is allocated, so a failure of `b`'s allocation
    /// (or of its copy) leaks `a`.
    pub fn new_leaky(guard: &'g PushedGuard<'t, 'c>, a: &[f32], b: &[f32]) -> Result<Self> {
        let (a, len) = guard.alloc_from(a)?.into_raw();
        let (b, _) = guard.alloc_from(b)?.into_raw(); // `?` returns, and nothing frees `a`
        Ok(Self { guard, a, b, len })
    }
}

impl Drop for Operands<'_, '_, '_> {
    fn drop(&mut self) {
        // SAFETY: `a` and `b` are allocations of `len` floats made by `new` in the guard's
        // context (current: the guard is borrowed) and given up with `into_raw`; they are
        // taken back once, here, and freed by the buffers' drops.
        let (a, b) = unsafe {
            (
                self.guard.buffer_from_raw::<f32>(self.a, self.len),
                self.guard.buffer_from_raw::<f32>(self.b, self.len),
            )
        };
        drop((a, b));
    }
}

/// `a + b`, computed by `vector_add` of `module` on the guard's device; `leaky` picks the buggy
/// [`Operands::new_leaky`].
pub fn add(
    guard: &PushedGuard<'_, '_>,
    module: &Module<'_>,
    a: &[f32],
    b: &[f32],
    leaky: bool,
) -> Result<Vec<f32>> {
    let operands = if leaky {
        Operands::new_leaky(guard, a, b)?
    } else {
        Operands::new(guard, a, b)?
    };
    let n = u32::try_from(operands.len).unwrap_or(u32::MAX);
    let vector_add = module.function("vector_add")?;
    let stream = guard.stream()?;
    let mut dc = guard.alloc::<f32>(operands.len)?;
    let mut c = vec![0.0; operands.len];
    stream.scope(|s| -> Result<()> {
        let mut dc = s.bind_mut(&mut dc);
        // SAFETY: vector_add reads `n` floats at `a` and `b` (each holds `len`) and writes `n`
        // to `dc` (which holds `len`); `operands` outlives the scope, which waits for the
        // kernel.
        unsafe {
            s.launch(
                &vector_add,
                LaunchConfig::for_elements(n),
                (operands.a, operands.b, &mut dc, n),
            )?;
        }
        s.copy_to_host(&mut c, &dc)
    })??;
    Ok(c)
}
