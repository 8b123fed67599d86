//! The macros that read a contract's extents and conditions: `requires(..)`, an extent, a sum
//! of products of factors, one factor, each computed in checked `usize` arithmetic by the
//! functions of `extent.rs`. Not public API (`#[macro_export]`ed and hidden).

/// The `requires(..)` clause: each comma-separated condition checked in order. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_requires {
    ($config:ident, $kernel:expr, []) => {};
    ($config:ident, $kernel:expr, [$($c:tt)+]) => {
        $crate::__kernel_contract_requires!(@split $config, $kernel, [] $($c)+)
    };
    (@split $config:ident, $kernel:expr, [$($cur:tt)+] , $($rest:tt)*) => {
        $crate::__kernel_contract_condition!($config, $kernel; [$($cur)+]);
        $crate::__kernel_contract_requires!(@split $config, $kernel, [] $($rest)*)
    };
    (@split $config:ident, $kernel:expr, [] , $($rest:tt)*) => {
        ::core::compile_error!("kernel_contract!: `requires(..)` has an empty condition (two commas, or one first)")
    };
    (@split $config:ident, $kernel:expr, [$($cur:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__kernel_contract_requires!(@split $config, $kernel, [$($cur)* $t] $($rest)*)
    };
    (@split $config:ident, $kernel:expr, [$($cur:tt)+]) => {
        $crate::__kernel_contract_condition!($config, $kernel; [$($cur)+])
    };
    (@split $config:ident, $kernel:expr, []) => {};
}

/// One condition of a `requires(..)` clause: two extents compared (`==`, `!=`, `<`, `<=`, `>`,
/// `>=`), or `a % m == 0` of two factors. Both sides are evaluated in checked `usize`
/// arithmetic like an extent. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_condition {
    ($config:ident, $kernel:expr; [$a:tt % $m:tt == 0]) => {
        $crate::__private_contract::check_multiple(
            $kernel,
            ::core::stringify!($a % $m == 0),
            $crate::__kernel_contract_factor!($config; $a),
            $crate::__kernel_contract_factor!($config; $m),
        )?
    };
    ($config:ident, $kernel:expr; [$($c:tt)+]) => {
        $crate::__kernel_contract_condition!(@cmp $config, $kernel, [$($c)+] [] $($c)+)
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] == $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Eq [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] != $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Ne [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] <= $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Le [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] >= $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Ge [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] < $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Lt [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] > $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Gt [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__kernel_contract_condition!(@cmp $config, $kernel, [$($all)+] [$($l)* $t] $($rest)*)
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)*]) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `", ::core::stringify!($($all)+), "` is not a condition: a \
             condition of `requires(..)` compares two extents with `==`, `!=`, `<`, `<=`, `>` or \
             `>=` (`width > 0`, `grid_x <= width`, `block_x == 16`), or says that a factor is a \
             multiple of another (`n % 32 == 0`), all in checked `usize` arithmetic"
        ))
    };
    (@check $config:ident, $kernel:expr, [$($all:tt)+] $op:ident [$($l:tt)+] [$($r:tt)+]) => {
        $crate::__private_contract::check_condition(
            $kernel,
            ::core::stringify!($($all)+),
            $crate::__kernel_contract_sum!($config; $($l)+),
            $crate::__private_contract::Compare::$op,
            $crate::__kernel_contract_sum!($config; $($r)+),
        )?
    };
}

/// An extent for one launch. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_extent {
    ($config:ident; pitched($rows:tt, $pitch:tt)) => {
        $crate::__private_contract::Required::Bytes($crate::__private_contract::product(&[
            $crate::__kernel_contract_factor!($config; $rows),
            $crate::__kernel_contract_factor!($config; $pitch),
        ]))
    };
    ($config:ident; $($e:tt)+) => {
        $crate::__private_contract::Required::Elements(
            $crate::__kernel_contract_sum!($config; $($e)+),
        )
    };
}

/// An extent's value: a sum (`+`) of products, in checked `usize` arithmetic, `None` on
/// overflow. Splits at each `+` outside parentheses. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_sum {
    (@split $config:ident [$($terms:tt)*] [$($cur:tt)+] + $($rest:tt)+) => {
        $crate::__kernel_contract_sum!(@split $config [$($terms)* [$($cur)+]] [] $($rest)+)
    };
    (@split $config:ident [$($terms:tt)*] [$($cur:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__kernel_contract_sum!(@split $config [$($terms)*] [$($cur)* $t] $($rest)*)
    };
    (@split $config:ident [$([$($term:tt)+])*] [$($cur:tt)+]) => {
        $crate::__private_contract::sum(&[
            $($crate::__kernel_contract_product!($config; $($term)+),)*
            $crate::__kernel_contract_product!($config; $($cur)+)
        ])
    };
    (@split $config:ident [$($terms:tt)*] [$($cur:tt)*]) => {
        ::core::compile_error!("kernel_contract!: an extent has an empty term (a `+` with nothing on one side)")
    };
    ($config:ident; $($e:tt)+) => {
        $crate::__kernel_contract_sum!(@split $config [] [] $($e)+)
    };
}

/// A product (`*`) of factors, `None` on overflow. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_product {
    ($config:ident; $first:tt $(* $rest:tt)*) => {
        $crate::__private_contract::product(&[
            $crate::__kernel_contract_factor!($config; $first)
            $(, $crate::__kernel_contract_factor!($config; $rest))*
        ])
    };
    ($config:ident; $($other:tt)*) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `", ::core::stringify!($($other)*), "` is not an extent: an extent \
             is a sum (`+`) of products (`*`) of integer scalar parameters, integer literals, \
             the launch words (`grid`, `blocks`, `block` and per axis `grid_x`, `blocks_y`, \
             `block_z`, ...) and parenthesized extents, computed in checked `usize` arithmetic \
             (no `-`, `/` or other operators)"
        ))
    };
}

/// One factor: a word of the launch shape, a scalar parameter, an integer literal, or a
/// parenthesized extent. Anything else (a method call, a cast, a block) is refused: a factor is
/// never evaluated in its own type, where it could wrap. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_factor {
    ($config:ident; grid) => {
        $crate::__private_contract::grid_threads($config)
    };
    ($config:ident; blocks) => {
        $crate::__private_contract::grid_blocks($config)
    };
    ($config:ident; block) => {
        $crate::__private_contract::block_threads($config)
    };
    ($config:ident; grid_x) => {
        $crate::__private_contract::axis($config, 0, true, true)
    };
    ($config:ident; grid_y) => {
        $crate::__private_contract::axis($config, 1, true, true)
    };
    ($config:ident; grid_z) => {
        $crate::__private_contract::axis($config, 2, true, true)
    };
    ($config:ident; blocks_x) => {
        $crate::__private_contract::axis($config, 0, true, false)
    };
    ($config:ident; blocks_y) => {
        $crate::__private_contract::axis($config, 1, true, false)
    };
    ($config:ident; blocks_z) => {
        $crate::__private_contract::axis($config, 2, true, false)
    };
    ($config:ident; block_x) => {
        $crate::__private_contract::axis($config, 0, false, true)
    };
    ($config:ident; block_y) => {
        $crate::__private_contract::axis($config, 1, false, true)
    };
    ($config:ident; block_z) => {
        $crate::__private_contract::axis($config, 2, false, true)
    };
    ($config:ident; ($($inner:tt)+)) => {
        $crate::__kernel_contract_sum!($config; $($inner)+)
    };
    ($config:ident; $f:ident) => {
        __kernel_contract_param!($f)
    };
    ($config:ident; $f:literal) => {
        $crate::__private_contract::factor(&$f)
    };
    ($config:ident; $other:tt) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `", ::core::stringify!($other), "` cannot be a factor of an \
             extent: a factor is an integer scalar parameter, an integer literal, a launch word \
             (`grid`, `blocks`, `block`, or one axis of them: `grid_x`, `blocks_y`, `block_z`, \
             ...) or a parenthesized extent"
        ))
    };
}

#[cfg(test)]
mod tests {
    use crate::error::ErrorKind;
    use crate::kernel::contract::kinds::ContractArgs;
    use crate::kernel::launch::LaunchConfig;
    use crate::vocabulary::binding::ScopedSliceMut;

    crate::kernel_contract! {
        /// Extents with sums: evaluated in `usize`, never in the parameters' own types.
        unsafe kernel Offsets = "offsets"(
            rows: &mut [u32; (n + 1)],
            scan: &mut [u32; n + 1 + 2 * n],
            n: u8,
        );
    }

    #[test]
    fn a_sum_in_an_extent_does_not_wrap_in_the_parameters_type() {
        let cfg = LaunchConfig::for_elements(1);
        // Never launched or dereferenced: only the lengths are checked.
        let slice = |ptr: u64, len: usize| {
            // SAFETY: the handle only carries a length here; nothing reaches its address.
            unsafe { ScopedSliceMut::<u32>::from_raw_parts(ptr, len) }
        };
        let (one, big) = (slice(0x1000, 1), slice(0x2000, 1024));
        // 255u8 + 1 would wrap to 0 in `u8`: the extent is 256 elements, and one is too short.
        let e = <_ as ContractArgs<'_, Offsets>>::check(&(one, big, 255u8), &cfg).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferTooShort);
        assert!(
            e.to_string().contains(
                "parameter `rows` holds 1 elements, but its extent `(n + 1)` requires 256"
            ),
            "{e}"
        );
        let (mut rows, short, scan) = (slice(0x1000, 256), slice(0x2000, 765), slice(0x2000, 766));
        let e =
            <_ as ContractArgs<'_, Offsets>>::check(&(&mut rows, short, 255u8), &cfg).unwrap_err();
        assert!(
            e.to_string()
                .contains("`scan` holds 765 elements, but its extent `n + 1 + 2 * n` requires 766"),
            "{e}"
        );
        assert!(<_ as ContractArgs<'_, Offsets>>::check(&(&mut rows, scan, 255u8), &cfg).is_ok());
    }

    crate::kernel_contract! {
        /// NVIDIA's matrixMulDrv kernel shape: `c[(by*32 + ty) * wb + bx*32 + tx]`, no bounds
        /// checks, 32 × 32 blocks and static shared tiles of that size.
        unsafe kernel MatrixMul = "matrix_mul_bs32"(
            c: &mut [f32; grid_y * wb],
            a: &[f32; grid_y * wa],
            b: &[f32; wa * wb],
            wa: u64,
            wb: u64,
        ) requires(
            block_x == 32, block_y == 32, block_z == 1, blocks_z == 1,
            wa > 0, wa % 32 == 0, grid_x <= wb,
        ) max_block(32, 32, 1);
        /// Every comparison, and a trailing-comma-free clause.
        unsafe kernel Compares = "compares"(n: u32, m: i32)
            requires(n != 3, n < 100, n >= 1, (n + 1) * 2 <= blocks_x * 4, m >= 0, n % (m) == 0);
    }

    /// A 2-D launch of `bx × by` blocks of 32 × 32 threads.
    fn grid_2d(bx: u32, by: u32) -> LaunchConfig {
        LaunchConfig {
            grid: (bx, by, 1),
            block: (32, 32, 1),
            shared_mem_bytes: 0,
        }
    }

    #[test]
    fn a_2d_kernel_is_checked_per_axis_and_by_its_preconditions() {
        // Never launched or dereferenced: only the lengths are checked (a writable handle
        // serves as a read-only argument too).
        // SAFETY: the handles only carry a length here; nothing reaches their addresses.
        let out = |len| unsafe { ScopedSliceMut::<f32>::from_raw_parts(0x1000, len) };
        let inp = out;
        let check = |cfg: &LaunchConfig, c: usize, a: usize, b: usize, wa: u64, wb: u64| {
            <_ as ContractArgs<'_, MatrixMul>>::check(&(out(c), inp(a), inp(b), wa, wb), cfg)
        };
        // The sample's sizes (hA = wA = 10·32, wB = 20·32).
        let (ha, wa, wb) = (320usize, 320u64, 640u64);
        let cfg = grid_2d(640 / 32, 320 / 32);
        let (c, a, b) = (ha * 640, ha * 320, 320 * 640);
        assert!(check(&cfg, c, a, b, wa, wb).is_ok());
        // One element short in each buffer.
        for (c2, a2, b2, name) in [
            (c - 1, a, b, "`c` holds"),
            (c, a - 1, b, "`a` holds"),
            (c, a, b - 1, "`b` holds"),
        ] {
            let e = check(&cfg, c2, a2, b2, wa, wb).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(e.to_string().contains(name), "{e}");
        }
        // The example: a 64 × 64 grid of 8 × 8 blocks passes `width * height` on a
        // 512-float buffer. Here the block shape is a precondition, and so is the grid's reach.
        let small = LaunchConfig {
            grid: (64, 64, 1),
            block: (8, 8, 1),
            shared_mem_bytes: 0,
        };
        let e = check(&small, c, a, b, wa, wb).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::PreconditionFailed);
        assert!(
            e.to_string().contains(
                "requires `block_x == 32`, which does not hold for this launch (8 == 32 is false)"
            ),
            "{e}"
        );
        // A grid wider than B: its x threads would write past each row of C.
        let e = check(&grid_2d(21, 10), c, a, b, wa, wb).unwrap_err();
        assert!(e.to_string().contains("`grid_x <= wb`"), "{e}");
        assert!(e.to_string().contains("672 <= 640 is false"), "{e}");
        // wA = 0 would make the kernel's loop run ~2^64 times; wA not a multiple of 32 would
        // read past a row of A.
        let e = check(&cfg, c, a, b, 0, wb).unwrap_err();
        assert!(e.to_string().contains("`wa > 0`"), "{e}");
        let e = check(&cfg, c, a, b, 330, wb).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::PreconditionFailed);
        assert!(e.to_string().contains("`wa % 32 == 0`"), "{e}");
        assert!(e.to_string().contains("330 % 32 is 10"), "{e}");
        // A third grid axis the kernel ignores: its blocks would write the same elements.
        let deep = LaunchConfig {
            grid: (20, 10, 2),
            ..cfg
        };
        let e = check(&deep, c, a, b, wa, wb).unwrap_err();
        assert!(e.to_string().contains("`blocks_z == 1`"), "{e}");
        // Preconditions are checked before extents; overflow in one is SizeOverflow.
        let e = check(&cfg, c, a, b, u64::MAX, u64::MAX).unwrap_err();
        assert!(e.to_string().contains("`wa % 32 == 0`"), "{e}");
        let e = check(&cfg, c, a, b, 1 << 62, 1 << 62).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
        assert!(
            e.to_string()
                .contains("the extent `grid_y * wb` of parameter `c` overflows"),
            "{e}"
        );
    }

    #[test]
    fn every_comparison_and_a_negative_factor() {
        let cfg = LaunchConfig {
            grid: (10, 1, 1),
            block: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        let check = |n: u32, m: i32| <_ as ContractArgs<'_, Compares>>::check(&(n, m), &cfg);
        assert!(check(4, 2).is_ok());
        for (n, m, clause) in [
            (3, 1, "`n != 3`"),
            (100, 1, "`n < 100`"),
            (0, 1, "`n >= 1`"),
            (20, 1, "`(n + 1) * 2 <= blocks_x * 4`"),
            (4, 3, "`n % (m) == 0`"),
            (4, 0, "`n % (m) == 0`"),
        ] {
            let e = check(n, m).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::PreconditionFailed, "{e}");
            assert!(e.to_string().contains(clause), "{n} {m}: {e}");
        }
        // A negative factor is never compared as a wrapped value.
        let e = check(4, -1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
        assert!(
            e.to_string().contains("condition `m >= 0` overflows"),
            "{e}"
        );
    }

    crate::kernel_contract! {
        /// The usual pitched kernel of `kernel_contract!`'s docs: element `x` of row `y` (byte
        /// `y * pitch + 4 * x`) for `x < width`, `y < height`, never compared with the pitch.
        unsafe kernel FillRows = "fill_rows"(
            img: &mut [f32; pitched(height, pitch)],
            pitch: u64,
            width: u32,
            height: u32,
        ) requires(width * 4 <= pitch);
    }

    #[test]
    fn a_pitched_kernel_requires_its_rows_to_fit_the_pitch() {
        let cfg = LaunchConfig::for_elements(1);
        // 3 rows of 512 bytes (384 floats), never launched or dereferenced.
        // SAFETY: the handle only carries a length here; nothing reaches its address.
        let img = || unsafe { ScopedSliceMut::<f32>::from_raw_parts(0x1000, 384) };
        let check = |pitch: u64, width: u32, height: u32| {
            <_ as ContractArgs<'_, FillRows>>::check(&(img(), pitch, width, height), &cfg)
        };
        assert!(check(512, 128, 3).is_ok());
        // One float wider than the pitch: the last row's would pass the end of the buffer,
        // which `pitched(height, pitch)` alone lets through.
        let e = check(512, 129, 3).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::PreconditionFailed);
        assert!(
            e.to_string()
                .contains("requires `width * 4 <= pitch`, which does not hold for this launch (516 <= 512 is false)"),
            "{e}"
        );
        // A row too many: the extent refuses it.
        let e = check(512, 128, 4).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferTooShort);
        assert!(
            e.to_string().contains(
                "holds 1536 bytes, but its extent `pitched(height, pitch)` requires 2048"
            ),
            "{e}"
        );
    }

    crate::kernel_contract! {
        /// A kernel that loads tiles of `src` through the map `tiles` and writes them to `dst`.
        unsafe kernel Tiles = "tiles"(
            tiles: tensor_map<f32> over src box(16, 8),
            src: &[f32; n],
            dst: &mut [f32; n],
            n: u32,
        );
    }

    #[test]
    fn a_tensor_map_over_another_buffer_is_refused_at_launch() {
        use crate::tensor_map::map::ScopedTensorMap;
        use crate::vocabulary::binding::ScopedSlice;
        let cfg = LaunchConfig::for_elements(1);
        // Never launched or dereferenced: only addresses and lengths are compared.
        // SAFETY: as above.
        let a = unsafe { ScopedSlice::<f32>::from_raw_parts(0x10000, 1024) };
        // SAFETY: as above.
        let b = unsafe { ScopedSlice::<f32>::from_raw_parts(0x20000, 1024) };
        // SAFETY: as above.
        let mut dst = unsafe { ScopedSliceMut::<f32>::from_raw_parts(0x30000, 1024) };
        // SAFETY: as above.
        let over_a = unsafe { ScopedTensorMap::<f32>::from_raw_parts(0x10000, 4096, &[16, 8]) };
        <_ as ContractArgs<'_, Tiles>>::check(&(over_a, a, &mut dst, 1024u32), &cfg).unwrap();
        let e = <_ as ContractArgs<'_, Tiles>>::check(&(over_a, b, &mut dst, 1024u32), &cfg)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TensorMapMismatch, "{e}");
        assert!(
            e.to_string().contains("`tiles`") && e.to_string().contains("`src`"),
            "{e}"
        );
        // A map reaching one byte past the bound memory is refused too, and one within it passes.
        // SAFETY: as above.
        let past = unsafe { ScopedTensorMap::<f32>::from_raw_parts(0x10000, 4097, &[16, 8]) };
        let e =
            <_ as ContractArgs<'_, Tiles>>::check(&(past, a, &mut dst, 1024u32), &cfg).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TensorMapMismatch, "{e}");
        // SAFETY: as above.
        let inside = unsafe { ScopedTensorMap::<f32>::from_raw_parts(0x10010, 4080, &[16, 8]) };
        <_ as ContractArgs<'_, Tiles>>::check(&(inside, a, &mut dst, 1024u32), &cfg).unwrap();
        // SAFETY: as above.
        let before = unsafe { ScopedTensorMap::<f32>::from_raw_parts(0xfff0, 16, &[16, 8]) };
        let e = <_ as ContractArgs<'_, Tiles>>::check(&(before, a, &mut dst, 1024u32), &cfg)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TensorMapMismatch, "{e}");
    }

    #[test]
    fn a_tensor_map_whose_box_is_not_the_declared_one_is_refused_at_launch() {
        use crate::tensor_map::map::ScopedTensorMap;
        use crate::vocabulary::binding::ScopedSlice;
        let cfg = LaunchConfig::for_elements(1);
        // Never launched or dereferenced: only the boxes are compared.
        // SAFETY: as above, for each handle.
        let a = unsafe { ScopedSlice::<f32>::from_raw_parts(0x10000, 1024) };
        // SAFETY: as above.
        let mut dst = unsafe { ScopedSliceMut::<f32>::from_raw_parts(0x30000, 1024) };
        for wrong in [&[32u32, 8][..], &[16, 16], &[16], &[16, 8, 1]] {
            // SAFETY: as above.
            let map = unsafe { ScopedTensorMap::<f32>::from_raw_parts(0x10000, 4096, wrong) };
            let e = <_ as ContractArgs<'_, Tiles>>::check(&(map, a, &mut dst, 1024u32), &cfg)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::TensorMapMismatch, "{e}");
            assert!(e.to_string().contains("box"), "{e}");
        }
    }
}
