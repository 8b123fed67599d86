//! What several programs share: the fixtures' kernels (`KERNELS`), the sizes of their buffers,
//! a context of device 0, a kernel launched on a buffer, the panic the unwinding programs
//! catch, and the error and refusal checks the programs make.

use crate::double::launches_seen;
use custack::{
    Context, ContextFlags, DeviceMemoryMut, Driver, LaunchConfig, Module, PushedGuard, Result,
};

/// The fixtures' kernels as PTX (`tests/fixtures/kernels.ptx`: `vector_add`, `add_u32`, `empty`
/// and the others the programs load).
pub(crate) const KERNELS: &str = include_str!("../../../tests/fixtures/kernels.ptx");

/// The elements of the programs' usual buffer.
pub(crate) const N: usize = 1000;

/// [`N`] as the kernels take it.
pub(crate) const N32: u32 = N as u32;

/// A new context on device 0.
pub(crate) fn context0() -> Result<Context> {
    Context::new(Driver::init()?.device(0)?, ContextFlags::empty())
}

/// `add_u32` launched on `x` in a scope of a new stream of `guard`: `x[i] += k`.
pub(crate) fn add_on_device(
    guard: &PushedGuard<'_, '_>,
    module: &Module<'_>,
    x: &mut impl DeviceMemoryMut<u32>,
    k: u32,
) -> Result<()> {
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let n = x.len() as u32;
    stream.scope(|s| {
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`, and
        // `x` holds `n` elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(n), (s.bind_mut(x), k, n)) }
    })?
}

/// The panic payload of `unwind`: its panics are expected, so the hook stays quiet about them.
pub(crate) struct Unwind;

/// `run`'s refusal of a launch, which must be `kind` and reach no driver entry point.
pub(crate) fn refused(kind: custack::ErrorKind, launch: impl FnOnce() -> Result<()>) {
    let before = launches_seen();
    match launch() {
        Err(e) if e.kind() == kind => {}
        other => panic!("expected a {kind:?} refusal, got {other:?}"),
    }
    assert_eq!(
        launches_seen(),
        before,
        "a refused launch reached the driver"
    );
}

/// An error for a result the driver's answers contradict (never a panic: under a failed call
/// the program returns it).
pub(crate) fn unexpected(what: &str) -> custack::Error {
    custack::Error::new(custack::ErrorKind::InvalidValue, what)
}

/// `Ok` if `r` is custack's refusal of a mapping over a mapped range (`AlreadyMapped`); the
/// mapping made, or any other error, is unexpected.
pub(crate) fn already_mapped<T>(r: custack::Result<T>) -> custack::Result<()> {
    match r {
        Err(e) if e.kind() == custack::ErrorKind::AlreadyMapped => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(unexpected("a mapping over a mapped range was made")),
    }
}

/// Elements of each buffer of `restricted_api` and `restricted_redundant`.
pub(crate) const RESTRICTED_API_LEN: usize = 64;

/// Elements of each buffer of `restricted_scope` and `redundant_partitions`.
pub(crate) const SCOPE_LEN: usize = 64;
