//! What a contract is made of: the [`Contract`] trait and the launches a contract allows
//! ([`PlainLaunch`], [`CooperativeLaunch`], [`ClusterLaunch`]), the kinds of its parameters
//! ([`ParamKind`]), and the arguments each kind takes in a launch ([`ContractArg`],
//! [`ContractArgs`]) with the memory each holds.

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
use crate::error::Result;
use crate::kernel::launch::{KernelArgs, KernelSignature, LaunchConfig};
use crate::memory::pitched::ScopedPitched;
use crate::tensor_map::map::{ScopedTensorMap, TensorMapHandle};
use crate::tensor_map::rules::TensorElement;
use crate::texture::{ScopedSurface, ScopedTexture, SurfaceHandle, TextureHandle};
use crate::vocabulary::argument::{
    ConditionalHandle, DevicePtr, GraphConditionalHandle, KernelArg, KernelParam,
};
use crate::vocabulary::binding::{GraphAlloc, ScopedAlloc, ScopedSlice, ScopedSliceMut};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// A kernel's contract, declared with [`kernel_contract!`](crate::kernel_contract): the kernel's
/// name, its parameter list as a Rust [`KernelSignature`], and (in the [`ContractArgs`] impl the
/// macro writes) the extent of every buffer it reads or writes.
///
/// # Safety
///
/// The kernel named [`KERNEL`](Self::KERNEL) takes exactly the parameters of
/// [`Signature`](Self::Signature), and, launched with arguments that pass the
/// [`ContractArgs`] check, dereferences only addresses within the buffers passed to it (within
/// each buffer's declared extent), writes only buffers declared `&mut`, and never keeps an
/// address past its own run.
pub unsafe trait Contract: 'static {
    /// The kernel's name in its module (the mangled name for C++ kernels not `extern "C"`).
    const KERNEL: &'static str;
    /// The parameters' names, in order, as declared.
    const PARAMS: &'static [&'static str];
    /// The kernel's parameter list: [`DevicePtr<T>`] for a buffer, `T` for a scalar.
    type Signature: KernelSignature;
}

/// A contract whose kernel runs correctly in a plain launch: every contract declared neither
/// `cooperative` nor with a `cluster(..)` shape ([`kernel_contract!`](crate::kernel_contract)),
/// which the macro implements this for. [`StreamScope::run`] and [`run_with`](StreamScope::run_with)
/// take only these (a library kernel's declared function included); a cooperative kernel (one that
/// synchronizes the whole grid) launches with
/// [`run_cooperative`](StreamScope::run_cooperative), which checks that every block can be
/// resident at once, and a kernel written for thread-block clusters with
/// [`run_clustered`](StreamScope::run_clustered), in its declared cluster shape.
///
/// # Safety
///
/// The kernel does not rely on a cooperative launch (no grid-wide barrier, cooperative
/// groups' `grid.sync()`, which in a plain launch may wait for blocks that never run), nor on a
/// cluster shape (no distributed shared memory of other blocks, which a launch with clusters
/// of one block does not have).
#[diagnostic::on_unimplemented(
    message = "the kernel of contract `{Self}` is declared `cooperative` or with a `cluster(..)` shape: it needs that launch",
    label = "a cooperative or clustered kernel",
    note = "launch a `cooperative` kernel with `run_cooperative`, which checks that every block of the grid can be resident at once (a grid-wide barrier waits for all of them), and a `cluster(..)` kernel with `run_clustered`, which launches it in its declared cluster shape"
)]
pub unsafe trait PlainLaunch: Contract {}

/// A contract whose kernel runs correctly in a cooperative launch: every contract without a
/// `cluster(..)` shape ([`kernel_contract!`](crate::kernel_contract) implements it), which
/// [`run_cooperative`](StreamScope::run_cooperative) takes.
///
/// # Safety
///
/// The kernel does not rely on a cluster shape (see [`PlainLaunch`]).
#[diagnostic::on_unimplemented(
    message = "the kernel of contract `{Self}` is declared with a `cluster(..)` shape: it needs a launch in that shape",
    label = "a clustered kernel",
    note = "launch it with `run_clustered`, which launches it in its declared cluster shape"
)]
pub unsafe trait CooperativeLaunch: Contract {}

/// A contract whose kernel is written for thread-block clusters of one shape (distributed
/// shared memory, cluster barriers): declared with `cluster(x, y, z)`
/// ([`kernel_contract!`](crate::kernel_contract)), launched only with
/// [`run_clustered`](StreamScope::run_clustered), in exactly that shape.
///
/// # Safety
///
/// The kernel stays within its contract when launched in clusters of exactly
/// [`CLUSTER`](Self::CLUSTER) blocks (and needs no cooperative launch).
pub unsafe trait ClusterLaunch: Contract {
    /// The cluster shape, in blocks per dimension.
    const CLUSTER: (u32, u32, u32);
}

mod sealed {
    pub trait Kind {}
    pub trait Arg<K> {}
    pub trait Over<K> {}
}

/// The kind of a buffer parameter the kernel only reads, of element type `T`: `&[T; extent]`
/// in a contract. Never constructed.
#[derive(Debug)]
pub struct ReadBuffer<T: DeviceCopy>(PhantomData<fn() -> T>);
/// The kind of a buffer parameter the kernel writes (and may read), of element type `T`:
/// `&mut [T; extent]` in a contract. Never constructed.
#[derive(Debug)]
pub struct WriteBuffer<T: DeviceCopy>(PhantomData<fn() -> T>);
/// The kind of a scalar parameter passed by value, of type `T`. Never constructed.
#[derive(Debug)]
pub struct Scalar<T: DeviceCopy>(PhantomData<fn() -> T>);
/// The kind of a texture object parameter the kernel samples (`tex: texture` in a contract):
/// it takes a [`ScopedTexture`], the texture bound to the launching scope, whose resource
/// cannot be written while the scope may run (C21). Never constructed.
#[derive(Debug)]
pub enum TextureParam {}
/// The kind of a surface object parameter the kernel reads and writes (`surf: surface` in a
/// contract): it takes `&mut` a [`ScopedSurface`], the surface bound to the launching scope
/// exclusively. Never constructed.
#[derive(Debug)]
pub enum SurfaceParam {}

/// The kind of a conditional node's handle parameter (`cond: conditional` in a contract), which
/// the kernel passes to `cudaGraphSetConditional`: it takes a [`ConditionalHandle`] of the graph
/// being built or captured, so only a kernel node of that graph (or of one of its conditional
/// bodies), or a launch captured into it, gets it. Never constructed.
#[derive(Debug)]
pub enum ConditionalParam {}

/// The kind of a tensor map parameter of elements of `T` (`map: tensor_map<T>` in a contract,
/// `map: tensor_map<T> over buf` for a map that must be over the buffer parameter `buf`), which
/// the kernel receives as a `const __grid_constant__ CUtensorMap` and only reads through
/// (`cp.async.bulk.tensor` from global to shared memory): it takes the map bound to the
/// launching scope ([`ScopedTensorMap`], by value). Never constructed.
#[derive(Debug)]
pub struct TensorMapParam<T: TensorElement>(PhantomData<fn() -> T>);

/// The kind of one parameter of a contract: [`ReadBuffer<T>`], [`WriteBuffer<T>`],
/// [`Scalar<T>`], [`TextureParam`], [`SurfaceParam`], [`ConditionalParam`] or
/// [`TensorMapParam<T>`]. Sealed.
pub trait ParamKind: sealed::Kind + 'static {
    /// The parameter's type in the kernel's [`KernelSignature`].
    type Param: KernelParam;
    /// What an extent reads of an argument of this kind: the value for a scalar, `()` for a
    /// buffer (which cannot be a factor of an extent).
    #[doc(hidden)]
    type Factor;
}
impl<T: DeviceCopy> sealed::Kind for ReadBuffer<T> {}
impl<T: DeviceCopy> ParamKind for ReadBuffer<T> {
    type Param = DevicePtr<T>;
    type Factor = ();
}
impl<T: DeviceCopy> sealed::Kind for WriteBuffer<T> {}
impl<T: DeviceCopy> ParamKind for WriteBuffer<T> {
    type Param = DevicePtr<T>;
    type Factor = ();
}
impl<T: DeviceCopy> sealed::Kind for Scalar<T> {}
impl<T: DeviceCopy> ParamKind for Scalar<T> {
    type Param = T;
    type Factor = T;
}
impl sealed::Kind for TextureParam {}
impl ParamKind for TextureParam {
    type Param = TextureHandle;
    type Factor = ();
}
impl sealed::Kind for SurfaceParam {}
impl ParamKind for SurfaceParam {
    type Param = SurfaceHandle;
    type Factor = ();
}
impl sealed::Kind for ConditionalParam {}
impl ParamKind for ConditionalParam {
    type Param = GraphConditionalHandle;
    type Factor = ();
}
impl<T: TensorElement> sealed::Kind for TensorMapParam<T> {}
impl<T: TensorElement> ParamKind for TensorMapParam<T> {
    type Param = TensorMapHandle<T>;
    type Factor = ();
}

/// How much memory a buffer argument holds.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Available {
    pub(super) elements: usize,
    pub(super) bytes: usize,
}

impl Available {
    pub(super) fn of<T>(elements: usize) -> Self {
        Self {
            elements,
            bytes: elements.saturating_mul(size_of::<T>()),
        }
    }
    fn bytes<T>(bytes: usize) -> Self {
        Self {
            elements: bytes.checked_div(size_of::<T>()).unwrap_or(0),
            bytes,
        }
    }
}

/// An argument for a parameter of kind `K` in a launch of the scope `'scope`: for
/// [`Scalar<T>`], a `T`; for [`ReadBuffer<T>`], device memory of `T` bound to the scope (a
/// [`ScopedSlice`], a [`ScopedSliceMut`] or `&`/`&mut` one, `&`/`&mut` a [`ScopedAlloc`] or
/// [`ScopedPitched`]); for [`WriteBuffer<T>`], the same but writable: a [`ScopedSliceMut`] or
/// `&mut` one, `&mut` a [`ScopedAlloc`] or [`ScopedPitched`]. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an argument for a `{K}` parameter of this kernel contract",
    note = "a scalar parameter, kind `Scalar<T>`, takes a value of exactly the type `T` (convert with `as`: `n as u64` where the contract says `u64` and `n` is a `usize`); a buffer the contract declares `&[T; extent]` takes memory bound to this scope: `s.bind(&x)` by value, or `&b` of a `s.bind_mut` binding",
    note = "a buffer declared `&mut [T; extent]` is written by the kernel: it takes `&mut b` of `let mut b = s.bind_mut(&mut y);` (or `&mut` a `ScopedAlloc`), never a read-only `s.bind(&x)` binding",
    note = "a `texture` parameter takes `s.bind_texture(&texture)` by value; a `surface` parameter takes `&mut sf` of `let mut sf = s.bind_surface(&mut surface);`"
)]
pub trait ContractArg<'scope, K: ParamKind>:
    KernelArg<'scope, Param = K::Param> + sealed::Arg<K>
{
    /// The argument as a factor of an extent.
    #[doc(hidden)]
    fn scalar(&self) -> K::Factor;
    /// The memory the argument holds (for a scalar: its own size).
    #[doc(hidden)]
    fn available(&self) -> Available;
    /// The device memory the argument reaches, its first address and length in bytes: a
    /// buffer's or a tensor map's (`None` for the other kinds).
    #[doc(hidden)]
    fn range(&self) -> Option<(crate::ffi::CUdeviceptr, usize)> {
        None
    }
    /// A tensor map's box, in elements per dimension (`None` for the other kinds).
    #[doc(hidden)]
    fn tensor_box(&self) -> Option<&[u32]> {
        None
    }
}

impl<T: DeviceCopy> sealed::Arg<Scalar<T>> for T {}
impl<T: DeviceCopy> ContractArg<'_, Scalar<T>> for T {
    #[inline]
    fn scalar(&self) -> T {
        *self
    }
    #[inline]
    fn available(&self) -> Available {
        Available::of::<T>(1)
    }
}

macro_rules! buffer_arg {
    ($kind:ident: $([$($lt:lifetime)?] $ty:ty => |$b:ident| $available:expr),* $(,)?) => {$(
        impl<$($lt,)? 'scope, T: DeviceCopy> sealed::Arg<$kind<T>> for $ty {}
        impl<$($lt,)? 'scope, T: DeviceCopy> ContractArg<'scope, $kind<T>> for $ty {
            #[inline]
            fn scalar(&self) {}
            #[inline]
            fn available(&self) -> Available {
                let $b = self;
                $available
            }
            #[inline]
            fn range(&self) -> Option<(crate::ffi::CUdeviceptr, usize)> {
                Some((self.device_ptr(), ContractArg::<'scope, $kind<T>>::available(self).bytes))
            }
        }
    )*};
}
buffer_arg!(ReadBuffer:
    [] ScopedSlice<'scope, T> => |b| Available::of::<T>(b.len()),
    [] ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a ScopedAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a ScopedPitched<'scope, T> => |b| Available::bytes::<T>(pitched_bytes(b)),
    ['a] &'a mut ScopedPitched<'scope, T> => |b| Available::bytes::<T>(pitched_bytes(b)),
    ['a] &'a GraphAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut GraphAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
);
buffer_arg!(WriteBuffer:
    [] ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedPitched<'scope, T> => |b| Available::bytes::<T>(pitched_bytes(b)),
    ['a] &'a mut GraphAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
);

// A texture or surface bound to the scope. The hardware bounds-checks every access through it,
// so it has no extent: its length is never compared.
impl sealed::Arg<TextureParam> for ScopedTexture<'_> {}
impl<'scope> ContractArg<'scope, TextureParam> for ScopedTexture<'scope> {
    #[inline]
    fn scalar(&self) {}
    #[inline]
    fn available(&self) -> Available {
        Available::of::<u8>(0)
    }
}
impl sealed::Arg<SurfaceParam> for &mut ScopedSurface<'_> {}
impl<'scope> ContractArg<'scope, SurfaceParam> for &mut ScopedSurface<'scope> {
    #[inline]
    fn scalar(&self) {}
    #[inline]
    fn available(&self) -> Available {
        Available::of::<u8>(0)
    }
}

// A conditional handle of the graph being built: a 64-bit value, no memory.
impl sealed::Arg<ConditionalParam> for ConditionalHandle<'_> {}
impl<'b> ContractArg<'b, ConditionalParam> for ConditionalHandle<'b> {
    #[inline]
    fn scalar(&self) {}
    #[inline]
    fn available(&self) -> Available {
        Available::of::<u8>(0)
    }
}

// A tensor map bound to the scope: 128 bytes by value. The hardware never reads outside the
// tensor it describes (a box's elements outside it are filled), and the map was checked to lie
// within its memory when it was made, so it has no extent either; `over` compares it with a
// buffer parameter (`check_over`).
impl<T: TensorElement> sealed::Arg<TensorMapParam<T>> for ScopedTensorMap<'_, T> {}
impl<'scope, T: TensorElement> ContractArg<'scope, TensorMapParam<T>>
    for ScopedTensorMap<'scope, T>
{
    #[inline]
    fn scalar(&self) {}
    #[inline]
    fn available(&self) -> Available {
        Available::of::<u8>(0)
    }
    #[inline]
    fn range(&self) -> Option<(crate::ffi::CUdeviceptr, usize)> {
        Some(ScopedTensorMap::range(self))
    }
    #[inline]
    fn tensor_box(&self) -> Option<&[u32]> {
        Some(ScopedTensorMap::box_dims(self))
    }
}

/// A tensor map kind that can be declared over a buffer parameter of kind `K`
/// (`map: tensor_map<T> over buf`): a [`TensorMapParam<T>`] over a [`ReadBuffer<T>`] or a
/// [`WriteBuffer<T>`] of the same `T`. Sealed.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` parameter cannot be declared over a `{K}` parameter",
    note = "`map: tensor_map<T> over buf` names a buffer parameter `buf` of the same element type `T` (`&[T; extent]` or `&mut [T; extent]`)"
)]
pub trait TensorMapOver<K: ParamKind>: ParamKind + sealed::Over<K> {}
impl<T: TensorElement> sealed::Over<ReadBuffer<T>> for TensorMapParam<T> {}
impl<T: TensorElement> TensorMapOver<ReadBuffer<T>> for TensorMapParam<T> {}
impl<T: TensorElement> sealed::Over<WriteBuffer<T>> for TensorMapParam<T> {}
impl<T: TensorElement> TensorMapOver<WriteBuffer<T>> for TensorMapParam<T> {}

/// The bytes of a pitched allocation: `height` rows of `pitch` bytes (allocated, so the product
/// fits; 0 if it did not, which refuses every extent but 0).
fn pitched_bytes<T: DeviceCopy>(b: &ScopedPitched<'_, T>) -> usize {
    b.pitch_bytes().checked_mul(b.height()).unwrap_or(0)
}

/// The arguments of a launch of the contract `C` in the scope `'scope`: a tuple with one
/// [`ContractArg`] per declared parameter, in order. Implemented by
/// [`kernel_contract!`](crate::kernel_contract) for each contract.
///
/// # Safety
///
/// [`check`](Self::check) returns `Ok` only if every buffer argument holds at least its declared
/// extent for `config`, computed without overflow.
#[diagnostic::on_unimplemented(
    message = "`{Self}` are not the arguments of the kernel contract `{C}`",
    label = "expected one argument per parameter `{C}` declares, in order",
    note = "pass a tuple, one argument per declared parameter in the declared order: a scalar of exactly its type, a buffer bound to this scope (`&mut b` where the contract writes)"
)]
pub unsafe trait ContractArgs<'scope, C: Contract>: KernelArgs<'scope> {
    /// Checks every buffer argument against its extent for a launch of shape `config`.
    #[doc(hidden)]
    fn check(&self, config: &LaunchConfig) -> Result<()>;
}
