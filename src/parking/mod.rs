//! Several contexts from one thread: what a guard sets aside so that it borrows only its
//! context while another context is pushed over it, and attaches again later (a pointer compare,
//! no driver call): device memory ([`buffer`]), modules ([`module`]), streams ([`stream`]),
//! page-locked and registered host memory ([`host`]), pending work with the parked forms of its
//! payload ([`submission`]) and launched graphs that own their module ([`graph`]); and work that
//! spans two contexts at once ([`peer`]: peer access and copies between contexts).
//!
//! Every parked value holds its raw context and borrows the [`Context`](crate::Context) for
//! `'ctx`; it is `Send` for a floating context and `!Send` for a green one (`K`); its drop pushes
//! its context briefly to release what it holds (`crate::context::raw::with_raw_current`).

pub(crate) mod buffer;
pub(crate) mod graph;
pub(crate) mod host;
pub(crate) mod module;
pub(crate) mod peer;
pub(crate) mod stream;
pub(crate) mod submission;
pub(crate) mod tuple;

use crate::error::{Error, ErrorKind, Result};
use crate::ffi;

/// `Ok` where `what`, parked from context `parked`, is attached to a guard of that context
/// (`guard`); else [`mismatch`].
#[inline]
pub(crate) fn same_context(
    what: &str,
    parked: ffi::CUcontext,
    guard: ffi::CUcontext,
) -> Result<()> {
    if parked == guard {
        return Ok(());
    }
    Err(mismatch(what, parked, guard))
}

/// The error of attaching `what`, parked from context `parked`, to a guard of another context:
/// every parked value is attached only to a guard of its own context (a pointer compare).
#[cold]
pub(crate) fn mismatch(what: &str, parked: ffi::CUcontext, guard: ffi::CUcontext) -> Error {
    Error::custack(
        ErrorKind::ContextMismatch,
        format!("{what} parked from context {parked:p} attached to a guard of {guard:p}"),
    )
}
