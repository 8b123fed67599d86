//! Memory bound to a stream scope: the handles a [`StreamScope`](crate::StreamScope)'s
//! operations take (device memory read or written, host memory, stream-ordered allocations),
//! branded with the scope's invariant lifetime, and how each is passed as a kernel argument.
//! The scope that makes them is in `asynchronous/scope.rs`; the owners of memory convert into
//! them in their own modules ([`host_from!`]).

use crate::error::Result;
use crate::error::left_behind::Object;
use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;
use core::cell::Cell;
use core::marker::PhantomData;

impl<T: DeviceCopy> ScopedSlice<'_, T> {
    /// # Safety
    ///
    /// `ptr..ptr + len * size_of::<T>()` must be live device memory of the current context,
    /// written by nothing until the scope's work is complete.
    #[inline]
    pub(crate) unsafe fn from_raw_parts(ptr: ffi::CUdeviceptr, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }
}

impl<T: DeviceCopy> ScopedSliceMut<'_, T> {
    /// # Safety
    ///
    /// `ptr..ptr + len * size_of::<T>()` must be live device memory of the current context,
    /// reached by nothing else until the scope's work is complete.
    #[inline]
    pub(crate) unsafe fn from_raw_parts(ptr: ffi::CUdeviceptr, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }
}

impl<T: DeviceCopy> ScopedHostMut<'_, T> {
    /// # Safety
    ///
    /// `ptr` must be valid for reads and writes of `len` elements, reached by nothing else
    /// until the scope's work is complete.
    #[inline]
    pub(crate) unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }
}

/// Device memory bound to a [`StreamScope`](crate::StreamScope) for reading: a `Copy` handle, usable in any
/// number of operations of that scope (they run in stream order), invariant in `'scope` so it
/// cannot be used in another scope (another stream, running concurrently).
#[derive(Debug, Clone, Copy)]
pub struct ScopedSlice<'scope, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(Invariant<'scope>, *const T)>,
}

/// Device memory bound exclusively to a [`StreamScope`](crate::StreamScope): readable and writable by the scope's
/// operations, in stream order; nothing outside the scope can touch it until the scope ends.
///
/// Not `Copy`: operations take `&` or `&mut` of it, so one launch cannot receive the same
/// memory both shared and mutable, or mutable twice (C14). Its memory stays bound for the whole
/// scope, so a borrow of the handle of any length is enough.
#[derive(Debug)]
pub struct ScopedSliceMut<'scope, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(Invariant<'scope>, *const T)>,
}

/// Host memory bound to a [`StreamScope`](crate::StreamScope) for reading by its copies. `&'scope [T]` converts
/// into it, so binding is only needed to use memory both ways in one scope.
#[derive(Debug, Clone, Copy)]
pub struct ScopedHost<'scope, T: DeviceCopy> {
    ptr: *const T,
    len: usize,
    _marker: PhantomData<Invariant<'scope>>,
}

/// Host memory bound exclusively to a [`StreamScope`](crate::StreamScope): its copies may read and write it, in
/// stream order; the host cannot touch it until the scope ends. `&'scope mut [T]` converts
/// into it.
///
/// "Exclusive" is towards the host, not between the scope's own operations: the value is `Copy`,
/// so several copies of one scope may write and read the same memory. That is sound because
/// every operation that can take a `ScopedHostMut<'scope, _>` is enqueued on the one stream of
/// the scope branded `'scope` (`'scope` is invariant, so a nested scope on another stream cannot
/// take it), and a stream runs its operations one after another: they never overlap.
#[derive(Debug, Clone, Copy)]
pub struct ScopedHostMut<'scope, T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    _marker: PhantomData<Invariant<'scope>>,
}

impl<T: DeviceCopy> ScopedHost<'_, T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub(crate) fn as_ptr(&self) -> *const T {
        self.ptr
    }
}

impl<T: DeviceCopy> ScopedHostMut<'_, T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub(crate) fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }
}

impl<'scope, T: DeviceCopy> From<&'scope [T]> for ScopedHost<'scope, T> {
    fn from(s: &'scope [T]) -> Self {
        Self {
            ptr: s.as_ptr(),
            len: s.len(),
            _marker: PhantomData,
        }
    }
}
impl<'scope, T: DeviceCopy> From<ScopedHostMut<'scope, T>> for ScopedHost<'scope, T> {
    fn from(m: ScopedHostMut<'scope, T>) -> Self {
        Self {
            ptr: m.ptr,
            len: m.len,
            _marker: PhantomData,
        }
    }
}
impl<'scope, T: DeviceCopy> From<&'scope mut [T]> for ScopedHostMut<'scope, T> {
    fn from(s: &'scope mut [T]) -> Self {
        Self {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            _marker: PhantomData,
        }
    }
}

/// `impl Into<…>` arguments do not deref-coerce, so the common owners of host memory convert
/// directly: `host_from!([] Vec<T>, [] PinnedBuffer<'_, T>)` implements `From<&owner>` for
/// [`ScopedHost`] and `From<&mut owner>` for [`ScopedHost`] and [`ScopedHostMut`], each owner in
/// its own module.
macro_rules! host_from {
    ($([$($g:tt)*] $ty:ty),*) => {$(
        impl<'scope, T: $crate::vocabulary::plain::DeviceCopy $($g)*> From<&'scope $ty>
            for $crate::vocabulary::binding::ScopedHost<'scope, T>
        {
            fn from(s: &'scope $ty) -> Self {
                (&s[..]).into()
            }
        }
        impl<'scope, T: $crate::vocabulary::plain::DeviceCopy $($g)*> From<&'scope mut $ty>
            for $crate::vocabulary::binding::ScopedHost<'scope, T>
        {
            fn from(s: &'scope mut $ty) -> Self {
                (&s[..]).into()
            }
        }
        impl<'scope, T: $crate::vocabulary::plain::DeviceCopy $($g)*> From<&'scope mut $ty>
            for $crate::vocabulary::binding::ScopedHostMut<'scope, T>
        {
            fn from(s: &'scope mut $ty) -> Self {
                (&mut s[..]).into()
            }
        }
    )*};
}
pub(crate) use host_from;
host_from!([] Vec<T>, [, const N: usize] [T; N]);

/// `'scope` invariant: a handle of one scope is never accepted by another.
pub(crate) type Invariant<'scope> = fn(&'scope ()) -> &'scope ();

static_assertions::assert_eq_size!(ScopedSliceMut<'static, u8>, (ffi::CUdeviceptr, usize));

impl<'scope, T: DeviceCopy> From<ScopedSliceMut<'scope, T>> for ScopedSlice<'scope, T> {
    fn from(m: ScopedSliceMut<'scope, T>) -> Self {
        Self {
            ptr: m.ptr,
            len: m.len,
            _marker: PhantomData,
        }
    }
}

macro_rules! scoped_common {
    ($ty:ident) => {
        impl<T: DeviceCopy> $ty<'_, T> {
            /// The number of elements.
            pub fn len(&self) -> usize {
                self.len
            }
            /// Whether there are no elements.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }
            /// The device address of the first element.
            pub fn device_ptr(&self) -> ffi::CUdeviceptr {
                self.ptr
            }
        }
    };
}
scoped_common!(ScopedSlice);
scoped_common!(ScopedSliceMut);

/// Device memory allocated in stream order on a [`StreamScope`](crate::StreamScope) ([`StreamScope::alloc`](crate::StreamScope::alloc)),
/// freed in stream order (`cuMemFreeAsync`) when dropped. Branded with the scope, so it cannot
/// leave it; operations take it by reference, so none can use it after its free is enqueued.
#[derive(Debug)]
#[doc(alias = "cuMemAllocAsync")]
pub struct ScopedAlloc<'scope, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    stream: ffi::CUstream,
    _marker: PhantomData<(Invariant<'scope>, *const T)>,
}

impl<T: DeviceCopy> ScopedAlloc<'_, T> {
    /// # Safety
    ///
    /// `ptr` must be a stream-ordered allocation of `len` elements made on `stream`, a live
    /// stream of the current context, owned by the returned value (or graph memory that
    /// `cuMemFreeAsync` frees on `stream`, owned so, whose executable graph is borrowed for
    /// `'scope`: `StreamScope::bind_kept`).
    pub(crate) unsafe fn from_raw_parts(
        ptr: ffi::CUdeviceptr,
        len: usize,
        stream: ffi::CUstream,
    ) -> Self {
        Self {
            ptr,
            len,
            stream,
            _marker: PhantomData,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements (never: allocations are non-empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device address of the first element.
    pub fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.ptr
    }

    /// `cuMemFreeAsync`—Enqueues the free on the scope's stream, returning the driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemFreeAsync")]
    pub fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        crate::error::left_behind::release(Object::DeviceMemory, this.ptr)?;
        // SAFETY: allocated by `cuMemAllocAsync` on `stream`, freed once (`this` never drops),
        // in stream order after every operation that used it.
        unsafe { ffi::cuMemFreeAsync(this.ptr, this.stream) }.result()
    }
}

impl<T: DeviceCopy> Drop for ScopedAlloc<'_, T> {
    #[inline]
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::DeviceMemory, self.ptr, || {
            // SAFETY: as in `free`. The stream is live: the scope borrows it, and the allocation
            // cannot outlive the scope.
            unsafe { ffi::cuMemFreeAsync(self.ptr, self.stream) }.result()
        });
    }
}

// Graph allocations (`GraphBuilder::alloc`): device memory of a graph being built, which
// notes each use for the builder's checks.
/// Device memory of `len` elements of `T` allocated by an allocation node of the graph being
/// built by the [`GraphBuilder<'b>`](crate::graph::GraphBuilder) of the same `'b`
/// ([`GraphBuilder::alloc`](crate::graph::GraphBuilder::alloc)), freed by the free node
/// [`GraphBuilder::free`](crate::graph::GraphBuilder::free) makes of it.
///
/// It is used as the payload's device memory is, by nodes of that build only (`'b` is
/// invariant): `&mut a` where a node writes (a memset, a copy's destination, a kernel's
/// `&mut` buffer), `&a` where it reads. Every node that uses it must come after its allocation
/// node, and its free node after every node that used it (checked by the builder, which
/// refuses the node otherwise); [`free`](crate::graph::GraphBuilder::free) consumes it, so no node
/// can use it after. Not `Copy`, not `Send`; it cannot leave the builder's closure. Its contents
/// are unspecified before a node writes them (plain data: any bit pattern is a valid `T`).
#[derive(Debug)]
#[doc(alias = "cuGraphAddMemAllocNode")]
pub struct GraphAlloc<'b, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    /// The build's tracker.
    tracker: u64,
    /// The allocation's number in its tracker.
    index: usize,
    _marker: PhantomData<(Invariant<'b>, *const T)>,
}

static_assertions::assert_not_impl_any!(GraphAlloc<'static, u32>: Send, Sync, Clone);

impl<T: DeviceCopy> GraphAlloc<'_, T> {
    /// # Safety
    ///
    /// `ptr` must be the memory of an allocation node of the graph being built, holding `len`
    /// elements, numbered `index` in the build's tracker `tracker`.
    pub(crate) unsafe fn from_raw_parts(
        ptr: ffi::CUdeviceptr,
        len: usize,
        tracker: u64,
        index: usize,
    ) -> Self {
        Self {
            ptr,
            len,
            tracker,
            index,
            _marker: PhantomData,
        }
    }
    /// The allocation's number in its build's tracker.
    pub(crate) fn index(&self) -> usize {
        self.index
    }
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements (never: allocations are non-empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device address of the first element, fixed for the graph's lifetime (the memory
    /// behind it exists only between the allocation and free nodes of each launch).
    pub fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.ptr
    }
    /// The address, its use noted for the node being made.
    fn used(&self) -> ffi::CUdeviceptr {
        note_use(self.tracker, self.index);
        self.ptr
    }
}

std::thread_local! {
    /// The allocations whose pointers left them since the last node was made: (tracker,
    /// allocation).
    static USES: Cell<Vec<(u64, usize)>> = const { Cell::new(Vec::new()) };
    /// Whether `USES` may hold a use: set before a use is pushed or a list put back, cleared
    /// only as the list is taken. Never false while `USES` holds one (true with `USES` empty
    /// costs the next node the slow path, nothing else). No destructor and a constant start,
    /// so reading it is one load, where the list's own access checks its destructor's
    /// registration first: what lets the builder's node without uses skip the list.
    static NOTED: Cell<bool> = const { Cell::new(false) };
}

std::thread_local! {
    /// How many captures into a graph being built this thread is inside of, and the trackers
    /// whose allocations were used there: the driver makes the captured work's nodes, which the
    /// builder never sees, so it cannot check their order against the allocation's nodes.
    static IN_CAPTURE: Cell<usize> = const { Cell::new(0) };
    static UNORDERED: Cell<Vec<u64>> = const { Cell::new(Vec::new()) };
}

/// Marks this thread as inside a capture into a graph being built until dropped (also on
/// unwind): a graph allocation used meanwhile marks its build as unordered. The uses noted
/// for the builder's next node before it are kept for that node; those noted inside are the
/// captured nodes', which no builder node takes.
pub(crate) struct CapturingUses {
    before: Vec<(u64, usize)>,
}

impl CapturingUses {
    pub(crate) fn enter() -> Self {
        IN_CAPTURE.with(|c| c.set(c.get() + 1));
        Self {
            before: take_uses(),
        }
    }
}

impl Drop for CapturingUses {
    fn drop(&mut self) {
        IN_CAPTURE.with(|c| c.set(c.get().saturating_sub(1)));
        let before = core::mem::take(&mut self.before);
        NOTED.with(|n| n.set(!before.is_empty()));
        USES.with(|u| u.set(before));
    }
}

/// Whether an allocation of `tracker` was used inside a capture into a graph; with `forget`,
/// the mark is cleared (the build is ending).
pub(crate) fn used_in_capture(tracker: u64, forget: bool) -> bool {
    // `try_with`: a tracker dropped as the thread ends finds no mark to clear, never a panic.
    UNORDERED
        .try_with(|u| {
            let mut marked = u.take();
            let found = marked.contains(&tracker);
            if forget {
                marked.retain(|&t| t != tracker);
            }
            u.set(marked);
            found
        })
        .unwrap_or(false)
}

/// Notes a use of allocation `index` of `tracker` by the node being made.
pub(crate) fn note_use(tracker: u64, index: usize) {
    if IN_CAPTURE.with(Cell::get) > 0 {
        UNORDERED.with(|u| {
            let mut marked = u.take();
            if !marked.contains(&tracker) {
                marked.push(tracker);
            }
            u.set(marked);
        });
    }
    NOTED.with(|n| n.set(true));
    USES.with(|u| {
        let mut uses = u.take();
        if !uses.contains(&(tracker, index)) {
            uses.push((tracker, index));
        }
        u.set(uses);
    });
}

/// Drops the uses noted for `tracker`'s allocations (its build is over), keeping the others'.
pub(crate) fn forget_uses_of(tracker: u64) {
    if !uses_noted() {
        return;
    }
    // `try_with`: a tracker dropped as the thread ends finds no list, never a panic.
    let _ = USES.try_with(|u| {
        let mut uses = u.take();
        uses.retain(|&(t, _)| t != tracker);
        let _ = NOTED.try_with(|n| n.set(!uses.is_empty()));
        u.set(uses);
    });
}

/// The uses noted since the last node was made, cleared.
#[inline]
pub(crate) fn take_uses() -> Vec<(u64, usize)> {
    NOTED.with(|n| n.set(false));
    USES.with(Cell::take)
}

/// Whether a use may have been noted since the last node was made: `false` only when
/// [`take_uses`] would return an empty list (and then taking it changes nothing). One load.
#[inline]
pub(crate) fn uses_noted() -> bool {
    NOTED.with(Cell::get)
}

mod scoped_sealed {
    pub trait Sealed {}
}

/// Device memory that the operations of the scope `'scope` may read: a [`ScopedSlice`], a
/// [`ScopedSliceMut`] or a reference to one, or a reference to a [`ScopedAlloc`] of that
/// scope; in a graph being built, a reference to a [`GraphAlloc`] of that build. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory of `{T}` bound to this scope",
    note = "bind device memory to the scope first: `let a = s.bind(&x);` and pass `a`, or `let b = s.bind_mut(&mut y);` and pass `&b` or `&mut b`; a `ScopedAlloc` is passed by reference"
)]
pub trait ScopedRead<'scope, T: DeviceCopy>: scoped_sealed::Sealed + Sized {
    /// The device address and the number of elements.
    #[doc(hidden)]
    fn raw_parts(self) -> (ffi::CUdeviceptr, usize);
}

/// Device memory that the operations of the scope `'scope` may write: a [`ScopedSliceMut`],
/// `&mut` one, or `&mut` a [`ScopedAlloc`] of that scope (or a [`GraphAlloc`] of that build).
/// Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory of `{T}` this scope may write",
    note = "a destination is bound with `bind_mut`: `let b = s.bind_mut(&mut y);` and pass `&mut b` (or `b`); a `s.bind(&x)` binding only reads; a `ScopedAlloc` is passed as `&mut`"
)]
pub trait ScopedWrite<'scope, T: DeviceCopy>: ScopedRead<'scope, T> {}

macro_rules! scoped_read {
    ($([$($lt:lifetime)?] $ty:ty),* ; write: $([$($wlt:lifetime)?] $wty:ty),*) => {
        $(
            impl<$($lt,)? 'scope, T: DeviceCopy> scoped_sealed::Sealed for $ty {}
            impl<$($lt,)? 'scope, T: DeviceCopy> ScopedRead<'scope, T> for $ty {
                #[inline]
                fn raw_parts(self) -> (ffi::CUdeviceptr, usize) {
                    (self.ptr, self.len)
                }
            }
        )*
        $(impl<$($wlt,)? 'scope, T: DeviceCopy> ScopedWrite<'scope, T> for $wty {})*
    };
}
scoped_read!(
    [] ScopedSlice<'scope, T>, [] ScopedSliceMut<'scope, T>,
    ['a] &'a ScopedSliceMut<'scope, T>, ['a] &'a mut ScopedSliceMut<'scope, T>,
    ['a] &'a ScopedAlloc<'scope, T>, ['a] &'a mut ScopedAlloc<'scope, T>;
    write: [] ScopedSliceMut<'scope, T>, ['a] &'a mut ScopedSliceMut<'scope, T>,
        ['a] &'a mut ScopedAlloc<'scope, T>
);

// Device memory bound to a scope is a kernel argument of that scope (C15), passed as its device
// pointer: the binding itself, or `&` and `&mut` of a binding passed by reference
// (`device_arg!(by_ref …)`).
macro_rules! device_arg {
    (by_ref $($ty:ident),*) => {$(
        $crate::vocabulary::binding::device_arg!(@impl [&$ty<'_, T>] [&$ty<'scope, T>]);
        $crate::vocabulary::binding::device_arg!(@impl [&mut $ty<'_, T>] [&mut $ty<'scope, T>]);
    )*};
    (@impl [$sealed:ty] [$arg:ty]) => {
        impl<T: $crate::vocabulary::plain::DeviceCopy> $crate::vocabulary::argument::sealed::Sealed
            for $sealed
        {
        }
        impl<'scope, T: $crate::vocabulary::plain::DeviceCopy>
            $crate::vocabulary::argument::KernelArg<'scope> for $arg
        {
            type Raw = $crate::ffi::CUdeviceptr;
            type Param = $crate::vocabulary::argument::DevicePtr<T>;
            #[inline]
            fn to_raw(&self) -> $crate::ffi::CUdeviceptr {
                self.device_ptr()
            }
        }
    };
    ($($ty:ident),*) => {$(
        $crate::vocabulary::binding::device_arg!(@impl [$ty<'_, T>] [$ty<'scope, T>]);
    )*};
}
pub(crate) use device_arg;
device_arg!(ScopedSlice, ScopedSliceMut);

// A mutable binding is passed by reference (`&x` to read, `&mut x` to write), so one launch
// cannot alias it; the memory stays bound for the whole scope, so any borrow is enough.
device_arg!(by_ref ScopedSliceMut);

// A stream-ordered allocation is passed by reference: its free is enqueued on the same stream
// when it drops, after this launch, so a borrow shorter than the scope is enough.
device_arg!(by_ref ScopedAlloc);

// A graph allocation is device memory of the build `'scope`, read through `&` and written through
// `&mut`, as a stream-ordered allocation of a scope is; its address leaving it notes its use.
impl<T: DeviceCopy> scoped_sealed::Sealed for &GraphAlloc<'_, T> {}
impl<T: DeviceCopy> scoped_sealed::Sealed for &mut GraphAlloc<'_, T> {}
impl<'scope, T: DeviceCopy> ScopedRead<'scope, T> for &GraphAlloc<'scope, T> {
    #[inline]
    fn raw_parts(self) -> (ffi::CUdeviceptr, usize) {
        (self.used(), self.len)
    }
}
impl<'scope, T: DeviceCopy> ScopedRead<'scope, T> for &mut GraphAlloc<'scope, T> {
    #[inline]
    fn raw_parts(self) -> (ffi::CUdeviceptr, usize) {
        (self.used(), self.len)
    }
}
impl<'scope, T: DeviceCopy> ScopedWrite<'scope, T> for &mut GraphAlloc<'scope, T> {}

// A graph allocation is a kernel argument of its build, passed by reference as its device
// pointer, its use noted for the node being made.
macro_rules! graph_alloc_arg {
    ($([$sealed:ty] [$arg:ty]),*) => {$(
        impl<T: DeviceCopy> $crate::vocabulary::argument::sealed::Sealed for $sealed {}
        impl<'scope, T: DeviceCopy> $crate::vocabulary::argument::KernelArg<'scope> for $arg {
            type Raw = $crate::ffi::CUdeviceptr;
            type Param = $crate::vocabulary::argument::DevicePtr<T>;
            #[inline]
            fn to_raw(&self) -> $crate::ffi::CUdeviceptr {
                self.used()
            }
        }
    )*};
}
graph_alloc_arg!(
    [&GraphAlloc<'_, T>] [&GraphAlloc<'scope, T>],
    [&mut GraphAlloc<'_, T>] [&mut GraphAlloc<'scope, T>]
);
