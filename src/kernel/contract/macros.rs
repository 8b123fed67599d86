//! [`kernel_contract!`](crate::kernel_contract) and the macros that write a contract's
//! impls: one parameter at a time, the launches it allows, and one check per clause. The
//! extents and conditions they check are read by the macros of `syntax.rs`. Every macro is
//! `#[macro_export]`ed (at the crate root) and names what it expands to by `$crate::` paths.

/// Declares kernel contracts: for each kernel, its name, its parameters in order with Rust
/// types, and for every buffer parameter whether the kernel reads (`&[T; extent]`) or writes
/// (`&mut [T; extent]`) it and how many elements it may touch. Launches of the declared kernel
/// ([`Module::declared`](crate::Module::declared), [`StreamScope::run`](crate::StreamScope::run))
/// are then safe calls.
///
/// ```
/// custack::kernel_contract! {
///     /// `vector_add(const float* a, const float* b, float* c, int n)`: `c[i] = a[i] + b[i]`
///     /// for `i < n`.
///     pub unsafe kernel VectorAdd = "vector_add"(
///         a: &[f32; n],
///         b: &[f32; n],
///         c: &mut [f32; n],
///         n: i32,
///     );
///
///     /// `scale(float* m, unsigned rows, unsigned cols, float k)`: every element of a
///     /// `rows × cols` matrix.
///     pub unsafe kernel Scale = "scale"(m: &mut [f32; rows * cols], rows: u32, cols: u32, k: f32);
///
///     /// `fill_rows(float* img, size_t pitch, unsigned width, unsigned height)`: the usual
///     /// pitched kernel, element `x` of row `y` (byte `y * pitch + 4 * x`) for `x < width`,
///     /// `y < height`: `height` rows of `pitch` bytes, each row's `width` floats within its
///     /// pitch.
///     pub unsafe kernel FillRows = "fill_rows"(
///         img: &mut [f32; pitched(height, pitch)],
///         pitch: u64,
///         width: u32,
///         height: u32,
///     ) requires(width * 4 <= pitch);
///
///     /// `iota(unsigned* x)`: `x[i] = i` for every launched thread, no bounds check.
///     unsafe kernel Iota = "iota"(x: &mut [u32; grid]);
///
///     /// `block_sums(const unsigned* x, unsigned n, unsigned* sums)`: one sum per block, through
///     /// one `unsigned` of dynamic shared memory per thread.
///     unsafe kernel BlockSums = "block_sums"(x: &[u32; n], n: u32, sums: &mut [u32; blocks])
///         shared(block * 4);
///
///     /// `normalize(float* x, unsigned n)`: divides by the sum of all of `x`, after a grid-wide
///     /// barrier (cooperative groups): launched only with `run_cooperative`.
///     unsafe kernel Normalize = "normalize"(x: &mut [f32; n], n: u32) cooperative;
///
///     /// `pair_sums(const float* x, float* out)`: each block adds its partner's shared
///     /// memory (distributed shared memory of a cluster of 2): launched only with
///     /// `run_clustered`, in clusters of 2 blocks.
///     unsafe kernel PairSums = "pair_sums"(x: &[f32; grid], out: &mut [f32; blocks]) cluster(2, 1, 1);
/// }
/// ```
///
/// Each declaration is `$vis unsafe kernel Name = "kernel_name"(params);` (or `... (params)
/// shared(bytes);`, with the clauses below) and defines a unit
/// struct `Name` implementing [`Contract`](crate::Contract) (doc comments and attributes go on
/// it). A parameter is `name: T` for a scalar of plain data ([`DeviceCopy`](crate::DeviceCopy)),
/// `name: &[T; extent]` / `name: &mut [T; extent]` for device memory of `T` that the kernel
/// reads / writes, `name: texture` for a texture object it samples, `name: surface` for a
/// surface object it reads and writes, or `name: conditional` for the handle of a conditional
/// graph node the kernel sets with `cudaGraphSetConditional`
/// ([`GraphBuilder::condition`](crate::graph::GraphBuilder::condition): it takes a
/// [`ConditionalHandle`](crate::graph::ConditionalHandle) of the graph being built, in a kernel
/// node of that graph only).
///
/// A texture parameter takes the texture bound to the launching scope
/// ([`bind_texture`](crate::StreamScope::bind_texture)), which borrows its array or memory, so
/// nothing writes that resource while a launch may sample it (C21); a surface parameter takes
/// `&mut` the surface bound to the scope ([`bind_surface`](crate::StreamScope::bind_surface),
/// exclusive). Neither has an extent: every access through a texture or surface object is
/// bounds-checked by the hardware. A texture read outside its resource returns what its address
/// mode says (wrap, clamp, mirror or the border color); a surface access outside its array does
/// what the instruction's boundary mode says, none of which touches memory outside the array:
/// `.trap` (the default of CUDA C++'s `surf2Dwrite`) aborts the launch with an error, which is
/// sticky (`CUDA_ERROR_ILLEGAL_ADDRESS` or `LAUNCH_FAILED`: the context is lost, as after any
/// fault), `.clamp` accesses the nearest element inside, and `.zero` drops the write (a read
/// gives 0). So a contract allows every mode; one that may trap is still a kernel bug, only not
/// a memory-safety one.
///
/// A tensor map parameter, `name: tensor_map<T>` (a `const __grid_constant__ CUtensorMap` the
/// kernel copies boxes of elements of `T` through, `cp.async.bulk.tensor` from global to shared
/// memory), takes a [`TensorMap`](crate::TensorMap) bound to the launching scope
/// ([`bind_tensor_map`](crate::StreamScope::bind_tensor_map)), which borrows the memory the map
/// is over (C32). It has no extent: the hardware reads only the tensor the map describes, which
/// was checked to lie within its memory when the map was made, and fills a box's elements outside
/// it. `name: tensor_map<T> over buf` says the map must be over the buffer parameter `buf` (of
/// element type `T`, checked at compile time): a launch whose map is not within the memory bound
/// to `buf` is refused with [`ErrorKind::TensorMapMismatch`](crate::ErrorKind::TensorMapMismatch);
/// `box(32, 8)` after it says the map's box is exactly that (the kernel's shared tile), and a
/// launch with another box is refused the same way.
///
/// An extent is one of:
///
/// | extent | the kernel touches |
/// | --- | --- |
/// | `n` | `n` elements, `n` an integer scalar parameter |
/// | `rows * cols`, `4 * n` | the product of integer scalar parameters and integer literals |
/// | `n + 1`, `(n + 1) * 4` | sums and parenthesized sub-extents of those (CSR row offsets, an exclusive scan's output) |
/// | `pitched(height, pitch)` | `height` rows of `pitch` bytes (a pitched allocation; how much of each row, a condition: below) |
/// | `grid` | one element per launched thread (grid × block), for kernels without a bounds check |
/// | `blocks`, `4 * blocks` | one element (four) per block of the launch, e.g. per-block partial results |
/// | `block` | one element per thread of a block |
/// | `grid_y * width` | one axis of the launch times a parameter: `grid_y` rows of `width` (a 2-D kernel writing `out[y * width + x]`) |
///
/// The launch words are `grid` (threads in the launch, grid × block), `blocks` (blocks in the
/// launch) and `block` (threads per block), and each of them along one axis: `grid_x`, `grid_y`,
/// `grid_z` (threads along the axis: blocks × block size in it), `blocks_x`, `blocks_y`,
/// `blocks_z` and `block_x`, `block_y`, `block_z`. Each may be a factor of a product; none may be
/// a parameter's name (a compile error).
///
/// A kernel whose reach depends on more than the launch's size (a 2-D kernel without bounds
/// checks, a tiled kernel that assumes its block shape or a whole number of tiles) states its
/// preconditions after its parameters, `requires(cond, ...)`: each condition compares two
/// extents with `==`, `!=`, `<`, `<=`, `>` or `>=` (`width > 0`, `grid_x <= width`,
/// `block_x == 32`), or says a factor is a multiple of another (`wa % 32 == 0`). Both sides are
/// computed in checked `usize` like an extent; each launch checks them in order, before the
/// extents, and one that does not hold refuses the launch with
/// [`ErrorKind::PreconditionFailed`](crate::ErrorKind::PreconditionFailed) naming the condition
/// and the values it compared (a side that overflows or a negative factor:
/// [`SizeOverflow`](crate::ErrorKind::SizeOverflow)); nothing is enqueued. NVIDIA's
/// matrixMulDrv kernel, for instance (`tests/gpu_contract.rs`):
///
/// ```text
/// unsafe kernel MatrixMul = "matrix_mul_bs32"(
///     c: &mut [f32; grid_y * wb], a: &[f32; grid_y * wa], b: &[f32; wa * wb], wa: u64, wb: u64,
/// ) requires(
///     block_x == 32, block_y == 32, block_z == 1, blocks_z == 1,
///     wa > 0, wa % 32 == 0, grid_x <= wb,
/// );
/// ```
///
/// `pitched(height, pitch)` is the bytes `0 .. height * pitch` of the buffer and nothing more:
/// it does not know which bytes of a row the kernel touches. The usual pitched kernel writes
/// element `x` of row `y` at byte `y * pitch + x * size_of::<T>()` for every `x < width`, never
/// comparing that with `pitch`; its contract is true only with `requires(width * 4 <= pitch)`
/// (for 4-byte elements, as `fill_rows` above), which refuses a `width` wider than the pitch,
/// whose last row would run past the end of the buffer. (The `fill_rows` of
/// `tests/gpu_contract.rs` needs no such condition: that kernel skips every column past the
/// pitch itself.)
///
/// A kernel that uses dynamic shared memory declares how much it touches after its
/// parameters (and `requires(..)`), `shared(block * 8)` (bytes, a product as above): a launch
/// with less `shared_mem_bytes` is refused. A kernel that indexes fixed-size (static) shared
/// memory by thread index declares the largest block it takes, `max_block(16, 16, 1)` (after
/// `shared(..)` if both): a launch with a larger block in any dimension is refused. A kernel that synchronizes
/// the whole grid (cooperative groups' `grid.sync()`) ends its declaration with `cooperative`
/// (after the other clauses): it then launches only with
/// [`run_cooperative`](crate::StreamScope::run_cooperative), and `run` and `run_with`
/// refuse it at compile time ([`PlainLaunch`](crate::PlainLaunch)). A kernel
/// written for thread-block clusters (distributed shared memory, cluster barriers) ends its
/// declaration with `cluster(x, y, z)` instead, its cluster shape in blocks: it then launches only
/// with [`run_clustered`](crate::StreamScope::run_clustered), in exactly that shape (a grid that
/// is not a whole number of clusters is refused), and every other launch refuses it at compile
/// time ([`ClusterLaunch`](crate::ClusterLaunch), [`CooperativeLaunch`](crate::CooperativeLaunch)).
///
/// Extents are computed at each launch in checked `usize` arithmetic: every factor is converted
/// to `usize` first (never added or multiplied in its own type, where `255u8 + 1` would wrap), and
/// a negative factor or an overflow refuses the launch. Anything else in an extent or a condition
/// (`-`, `/`, a method call, a cast, a name that is not one of the contract's scalar
/// parameters, a buffer) is a compile error that says what an extent may hold. (The launch
/// words and `pitched` are words of the syntax, not parameter names.)
///
/// # Safety
///
/// `unsafe` is the declaration's promise, for every launch whose shape and arguments meet its
/// `requires(..)` conditions (custack refuses every other): the kernel takes exactly these
/// parameters (checked at lookup where the driver or the PTX can tell:
/// [`CheckedBy`](crate::CheckedBy)), reads and
/// writes only the buffers passed to it, within their extents, writes only those declared
/// `&mut`, dereferences no address it was not passed as a buffer (an integer parameter is
/// never an address; it may read and write its own module's global variables, which the host
/// reaches only through [`Module::global`](crate::Module::global) and
/// [`global_mut`](crate::Module::global_mut): they borrow the module exclusively, so no handle
/// of its kernels lives beside the view, and wait for the context first, so no kernel launched
/// earlier still runs; launches of it may run at once on several streams, so its use of globals
/// must allow that, e.g. atomics), touches no more dynamic shared memory than its `shared(..)` clause
/// (none without one), stays within its static shared memory for every block its `max_block(..)`
/// clause allows (any block without one), copies through a tensor map parameter only from global
/// to shared memory (never stores through it) and into shared memory that holds the map's box
/// (the `box(..)` it declares, or any box without one), unless declared `cooperative`, does not need a
/// cooperative launch (no grid-wide barrier), and, unless declared with `cluster(..)`, does not
/// need a cluster shape (with it: stays within all of the above in clusters of that shape).
///
/// The promise is about every kernel of that name on every module the contract is declared on
/// ([`Module::declared`](crate::Module::declared) is safe, and so is loading PTX). So keep a
/// contract as private as the modules it is meant for: a contract a library crate makes `pub`
/// lets its users declare it on modules the library never saw (their own PTX, with a kernel of
/// the same name doing anything), and its author's promise then covers those too, which it
/// cannot keep. custack publishes no contract for this reason (its comparison kernel,
/// [`ReplicasCompare`](crate::safety::ReplicasCompare), is declared only on a restricted init
/// phase's cubin, whose `unsafe` load carries the promise).
#[macro_export]
macro_rules! kernel_contract {
    () => {};
    (
        $(#[$attr:meta])*
        $vis:vis unsafe kernel $name:ident = $kernel:literal ( $($params:tt)* )
            $(requires ( $($req:tt)+ ))?
            $(shared ( $($shared:tt)+ ))?
            $(max_block ( $bx:literal, $by:literal, $bz:literal ))?;
        $($rest:tt)*
    ) => {
        $crate::__kernel_contract_params! {
            [$(#[$attr])* $vis $name $kernel [$($($req)+)?] [$($($shared)+)?] [$($bx, $by, $bz)?]
                plain]
            [] $($params)*
        }
        $crate::kernel_contract! { $($rest)* }
    };
    (
        $(#[$attr:meta])*
        $vis:vis unsafe kernel $name:ident = $kernel:literal ( $($params:tt)* )
            $(requires ( $($req:tt)+ ))?
            $(shared ( $($shared:tt)+ ))?
            $(max_block ( $bx:literal, $by:literal, $bz:literal ))?
            cluster ( $cx:literal, $cy:literal, $cz:literal );
        $($rest:tt)*
    ) => {
        $crate::__kernel_contract_params! {
            [$(#[$attr])* $vis $name $kernel [$($($req)+)?] [$($($shared)+)?] [$($bx, $by, $bz)?]
                (clustered $cx $cy $cz)]
            [] $($params)*
        }
        $crate::kernel_contract! { $($rest)* }
    };
    (
        $(#[$attr:meta])*
        $vis:vis unsafe kernel $name:ident = $kernel:literal ( $($params:tt)* )
            $(requires ( $($req:tt)+ ))?
            $(shared ( $($shared:tt)+ ))?
            $(max_block ( $bx:literal, $by:literal, $bz:literal ))?
            cooperative;
        $($rest:tt)*
    ) => {
        $crate::__kernel_contract_params! {
            [$(#[$attr])* $vis $name $kernel [$($($req)+)?] [$($($shared)+)?] [$($bx, $by, $bz)?]
                cooperative]
            [] $($params)*
        }
        $crate::kernel_contract! { $($rest)* }
    };
}

/// Normalizes a contract's parameters, one at a time, to `(name, kind, [extent])`, then writes
/// the contract. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_params {
    (
        [$(#[$attr:meta])* $vis:vis $name:ident $kernel:literal [$($req:tt)*] [$($shared:tt)*]
            [$($max:tt)*] $launch:tt]
        [$(($p:ident, $kind:ty, [$($e:tt)*], $tag:ident))*]
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        $vis struct $name;

        $crate::__kernel_contract_launch!($launch $name);

        // SAFETY: the `unsafe` of this contract's declaration: its author's promise (see
        // `kernel_contract!`).
        unsafe impl $crate::Contract for $name {
            const KERNEL: &'static str = $kernel;
            const PARAMS: &'static [&'static str] = &[$(stringify!($p)),*];
            type Signature = ($(<$kind as $crate::ParamKind>::Param,)*);
        }

        // SAFETY: `check` refuses any buffer shorter than its declared extent, computed with
        // checked arithmetic.
        #[allow(non_camel_case_types)]
        unsafe impl<'scope, $($p: $crate::ContractArg<'scope, $kind>),*>
            $crate::ContractArgs<'scope, $name> for ($($p,)*)
        {
            #[inline]
            #[allow(unused_variables, unused_mut, clippy::unused_unit)]
            fn check(&self, config: &$crate::LaunchConfig) -> $crate::Result<()> {
                let ($($p,)*) = self;
                let mut available = $crate::__private_contract::available([
                    $($crate::ContractArg::<'scope, $kind>::available($p)),*
                ]);
                $($crate::__kernel_contract_over!($kernel, $p, $kind, [$($e)*]);)*
                $(let $p = $crate::ContractArg::<'scope, $kind>::scalar($p);)*
                $($crate::__kernel_contract_reserved!($p);)*
                $crate::__kernel_contract_names!(($) [$(($p $tag))*]);
                $crate::__kernel_contract_requires!(config, $kernel, [$($req)*]);
                $(
                    $crate::__kernel_contract_check!(
                        config, $kernel, $p, available.next(), [$($e)*]
                    );
                )*
                $crate::__kernel_contract_shared!(config, $kernel, [$($shared)*]);
                $crate::__kernel_contract_max_block!(config, $kernel, [$($max)*]);
                Ok(())
            }
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : &mut [$t:ty; $($e:tt)+] $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::WriteBuffer<$t>, [$($e)+], buffer)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : &[$t:ty; $($e:tt)+] $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::ReadBuffer<$t>, [$($e)+], buffer)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : $(custack ::)? TextureHandle $(, $($rest:tt)*)?) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: declare the texture parameter `", ::core::stringify!($p),
            "` as `", ::core::stringify!($p), ": texture`; it then takes the texture bound to the \
             launching scope, `s.bind_texture(&texture)` (a `TextureHandle` is not plain data)"
        ));
    };
    ($head:tt [$($done:tt)*] $p:ident : $(custack ::)? SurfaceHandle $(, $($rest:tt)*)?) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: declare the surface parameter `", ::core::stringify!($p),
            "` as `", ::core::stringify!($p), ": surface`; it then takes `&mut` the surface bound \
             to the launching scope, `s.bind_surface(&mut surface)` (a `SurfaceHandle` is not \
             plain data)"
        ));
    };
    ($head:tt [$($done:tt)*] $p:ident : texture $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::TextureParam, [], texture)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : surface $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::SurfaceParam, [], surface)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : tensor_map < $t:ty > $(over $q:ident)?
        $(box ( $($b:literal),+ $(,)? ))? $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::TensorMapParam<$t>, [@map [$($q)?] [$($($b),+)?]], tensor_map)]
            $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : $(custack ::)? CUtensorMap $(, $($rest:tt)*)?) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: declare the tensor map parameter `", ::core::stringify!($p),
            "` as `", ::core::stringify!($p), ": tensor_map<T>` (or `tensor_map<T> over buf`); it \
             then takes `s.bind_tensor_map(&map)`, a `TensorMap` bound to the launching scope"
        ));
    };
    ($head:tt [$($done:tt)*] $p:ident : conditional $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::ConditionalParam, [], conditional)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : $t:ty $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::Scalar<$t>, [], scalar)] $($($rest)*)?
        }
    };
}

/// The launches a contract takes: [`PlainLaunch`] and [`CooperativeLaunch`] for a plain one,
/// [`CooperativeLaunch`] for a cooperative one, [`ClusterLaunch`] for a clustered one. Not
/// public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_launch {
    (plain $name:ident) => {
        // SAFETY: the `unsafe` of this contract's declaration, which says neither `cooperative`
        // nor `cluster`: its author's promise that the kernel needs neither launch.
        unsafe impl $crate::PlainLaunch for $name {}
        // SAFETY: as above: no cluster shape.
        unsafe impl $crate::CooperativeLaunch for $name {}
    };
    (cooperative $name:ident) => {
        // SAFETY: the `unsafe` of this contract's declaration, which does not say `cluster`.
        unsafe impl $crate::CooperativeLaunch for $name {}
    };
    ((clustered $cx:literal $cy:literal $cz:literal) $name:ident) => {
        // SAFETY: the `unsafe` of this contract's declaration: its author's promise that the
        // kernel stays within it in clusters of this shape.
        unsafe impl $crate::ClusterLaunch for $name {
            const CLUSTER: (u32, u32, u32) = ($cx, $cy, $cz);
        }
    };
}

/// A tensor map's `over` and `box(..)` checks, before the arguments are read as factors:
/// nothing for any other parameter. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_over {
    ($kernel:expr, $p:ident, $kind:ty, [@map [$($q:ident)?] [$($b:literal),*]]) => {
        $(
            $crate::__private_contract::check_over::<$kind, _, _, _>(
                $kernel,
                stringify!($p),
                stringify!($q),
                $p,
                $q,
            )?;
        )?
        $crate::__private_contract::check_box::<$kind, _>($kernel, stringify!($p), $p, &[$($b),*])?
    };
    ($kernel:expr, $p:ident, $kind:ty, [$($e:tt)*]) => {};
}

/// One parameter's check: nothing for a scalar. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_check {
    ($config:ident, $kernel:expr, $p:ident, $available:expr, [@map $($x:tt)*]) => {
        let _ = $available;
    };
    ($config:ident, $kernel:expr, $p:ident, $available:expr, []) => {
        let _ = $available;
    };
    ($config:ident, $kernel:expr, $p:ident, $available:expr, [$($e:tt)+]) => {
        $crate::__private_contract::check_extent(
            $kernel,
            stringify!($p),
            stringify!($($e)+),
            $available,
            $crate::__kernel_contract_extent!($config; $($e)+),
        )?
    };
}

/// The dynamic shared memory check. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_shared {
    ($config:ident, $kernel:expr, []) => {};
    ($config:ident, $kernel:expr, [$($e:tt)+]) => {
        $crate::__private_contract::check_shared(
            $kernel,
            stringify!($($e)+),
            $config.shared_mem_bytes,
            $crate::__kernel_contract_sum!($config; $($e)+),
        )?
    };
}

/// The block-shape limit. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_max_block {
    ($config:ident, $kernel:expr, []) => {};
    ($config:ident, $kernel:expr, [$bx:literal, $by:literal, $bz:literal]) => {
        $crate::__private_contract::check_max_block($kernel, $config, ($bx, $by, $bz))?
    };
}

/// Refuses a parameter named like a word of the extent syntax, which an extent would read as
/// the launch shape instead of the parameter. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_reserved {
    (grid) => { $crate::__kernel_contract_reserved!(@word grid) };
    (blocks) => { $crate::__kernel_contract_reserved!(@word blocks) };
    (block) => { $crate::__kernel_contract_reserved!(@word block) };
    (pitched) => { $crate::__kernel_contract_reserved!(@word pitched) };
    (grid_x) => { $crate::__kernel_contract_reserved!(@word grid_x) };
    (grid_y) => { $crate::__kernel_contract_reserved!(@word grid_y) };
    (grid_z) => { $crate::__kernel_contract_reserved!(@word grid_z) };
    (blocks_x) => { $crate::__kernel_contract_reserved!(@word blocks_x) };
    (blocks_y) => { $crate::__kernel_contract_reserved!(@word blocks_y) };
    (blocks_z) => { $crate::__kernel_contract_reserved!(@word blocks_z) };
    (block_x) => { $crate::__kernel_contract_reserved!(@word block_x) };
    (block_y) => { $crate::__kernel_contract_reserved!(@word block_y) };
    (block_z) => { $crate::__kernel_contract_reserved!(@word block_z) };
    (@word $w:ident) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: a parameter cannot be named `", ::core::stringify!($w), "`: in an \
             extent or a condition it is a word of the launch shape; rename the parameter"
        ))
    };
    ($p:ident) => {};
}

/// Defines, inside a contract's check, the macro that turns a name in an extent or condition
/// into its value: a scalar parameter's, or a compile error that says what the name is (a
/// buffer, a texture or surface, or nothing of this contract) instead of rustc's "cannot find
/// value", which suggests any parameter of a similar name. `$d` is a `$` token. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_names {
    (($d:tt) [$(($p:ident $tag:ident))*]) => {
        #[allow(unused_macros)]
        macro_rules! __kernel_contract_param {
            $( ($p) => { $crate::__kernel_contract_param_of!($tag $p) }; )*
            ($d other:ident) => {
                ::core::compile_error!(::core::concat!(
                    "kernel_contract!: `", ::core::stringify!($d other), "` is not a parameter of \
                     this contract nor a launch word: an extent or a condition names the \
                     contract's own integer scalar parameters, integer literals and the launch \
                     words (`grid`, `blocks`, `block`, `grid_x`, `blocks_y`, `block_z`, ...); \
                     a size the kernel reaches that is not a parameter is written through the \
                     launch shape (`grid_y * width`) or stated with `requires(..)`"
                ))
            };
        }
    };
}

/// A name in an extent or condition, by the kind of the parameter it names. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_param_of {
    (scalar $p:ident) => {
        $crate::__private_contract::factor(&$p)
    };
    (buffer $p:ident) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `",
            ::core::stringify!($p),
            "` is a buffer parameter, not a \
             factor of an extent: name the integer scalar parameter that counts its elements"
        ))
    };
    ($other:ident $p:ident) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `",
            ::core::stringify!($p),
            "` is a ",
            ::core::stringify!($other),
            " parameter, not a factor of an extent"
        ))
    };
}
