//! What a kernel argument is: plain data by value, or device memory passed as its device
//! pointer ([`DevicePtr`]), sealed so that only custack's bindings build parameter arrays. The
//! tuples of arguments and signatures ([`KernelArgs`](crate::KernelArgs),
//! [`KernelSignature`](crate::KernelSignature)) are built on these in `kernel/launch.rs`.

use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

pub(crate) mod sealed {
    pub trait Sealed {}
    /// Seals [`KernelParam`](super::KernelParam) and [`KernelSignature`](crate::KernelSignature).
    pub trait SealedParam {}
    pub trait SealedSignature {}
    /// Seals [`KernelArgs`](crate::KernelArgs): only `()` and tuples of [`KernelArg`]s build
    /// parameter arrays, so no user type can hand the driver pointers of its choosing.
    pub trait SealedArgs {}
}

/// One kernel argument: plain data by value, or device memory of the launching scope
/// ([`ScopedSlice`](crate::ScopedSlice), [`ScopedSliceMut`](crate::ScopedSliceMut), `&`/`&mut` [`ScopedAlloc`](crate::ScopedAlloc)), passed as its device
/// pointer (C15). Sealed.
///
/// `'scope` is the launching scope's own lifetime, exactly: memory bound to another scope (an
/// outer scope's stream, running concurrently) is not an argument of this one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel argument of this scope",
    note = "a kernel argument is plain data by value, or device memory bound to the launching scope: a read-only binding `let a = s.bind(&x);` by value (`a`), a writable binding `let b = s.bind_mut(&mut y);` by reference (`&b` or `&mut b`), a texture binding by value, a surface binding or a `ScopedAlloc` by reference",
    note = "memory bound to another (outer) scope is not an argument of this one: bind it to this scope's `s`"
)]
pub trait KernelArg<'scope>: sealed::Sealed {
    /// What the kernel receives.
    #[doc(hidden)]
    type Raw: Copy;
    /// The parameter type this argument passes, for [`Kernel`](crate::Kernel) signatures: `T` for plain data,
    /// [`DevicePtr<T>`] for device memory.
    type Param: KernelParam;
    /// The value passed.
    #[doc(hidden)]
    fn to_raw(&self) -> Self::Raw;
}

impl<T: DeviceCopy> sealed::Sealed for T {}
impl<T: DeviceCopy> KernelArg<'_> for T {
    type Raw = T;
    type Param = T;
    #[inline]
    fn to_raw(&self) -> T {
        *self
    }
}

/// A kernel parameter that is a device pointer to `T`: the [`Kernel`](crate::Kernel) signature type of device
/// memory arguments ([`ScopedSlice`](crate::ScopedSlice), [`ScopedSliceMut`](crate::ScopedSliceMut), `&`/`&mut` [`ScopedAlloc`](crate::ScopedAlloc) of `T`).
/// Never constructed.
#[derive(Debug)]
pub struct DevicePtr<T: DeviceCopy>(
    // Never read: gives the type a device pointer's size and alignment, which its place in a
    // signature's layout needs.
    #[allow(dead_code)] ffi::CUdeviceptr,
    PhantomData<fn() -> T>,
);

static_assertions::assert_eq_size!(DevicePtr<u8>, ffi::CUdeviceptr);
static_assertions::assert_eq_align!(DevicePtr<u8>, ffi::CUdeviceptr);

/// One parameter type of a [`Kernel`](crate::Kernel) signature: plain data `T`, or [`DevicePtr<T>`]. Sealed.
pub trait KernelParam: sealed::SealedParam + 'static {}
impl<T: DeviceCopy> sealed::SealedParam for T {}
impl<T: DeviceCopy> KernelParam for T {}
impl<T: DeviceCopy> sealed::SealedParam for DevicePtr<T> {}
impl<T: DeviceCopy> KernelParam for DevicePtr<T> {}

/// The handle of a [`Condition`](crate::graph::Condition) of a graph being built with the payload
/// brand `'b` ([`GraphBuilder::condition`](crate::graph::GraphBuilder::condition)): a kernel
/// argument for a contract parameter declared `name: conditional`
/// ([`kernel_contract!`](crate::kernel_contract)), passed as the 64-bit
/// `cudaGraphConditionalHandle` the kernel hands to `cudaGraphSetConditional(handle, value)`.
/// `Copy`.
///
/// Branded with the graph's `'b` (invariant): it cannot leave the builder's closure, so it
/// cannot outlive the graph, nor be an argument of a kernel node of another graph, of a
/// kernel-node update ([`GraphExec::update_kernels`](crate::graph::GraphExec::update_kernels)
/// brands its own) or of a launch that runs outside it: only the kernel nodes of this graph and of
/// its conditional bodies take it, and the launches captured into them (a capture's own scope,
/// whose brand a condition made in it carries, or [`GraphBuilder::capture`]'s, of the build's
/// brand), which become such nodes.
///
/// The brand is the whole build's, not one body's: a handle of a condition made on a body can be
/// set by a kernel anywhere in the same build (the root graph, another body). The driver asks
/// only that a handle's condition has its node in the graph it was made on or a child of it
/// (the builder's check) and that it is set from its context (every node of a build is the
/// build's context's); a kernel elsewhere in the build that sets it changes how often that body
/// runs, as a kernel of the body may, and nothing else: every body's nodes are checked as the
/// root's, over the same payload.
///
/// [`GraphBuilder::capture`]: crate::graph::GraphBuilder::capture
#[derive(Debug, Clone, Copy)]
pub struct ConditionalHandle<'b> {
    raw: ffi::CUgraphConditionalHandle,
    _marker: PhantomData<(crate::vocabulary::binding::Invariant<'b>, *const ())>,
}

impl ConditionalHandle<'_> {
    /// A handle branded `'b`.
    ///
    /// # Safety
    ///
    /// `raw` was made (`cuGraphConditionalHandleCreate`) on a graph being built or captured
    /// whose payload is bound for `'b`, the brand of that build or capture alone.
    pub(crate) unsafe fn from_raw(raw: ffi::CUgraphConditionalHandle) -> Self {
        Self {
            raw,
            _marker: PhantomData,
        }
    }
}

/// A conditional handle parameter in a [`Kernel`](crate::Kernel) signature (a 64-bit
/// `cudaGraphConditionalHandle`). Never constructed.
#[derive(Debug)]
pub struct GraphConditionalHandle(#[allow(dead_code)] ffi::CUgraphConditionalHandle);

static_assertions::assert_eq_size!(GraphConditionalHandle, u64);
static_assertions::assert_not_impl_any!(ConditionalHandle<'static>: Send, Sync);

// A conditional handle is passed as its 64-bit value.
impl sealed::Sealed for ConditionalHandle<'_> {}
impl<'b> KernelArg<'b> for ConditionalHandle<'b> {
    type Raw = ffi::CUgraphConditionalHandle;
    type Param = GraphConditionalHandle;
    #[inline]
    fn to_raw(&self) -> ffi::CUgraphConditionalHandle {
        self.raw
    }
}
impl sealed::SealedParam for GraphConditionalHandle {}
impl KernelParam for GraphConditionalHandle {}
