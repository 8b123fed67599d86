//! Tuples of payloads: one macro implements every trait of the payload family for tuples of one
//! to eight elements, element by element, so that a tuple is a [`Payload`] (and parks,
//! attaches, lends peer sources and parks with a graph) exactly when each of its elements is.

use crate::asynchronous::payload::{Payload, sealed as payload_sealed};
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::ffi;
use crate::parking::graph::{ParkWithGraph, Unpark};
use crate::parking::submission::{Park, ParkedPayload, PendingView, sealed as parked_sealed};

macro_rules! tuple {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Payload),+> payload_sealed::Sealed for ($($name,)+) {}
        impl<$($name: Payload),+> Payload for ($($name,)+) {
            type Bound<'scope> = ($($name::Bound<'scope>,)+);
            type Access<'a> = ($($name::Access<'a>,)+) where Self: 'a;
            type Read<'a> = ($($name::Read<'a>,)+) where Self: 'a;
            type Held = ($($name::Held,)+);
            #[inline]
            fn hold(self) -> Self::Held {
                ($($name::hold(self.$idx),)+)
            }
            #[inline]
            fn release(held: Self::Held) -> Self {
                ($($name::release(held.$idx),)+)
            }
            #[inline]
            unsafe fn bind<'scope>(held: &mut Self::Held) -> Self::Bound<'scope> {
                // SAFETY: the caller's promise covers every element.
                ($(unsafe { $name::bind(&mut held.$idx) },)+)
            }
            #[inline]
            fn access<'a>(held: &'a mut Self::Held) -> Self::Access<'a>
            where
                Self: 'a,
            {
                ($($name::access(&mut held.$idx),)+)
            }
            #[inline]
            fn read<'a>(held: &'a Self::Held) -> Self::Read<'a>
            where
                Self: 'a,
            {
                ($($name::read(&held.$idx),)+)
            }
            unsafe fn left_behind(held: &Self::Held) {
                // SAFETY: the caller leaks the tuple, and so each of its parts.
                $(unsafe { $name::left_behind(&held.$idx) };)+
            }
        }

        impl<$($name: ParkedPayload),+> parked_sealed::Sealed for ($($name,)+) {}
        impl<$($name: ParkedPayload),+> ParkedPayload for ($($name,)+) {
            type Held = ($($name::Held,)+);
            #[inline]
            fn release(held: Self::Held) -> Self {
                ($($name::release(held.$idx),)+)
            }
            unsafe fn left_behind(held: &Self::Held) {
                // SAFETY: the caller leaks the tuple, and so each of its parts.
                $(unsafe { $name::left_behind(&held.$idx) };)+
            }
        }

        impl<'ctx, K: ContextKind, $($name: Park<'ctx, K>),+> Park<'ctx, K> for ($($name,)+) {
            type Parked = ($($name::Parked,)+);
            #[inline]
            unsafe fn park(
                held: Self::Held,
                ctx: ffi::CUcontext,
            ) -> <Self::Parked as ParkedPayload>::Held {
                // SAFETY: the caller's promise covers every element.
                ($(unsafe { $name::park(held.$idx, ctx) },)+)
            }
        }

        impl<$($name: PendingView),+> PendingView for ($($name,)+) {
            type View<'p> = ($($name::View<'p>,)+);
            #[inline]
            unsafe fn pending_view<'p>(held: &Self::Held) -> Self::View<'p> {
                // SAFETY: the caller's promise covers every element.
                ($(unsafe { $name::pending_view(&held.$idx) },)+)
            }
        }

        impl<'ctx, K: ContextKind, $($name: Unpark<'ctx, K>),+> Unpark<'ctx, K> for ($($name,)+) {
            type Attached<'g>
                = ($($name::Attached<'g>,)+)
            where
                'ctx: 'g,
                K: 'g;
            #[inline]
            fn unpark<'g>(
                held: Self::Held,
                guard: &'g PushedGuard<'ctx, '_, K>,
            ) -> Result<<Self::Attached<'g> as Payload>::Held> {
                Ok(($($name::unpark(held.$idx, guard)?,)+))
            }
        }

        impl<'ctx, K: ContextKind, $($name: ParkWithGraph<'ctx, K>),+> ParkWithGraph<'ctx, K>
            for ($($name,)+)
        {
        }
    };
}
tuple!(A 0);
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
