//! A small library built on custack, as an application's would be: `c = a + b` on the device,
//! with its two inputs handed to "a C library" as raw device addresses ([`Operands`]), and the
//! same sum in two halves kept in flight on two streams ([`add_in_halves`]). Three bugs are
//! planted in it, each beside its fix, of the kinds that hide on error paths no ordinary test
//! takes (a test machine's driver calls do not fail); `custack-check` fails every driver call in
//! turn and finds each (`scripts/checked-app.sh`, and the guide page "Testing GPU code without a
//! GPU"):
//!
//! 1. **A forget on an upload error**: [`Operands::new_leaky`] hands the first input over
//!    (`into_raw`) *before* the second one is allocated, so when that second allocation fails
//!    the first is never freed. [`Operands::new`] allocates both, then hands both over.
//! 2. **A swallowed error**: [`add_swallowing`] drops the scope's result (`let _ =`), so a failed
//!    launch or copy returns whatever the output holds. Only a test that checks the result (with
//!    a CPU stand-in computing it under the checking driver) finds this: the result is wrong.
//! 3. **A forget on a failed wait**: [`add_in_halves`] with `forget_on_failure` forgets the
//!    second half's submission when the first one's wait fails, instead of dropping it (which
//!    waits for it and frees its buffers). custack leaves the *first* half's buffers behind on
//!    purpose there (its work may still use them) and tells the checker so; the second half's
//!    are the program's own leak.

use custack::ffi::CUdeviceptr;
use custack::{
    DeviceBuffer, Function, LaunchConfig, Module, PushedGuard, Result, Stream, Submission,
};

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
/// [`Operands::new_leaky`] (planted bug 1).
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

/// Planted bug 2: [`add`], but the scope's result is dropped (`let _ =`), so when the launch or
/// the copy fails the caller gets `Ok` with whatever the output holds (zeros).
pub fn add_swallowing(
    guard: &PushedGuard<'_, '_>,
    module: &Module<'_>,
    a: &[f32],
    b: &[f32],
) -> Result<Vec<f32>> {
    let operands = Operands::new(guard, a, b)?;
    let n = u32::try_from(operands.len).unwrap_or(u32::MAX);
    let vector_add = module.function("vector_add")?;
    let stream = guard.stream()?;
    let mut dc = guard.alloc::<f32>(operands.len)?;
    let mut c = vec![0.0; operands.len];
    // The bug: `let _ =` where `??;` belongs.
    let _ = stream.scope(|s| -> Result<()> {
        let mut dc = s.bind_mut(&mut dc);
        // SAFETY: as in `add`.
        unsafe {
            s.launch(
                &vector_add,
                LaunchConfig::for_elements(n),
                (operands.a, operands.b, &mut dc, n),
            )?;
        }
        s.copy_to_host(&mut c, &dc)
    });
    Ok(c)
}

/// What one half's submission owns: its inputs, its output on the device and on the host, and
/// the kernel.
type Half<'g> = (
    DeviceBuffer<'g, f32>,
    DeviceBuffer<'g, f32>,
    DeviceBuffer<'g, f32>,
    Function<'g>,
    Vec<f32>,
);

/// One half of the sum in flight on `stream`, owning its memory until it is waited for.
fn half<'g>(
    guard: &'g PushedGuard<'_, '_>,
    stream: &'g Stream<'g>,
    vector_add: Function<'g>,
    a: &[f32],
    b: &[f32],
) -> Result<Submission<'g, Half<'g>>> {
    let n = u32::try_from(a.len()).unwrap_or(u32::MAX);
    let payload = (
        guard.alloc_from(a)?,
        guard.alloc_from(b)?,
        guard.alloc::<f32>(a.len())?,
        vector_add,
        vec![0.0; a.len()],
    );
    stream.submit(payload, move |s, (da, db, mut dc, f, out)| {
        // SAFETY: vector_add reads `n` floats of `da` and `db` and writes `n` of `dc`, each of
        // which holds `n`.
        unsafe { s.launch(&f, LaunchConfig::for_elements(n), (&da, &db, &mut dc, n)) }?;
        s.copy_to_host(out, &dc)
    })
}

/// `a + b` in two halves, in flight at once on two streams, each owned by a submission until it
/// is waited for. `forget_on_failure` plants bug 3: when the first half's wait fails, the second
/// half is forgotten (`mem::forget`) instead of dropped, and its buffers are never freed.
pub fn add_in_halves(
    guard: &PushedGuard<'_, '_>,
    module: &Module<'_>,
    a: &[f32],
    b: &[f32],
    forget_on_failure: bool,
) -> Result<Vec<f32>> {
    let vector_add = module.function("vector_add")?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let mid = a.len() / 2;
    let first = half(guard, &one, vector_add, &a[..mid], &b[..mid])?;
    let second = half(guard, &two, vector_add, &a[mid..], &b[mid..])?;
    let (.., mut c) = match first.wait() {
        Ok(done) => done,
        Err(e) => {
            if forget_on_failure {
                // The bug: the fix is to let `second` drop, which waits for it and frees it.
                core::mem::forget(second);
            }
            return Err(e);
        }
    };
    let (.., rest) = second.wait()?;
    c.extend(rest);
    Ok(c)
}
