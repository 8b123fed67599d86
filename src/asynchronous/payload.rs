//! What owned asynchronous work can own: a [`Payload`] (device, page-locked, managed and
//! registered memory, host vectors and boxed slices, and, in their own modules, kernel
//! functions, modules, executable graphs and tuples), its held form while the GPU may use it, and
//! its form bound to a scope. A [`Submission`](crate::Submission) or a
//! [`GraphExec`](crate::graph::GraphExec) owns one.

use crate::asynchronous::pending::Holds;
use crate::error::left_behind::{Object, left_behind};
use crate::memory::{DeviceBuffer, DeviceMemory, DeviceMemoryMut, PinnedBuffer};
use crate::vocabulary::binding::{ScopedHostMut, ScopedSliceMut};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// What a [`Submission`](crate::Submission) can own while the GPU uses it: a [`DeviceBuffer`], a
/// [`PinnedBuffer`], a [`RegisteredVec`](crate::RegisteredVec), a `Vec<T>` or `Box<[T]>` of
/// plain data, a kernel [`Function`](crate::Function) or [`Kernel`](crate::Kernel), a [`Module`](crate::Module),
/// an executable graph, a graph (a child of a graph being built), an `Rc<Event>` (an event a
/// graph being built records or waits for), `()`, and tuples of these (up to eight, nested as
/// deep as you like). Sealed.
///
/// Every payload keeps the memory the GPU reaches at a fixed address when the payload itself is
/// moved (a device allocation, page-locked pages, a heap block), which is what lets a submission
/// move it into itself after enqueuing work on it. An array `[T; N]` is not a payload: its
/// elements move with it.
///
/// While a submission or a graph owns a payload it keeps it in its [`Held`](Payload::Held)
/// form, which for every payload but `Box<[T]>` is the payload itself. A `Box` asserts that it
/// is the only pointer to its elements each time it moves, which the GPU's access through the
/// address bound earlier would contradict; so a `Box<[T]>` is held as the `Vec<T>` it converts
/// to and from without copying or allocating (`into_vec`, `into_boxed_slice` of a vector whose
/// length is its capacity), and only becomes a `Box` again when it is handed back.
///
/// Inside the submission's closure the payload is seen *bound* to the scope
/// ([`Payload::Bound`]): device memory as a [`ScopedSliceMut`], host memory as a
/// [`ScopedHostMut`], a function as a `Function<'scope>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be moved into a submission or graph (it is not a `Payload`)",
    note = "a payload is owned memory whose address survives a move: a `DeviceBuffer`, `PinnedBuffer`, `ManagedBuffer`, `RegisteredVec`, `Vec<T>` or `Box<[T]>` of plain data, a `Function`, `Kernel` or `Module`, a `GraphExec`, `()`, or a tuple of these",
    note = "move the owned value in (`dev`, not `&dev` or `&mut dev`) and take it back from `wait()`; for host data use a `Vec<T>` or `Box<[T]>` rather than an array, whose elements move with it",
    note = "a parked value (`ParkedBuffer`, `ParkedModule`, `ParkedGraph`, …) is attached to a guard of its own context first (`attach`, `attach_module`, `attach_graph`, …)"
)]
pub trait Payload: sealed::Sealed + Sized {
    /// The payload as the operations of a scope `'scope` take it.
    type Bound<'scope>;

    /// The payload as the host may reach it while no work uses it, without being able to
    /// replace the memory the GPU work was built on: device memory as a
    /// [`DeviceViewMut`](crate::DeviceViewMut), host memory as `&mut [T]`, a function as itself,
    /// a module as `&Module`.
    /// (See [`GraphExec::payload_mut`](crate::graph::GraphExec::payload_mut).)
    type Access<'a>
    where
        Self: 'a;

    /// The payload as the host may read it while no work writes it: device memory as a
    /// [`DeviceView`](crate::DeviceView), host memory as `&[T]`, a function as itself, a module
    /// as `&Module`. (See
    /// [`GraphExec::payload`](crate::graph::GraphExec::payload).)
    type Read<'a>
    where
        Self: 'a;

    /// How a submission or a graph keeps the payload while it owns it: the payload itself, but
    /// for `Box<[T]>`, kept as a `Vec<T>` (see the trait's documentation).
    #[doc(hidden)]
    type Held;

    /// The payload in its held form.
    #[doc(hidden)]
    fn hold(self) -> Self::Held;

    /// The payload back from its held form, once no work uses it.
    #[doc(hidden)]
    fn release(held: Self::Held) -> Self;

    /// Binds a held payload to a scope.
    ///
    /// # Safety
    ///
    /// The held payload must not be moved in a way that moves the memory it names, dropped,
    /// released, or reached by the host until the scope's work is complete; `'scope` must not
    /// outlive that.
    #[doc(hidden)]
    unsafe fn bind<'scope>(held: &mut Self::Held) -> Self::Bound<'scope>;

    /// A held payload's [`Access`](Payload::Access) form.
    #[doc(hidden)]
    fn access<'a>(held: &'a mut Self::Held) -> Self::Access<'a>
    where
        Self: 'a;

    /// A held payload's [`Read`](Payload::Read) form.
    #[doc(hidden)]
    fn read<'a>(held: &'a Self::Held) -> Self::Read<'a>
    where
        Self: 'a;

    /// Names to the checking driver each driver object of a held payload that custack is
    /// leaving behind on purpose (work may still use it), before it leaks the payload. Nothing
    /// for a payload that holds no driver object.
    ///
    /// # Safety
    ///
    /// `held` is leaked right after by the caller: never dropped, released nor reached again.
    /// The checking driver counts no object so named as a leak, so a call for a payload the
    /// program goes on to use or free would hide its own leaks from the double (R10); `unsafe`
    /// keeps it custack's alone, though the sealed trait's methods are nameable.
    #[doc(hidden)]
    #[inline]
    unsafe fn left_behind(held: &Self::Held) {
        let _ = held;
    }
}

/// What a submission holds: a [`Payload`] in its held form ([`Holds`]).
pub(crate) struct AsPayload<P>(PhantomData<P>);

impl<P: Payload> Holds for AsPayload<P> {
    type Held = P::Held;
    #[inline]
    unsafe fn left_behind(held: &P::Held) {
        // SAFETY: the caller's promise, for the same held payload.
        unsafe { P::left_behind(held) };
    }
}

/// `Held = Self`: the payload itself is what a submission or graph keeps.
macro_rules! held_as_itself {
    () => {
        type Held = Self;
        #[inline]
        fn hold(self) -> Self {
            self
        }
        #[inline]
        fn release(held: Self) -> Self {
            held
        }
    };
}
pub(crate) use held_as_itself;

/// A payload that is a copyable handle (a function, a kernel): held as itself, its `Access` and
/// `Read` forms a copy of itself, `$t`, with the lifetime of what it borrows.
macro_rules! copied_forms {
    ($t:ty) => {
        $crate::asynchronous::payload::held_as_itself!();
        type Access<'a>
            = $t
        where
            Self: 'a;
        type Read<'a>
            = $t
        where
            Self: 'a;
        #[inline]
        fn access<'a>(held: &'a mut Self) -> $t
        where
            Self: 'a,
        {
            *held
        }
        #[inline]
        fn read<'a>(held: &'a Self) -> $t
        where
            Self: 'a,
        {
            *held
        }
    };
}
pub(crate) use copied_forms;

/// The `Access` and `Read` forms of a payload of device memory: a
/// [`DeviceViewMut`](crate::memory::DeviceViewMut) and a [`DeviceView`](crate::memory::DeviceView)
/// of the held buffer, or of its field named.
macro_rules! device_view_forms {
    ($t:ty $(, $field:ident)?) => {
        type Access<'a>
            = $crate::memory::DeviceViewMut<'a, $t>
        where
            Self: 'a;
        type Read<'a>
            = $crate::memory::DeviceView<'a, $t>
        where
            Self: 'a;
        #[inline]
        fn access<'a>(held: &'a mut Self) -> $crate::memory::DeviceViewMut<'a, $t>
        where
            Self: 'a,
        {
            held$(.$field)?.as_view_mut()
        }
        #[inline]
        fn read<'a>(held: &'a Self) -> $crate::memory::DeviceView<'a, $t>
        where
            Self: 'a,
        {
            held$(.$field)?.as_view()
        }
    };
}

impl<T: DeviceCopy> sealed::Sealed for DeviceBuffer<'_, T> {}
impl<T: DeviceCopy> Payload for DeviceBuffer<'_, T> {
    type Bound<'scope> = ScopedSliceMut<'scope, T>;
    device_view_forms!(T);
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedSliceMut<'scope, T> {
        // SAFETY: the buffer's device memory lives until the buffer drops, which the caller
        // promises happens only after the scope's work; `&mut` and the caller's promise give
        // the scope exclusive access.
        unsafe { ScopedSliceMut::from_raw_parts(held.device_ptr(), held.len()) }
    }
    unsafe fn left_behind(held: &Self) {
        left_behind(Object::DeviceMemory, held.device_ptr());
    }
}

/// The `Access` and `Read` forms of a payload whose host elements it derefs to: `&mut [T]` and
/// `&[T]`.
macro_rules! host_slice_forms {
    ($t:ty) => {
        type Access<'a>
            = &'a mut [$t]
        where
            Self: 'a;
        type Read<'a>
            = &'a [$t]
        where
            Self: 'a;
        #[inline]
        fn access<'a>(held: &'a mut Self::Held) -> &'a mut [$t]
        where
            Self: 'a,
        {
            held
        }
        #[inline]
        fn read<'a>(held: &'a Self::Held) -> &'a [$t]
        where
            Self: 'a,
        {
            held
        }
    };
}

impl<T: DeviceCopy> sealed::Sealed for PinnedBuffer<'_, T> {}
impl<T: DeviceCopy> Payload for PinnedBuffer<'_, T> {
    type Bound<'scope> = ScopedHostMut<'scope, T>;
    host_slice_forms!(T);
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedHostMut<'scope, T> {
        // The raw pointer, not `as_mut_ptr` through `DerefMut`: the work may outlive later
        // host access (`access`, between graph launches, or a joint submission's bind), and a
        // pointer derived from a `&mut [T]` would be invalidated by the next one (Stacked
        // Borrows; found by Miri through the checking driver).
        // SAFETY: the page-locked pages do not move with the buffer and live until it drops,
        // after the scope's work (the caller's promise).
        unsafe { ScopedHostMut::from_raw_parts(held.raw_ptr(), held.len()) }
    }
    unsafe fn left_behind(held: &Self) {
        left_behind(Object::HostMemory, held.as_ptr() as u64);
    }
}

impl<T: DeviceCopy> sealed::Sealed for crate::memory::managed::ManagedBuffer<'_, T> {}
impl<T: DeviceCopy> Payload for crate::memory::managed::ManagedBuffer<'_, T> {
    type Bound<'scope> = ScopedSliceMut<'scope, T>;
    host_slice_forms!(T);
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedSliceMut<'scope, T> {
        // SAFETY: as for `DeviceBuffer`: the allocation lives until the buffer drops.
        unsafe { ScopedSliceMut::from_raw_parts(held.device_ptr(), held.len()) }
    }
    unsafe fn left_behind(held: &Self) {
        left_behind(Object::DeviceMemory, held.device_ptr());
    }
}

impl<T: DeviceCopy> sealed::Sealed for crate::memory::registered::RegisteredVec<'_, T> {}
impl<T: DeviceCopy> Payload for crate::memory::registered::RegisteredVec<'_, T> {
    type Bound<'scope> = ScopedHostMut<'scope, T>;
    host_slice_forms!(T);
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedHostMut<'scope, T> {
        // SAFETY: the registered elements stay where they are while the vector is owned by the
        // submission (it cannot grow through a `RegisteredVec`) and unregistered only on drop.
        // The pointer is taken without a reference to the elements, as for `PinnedBuffer`.
        unsafe { ScopedHostMut::from_raw_parts(held.raw_ptr(), held.len()) }
    }
}

impl<T: DeviceCopy> sealed::Sealed for Vec<T> {}
impl<T: DeviceCopy> Payload for Vec<T> {
    type Bound<'scope> = ScopedHostMut<'scope, T>;
    host_slice_forms!(T);
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedHostMut<'scope, T> {
        // `Vec::as_mut_ptr` makes no reference to the elements (its documented guarantee), so
        // the pointer survives later host access, as for `PinnedBuffer`; and a `Vec` asserts
        // nothing about its elements when it moves (unlike a `Box`).
        // SAFETY: the heap block does not move with the `Vec`, and cannot be reallocated: the
        // submission owns the `Vec` and offers no access to it until the work is complete
        // (`access` lends a slice, which cannot grow it).
        unsafe { ScopedHostMut::from_raw_parts(Vec::as_mut_ptr(held), held.len()) }
    }
}

impl<T: DeviceCopy> sealed::Sealed for Box<[T]> {}
impl<T: DeviceCopy> Payload for Box<[T]> {
    type Bound<'scope> = ScopedHostMut<'scope, T>;
    host_slice_forms!(T);
    // Held as a `Vec`: moving a `Box` (into a tuple, a graph, a submission and back) retags it
    // as the unique pointer to its elements, which invalidates the address the GPU work was
    // bound to (undefined behaviour under Stacked and Tree Borrows). A `Vec` asserts
    // no such thing.
    type Held = Vec<T>;
    #[inline]
    fn hold(self) -> Vec<T> {
        // No copy, no allocation: the vector takes the box's block, capacity = length.
        self.into_vec()
    }
    #[inline]
    fn release(held: Vec<T>) -> Self {
        // No copy, no allocation: the length is still the capacity (`access` lends a slice,
        // which cannot grow or shrink the vector).
        held.into_boxed_slice()
    }
    #[inline]
    unsafe fn bind<'scope>(held: &mut Vec<T>) -> ScopedHostMut<'scope, T> {
        // SAFETY: as for `Vec`.
        unsafe { <Vec<T> as Payload>::bind(held) }
    }
}

impl sealed::Sealed for () {}
impl Payload for () {
    type Bound<'scope> = ();
    type Access<'a> = ();
    type Read<'a> = ();
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>((): &mut ()) -> Self::Bound<'scope> {}
    #[inline]
    fn access<'a>((): &'a mut ()) -> Self::Access<'a>
    where
        Self: 'a,
    {
    }
    #[inline]
    fn read<'a>((): &'a ()) -> Self::Read<'a>
    where
        Self: 'a,
    {
    }
}
