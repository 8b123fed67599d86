//! A module set aside from its guard ([`ParkedModule`]): it borrows only its context, so it
//! survives the pop and nested pushes, and is attached again to a guard of that context.

use crate::context::Context;
use crate::context::raw::with_raw_current;
use crate::context::stack::{ContextKind, Floating, PushedGuard};
use crate::error::left_behind::{Object, left_behind};
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::kernel::module::{Module, Source, unload_raw};
use core::marker::PhantomData;

/// A [`Module`] set aside to outlive its guard and nested pushes, re-attached later with
/// [`PushedGuard::attach_module`]. Dropping it pushes its context briefly to unload it.
///
/// `K` is the kind of context: `Send` and `Sync` for a [`Floating`] one (the default), neither
/// for a [`Green`](crate::Green) one, which may be current on one thread only.
#[derive(Debug)]
pub struct ParkedModule<'ctx, K: ContextKind = Floating> {
    ctx: ffi::CUcontext,
    raw: ffi::CUmodule,
    source: Source,
    _marker: PhantomData<(&'ctx Context, K)>,
}

// SAFETY: a module of a floating context belongs to a context, not a thread; a parked module
// offers no access until attached to a guard of its context (checked), and its drop pushes
// that context itself. Not for a green context: the raw `ctx` field keeps that kind `!Send`.
unsafe impl Send for ParkedModule<'_, Floating> {}
// SAFETY: `&ParkedModule` offers no operation.
unsafe impl Sync for ParkedModule<'_, Floating> {}

static_assertions::assert_impl_all!(ParkedModule<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(ParkedModule<'static, crate::context::stack::Green>: Send, Sync);

impl<K: ContextKind> ParkedModule<'_, K> {
    /// # Safety
    ///
    /// `module` must belong to `ctx`, a live context of kind `K` alive for `'ctx`.
    pub(crate) unsafe fn from_module(ctx: ffi::CUcontext, module: Module<'_>) -> Self {
        let (raw, source) = module.into_parts();
        ParkedModule {
            ctx,
            raw,
            source,
            _marker: PhantomData,
        }
    }

    /// The raw context the module belongs to.
    pub fn context_raw(&self) -> ffi::CUcontext {
        self.ctx
    }
    /// The raw `CUmodule` (usable only while its context is current).
    pub fn as_raw(&self) -> ffi::CUmodule {
        self.raw
    }
}

impl<K: ContextKind> Drop for ParkedModule<'_, K> {
    fn drop(&mut self) {
        let raw = self.raw;
        let mut ran = false;
        let unload = || {
            ran = true;
            // SAFETY: the module belongs to `ctx`, current while this runs, and is unloaded once.
            // (`unload_raw` names the module left behind where it does not unload it.)
            unsafe { unload_raw(raw) }
        };
        // SAFETY: `ctx` is alive (borrowed for `'ctx`); `unload` leaves the stack as it was.
        let r = unsafe { with_raw_current(self.ctx, unload) };
        if !ran {
            left_behind(Object::Module, raw as u64);
        }
        if let Err(e) = r {
            record_drop_error(e);
        }
    }
}

impl<'ctx, K: ContextKind> PushedGuard<'ctx, '_, K> {
    /// Parks a module: it no longer borrows this guard, only the context, so it survives the
    /// pop and nested pushes (P3, P8). Re-attach it with [`attach_module`](Self::attach_module).
    /// A green context's module parks as a `!Send` [`ParkedModule`] (see its `K`).
    pub fn park_module(&self, module: Module<'_>) -> ParkedModule<'ctx, K> {
        // SAFETY: the module is lent by a guard of this thread, and only the guard on top can
        // be used: this one, whose context (of kind `K`) lives for `'ctx`.
        unsafe { ParkedModule::from_module(self.as_raw(), module) }
    }

    /// Re-attaches a parked module. Checked without calling the driver.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ContextMismatch`](crate::ErrorKind::ContextMismatch) if it was parked from another context; the parked module
    /// is then dropped, which unloads it in its own context.
    pub fn attach_module(&self, mut parked: ParkedModule<'ctx, K>) -> Result<Module<'_>> {
        super::same_context("module", parked.ctx, self.as_raw())?;
        let source = core::mem::take(&mut parked.source);
        let parked = core::mem::ManuallyDrop::new(parked);
        // SAFETY: a live module of this guard's context (checked above), loaded from `source`,
        // owned by the parked module, which is consumed without being dropped.
        Ok(unsafe { Module::from_parts(parked.raw, source) })
    }
}
