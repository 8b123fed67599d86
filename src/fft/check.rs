//! The checks a plan makes before cuFFT is called, and each execution before anything is
//! enqueued: the sizes, batch and layouts of an [`Fft`] turned into cuFFT's parameters
//! ([`Params`]) with the extent each side spans, and the bound buffers' lengths and alignment
//! against those extents.
//!
//! Pure functions of numbers, so they are tested without a GPU. Each error's detail names the
//! call and the argument (`cufftExecR2C: output holds 8 elements, the plan needs 9; nothing was
//! enqueued`).

use crate::error::{Error, ErrorKind, Result};
use crate::fft::shape::{Fft, Layout};
use crate::fft::types::Sides;
use core::ffi::{c_int, c_longlong};

/// The call a plan is made with.
pub(crate) const PLAN: &str = "cufftMakePlanMany64";

#[cold]
#[inline(never)]
fn refused(call: &str, kind: ErrorKind, what: &str, after: &str) -> Error {
    Error::custack(kind, format!("{call}: {what}; {after}"))
}

/// A plan refused before cuFFT is called.
fn bad_plan(what: &str) -> Error {
    refused(PLAN, ErrorKind::InvalidValue, what, "no plan was made")
}

fn plan_overflow(what: &str) -> Error {
    refused(PLAN, ErrorKind::SizeOverflow, what, "no plan was made")
}

/// cuFFT's parameters for a plan, checked, with what each side spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Params {
    pub(crate) rank: c_int,
    pub(crate) n: [c_longlong; 3],
    pub(crate) inembed: [c_longlong; 3],
    pub(crate) istride: c_longlong,
    pub(crate) idist: c_longlong,
    pub(crate) onembed: [c_longlong; 3],
    pub(crate) ostride: c_longlong,
    pub(crate) odist: c_longlong,
    pub(crate) batch: c_longlong,
    /// The elements (of the input's type) the input spans.
    pub(crate) in_extent: usize,
    /// The elements (of the output's type) the output spans.
    pub(crate) out_extent: usize,
    pub(crate) in_place: bool,
}

/// One side's layout, resolved: its logical sizes, storage sizes, stride and distance.
struct Side {
    logical: [usize; 3],
    layout: Layout,
}

fn product(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |p, &d| p.checked_mul(d))
}

/// A contiguous layout of `dims` (the first `rank`).
fn contiguous(dims: [usize; 3], rank: usize) -> Result<Layout> {
    let used = dims.get(..rank).unwrap_or_default();
    let dist =
        product(used).ok_or_else(|| plan_overflow(&format!("the sizes {used:?} overflow")))?;
    Ok(Layout {
        embed: dims,
        rank,
        stride: 1,
        dist,
    })
}

fn long(what: &str, value: usize) -> Result<c_longlong> {
    c_longlong::try_from(value)
        .map_err(|_| plan_overflow(&format!("{what} {value} exceeds a C long long")))
}

/// The elements one batch of `side` spans: `stride·(Σ (m_i − 1)·P_i) + 1`, `P_i` the product
/// of the storage sizes after dimension `i`.
fn one_batch(name: &str, side: &Side, rank: usize) -> Result<usize> {
    let l = &side.layout;
    let mut offset = 0usize;
    let mut pitch = 1usize;
    for (&m, &e) in side.logical.iter().zip(&l.embed).take(rank).rev() {
        offset = m
            .saturating_sub(1)
            .checked_mul(pitch)
            .and_then(|x| x.checked_add(offset))
            .ok_or_else(|| plan_overflow(&format!("the {name}'s extent overflows")))?;
        pitch = pitch
            .checked_mul(e)
            .ok_or_else(|| plan_overflow(&format!("the {name}'s storage sizes overflow")))?;
    }
    l.stride
        .checked_mul(offset)
        .and_then(|x| x.checked_add(1))
        .ok_or_else(|| plan_overflow(&format!("the {name}'s extent overflows")))
}

/// A side's layout against the transform: as many storage sizes as dimensions, each (but the
/// first, which cuFFT does not use) at least the side's size there, a stride of at least 1, a
/// distance of at least 1 when there are several batches; returns the extent of all batches.
fn side_extent(name: &str, p: char, side: &Side, rank: usize, batch: usize) -> Result<usize> {
    let l = &side.layout;
    if l.rank != rank {
        return Err(bad_plan(&format!(
            "{p}nembed has {} sizes, the transform {rank} dimensions",
            l.rank
        )));
    }
    for (i, (&e, &m)) in l
        .embed
        .iter()
        .zip(&side.logical)
        .enumerate()
        .take(rank)
        .skip(1)
    {
        if e < m {
            return Err(bad_plan(&format!(
                "{p}nembed[{i}] {e} < the {m} elements of the {name} in dimension {i}"
            )));
        }
    }
    if l.stride == 0 {
        return Err(bad_plan(&format!("{p}stride is 0")));
    }
    if batch > 1 && l.dist == 0 {
        return Err(bad_plan(&format!("{p}dist is 0 with a batch of {batch}")));
    }
    let one = one_batch(name, side, rank)?;
    (batch - 1)
        .checked_mul(l.dist)
        .and_then(|x| x.checked_add(one))
        .ok_or_else(|| plan_overflow(&format!("the {name}'s extent overflows")))
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// No element of a side cuFFT writes (the output, and a complex-to-real transform's input,
/// which cuFFT may overwrite) is written by two batches (a write race). Within a batch the
/// storage sizes keep every element apart; between batches, for one dimension exactly: batch
/// `t` meets batch 0 when `t·dist = stride·k` for some `k < n`, first at `t = stride / gcd`. For
/// two and three dimensions the batches must lie outermost (`dist` at least one batch's extent)
/// or innermost (`stride ≥ dist·batch`), which is every layout cuFFT's documentation shows.
fn batches_apart(name: &str, prefix: char, side: &Side, rank: usize, batch: usize) -> Result<()> {
    if batch < 2 {
        return Ok(());
    }
    let l = &side.layout;
    let (dist, stride) = (l.dist, l.stride);
    if rank == 1 {
        let n = side.logical.first().copied().unwrap_or(1);
        let t = stride / gcd(dist, stride);
        let k = t.saturating_mul(dist) / stride;
        if t < batch && k < n {
            return Err(bad_plan(&format!(
                "{prefix}dist {dist} and {prefix}stride {stride} make batches 0 and {t} both \
                 write element {} of the {name}",
                t * dist
            )));
        }
        return Ok(());
    }
    let one = one_batch(name, side, rank)?;
    let innermost = dist.checked_mul(batch).is_some_and(|all| stride >= all);
    if dist >= one || innermost {
        return Ok(());
    }
    Err(bad_plan(&format!(
        "{prefix}dist {dist} and {prefix}stride {stride} may let two batches write one element \
         of the {name}: for 2 and 3 dimensions the batches must lie outermost ({prefix}dist ≥ \
         {one}, one batch's extent) or innermost ({prefix}stride ≥ {prefix}dist × batch)"
    )))
}

/// `dims` with the last of its first `rank` sizes replaced by `value`.
fn with_last(dims: [usize; 3], rank: usize, value: usize) -> [usize; 3] {
    let mut out = dims;
    if let Some(last) = rank.checked_sub(1).and_then(|i| out.get_mut(i)) {
        *last = value;
    }
    out
}

/// cuFFT's parameters for `shape`, checked.
pub(crate) fn params(sides: Sides, shape: &Fft) -> Result<Params> {
    let rank = shape.rank;
    if !(1..=3).contains(&rank) {
        return Err(bad_plan(&format!(
            "rank {rank}: cuFFT transforms 1, 2 or 3 dimensions"
        )));
    }
    let dims = shape.dims;
    if let Some(i) = dims.iter().take(rank).position(|&d| d == 0) {
        return Err(bad_plan(&format!("n[{i}] is 0")));
    }
    let batch = shape.batch;
    if batch == 0 {
        return Err(bad_plan("batch is 0"));
    }
    // The last dimension of a complex side of a real transform, and of a real side padded to
    // hold it in place.
    let last = dims.get(rank - 1).copied().unwrap_or(1);
    let half = with_last(dims, rank, last / 2 + 1);
    let padded = with_last(dims, rank, 2 * (last / 2 + 1));
    let (in_logical, out_logical) = match sides {
        Sides::C2c => (dims, dims),
        Sides::R2c => (dims, half),
        Sides::C2r => (half, dims),
    };
    let (in_layout, out_layout) = if shape.in_place {
        if shape.input.is_some() || shape.output.is_some() {
            return Err(bad_plan(
                "an in-place plan takes no layouts (it uses cuFFT's in-place layout)",
            ));
        }
        match sides {
            Sides::C2c => (contiguous(dims, rank)?, contiguous(dims, rank)?),
            Sides::R2c => (contiguous(padded, rank)?, contiguous(half, rank)?),
            Sides::C2r => (contiguous(half, rank)?, contiguous(padded, rank)?),
        }
    } else {
        (
            shape
                .input
                .map_or_else(|| contiguous(in_logical, rank), Ok)?,
            shape
                .output
                .map_or_else(|| contiguous(out_logical, rank), Ok)?,
        )
    };
    let input = Side {
        logical: in_logical,
        layout: in_layout,
    };
    let output = Side {
        logical: out_logical,
        layout: out_layout,
    };
    let in_extent = side_extent("input", 'i', &input, rank, batch)?;
    let out_extent = side_extent("output", 'o', &output, rank, batch)?;
    batches_apart("output", 'o', &output, rank, batch)?;
    if sides == Sides::C2r {
        // cuFFT may overwrite a complex-to-real transform's input: its batches are written too.
        batches_apart("input", 'i', &input, rank, batch)?;
    }
    let longs = |name: &str, values: [usize; 3]| -> Result<[c_longlong; 3]> {
        let mut out = [1; 3];
        for (i, (to, &v)) in out.iter_mut().zip(&values).enumerate().take(rank) {
            *to = long(&format!("{name}[{i}]"), v)?;
        }
        Ok(out)
    };
    // An in-place real-to-complex plan: its two sides must fill the same memory.
    Ok(Params {
        rank: rank as c_int,
        n: longs("n", dims)?,
        inembed: longs("inembed", in_layout.embed)?,
        istride: long("istride", in_layout.stride)?,
        idist: long("idist", in_layout.dist)?,
        onembed: longs("onembed", out_layout.embed)?,
        ostride: long("ostride", out_layout.stride)?,
        odist: long("odist", out_layout.dist)?,
        batch: long("batch", batch)?,
        in_extent,
        out_extent,
        in_place: shape.in_place,
    })
}

/// A bound buffer of `len` elements holds the `need` the plan reaches.
fn holds(call: &str, name: &str, len: usize, need: usize) -> Result<()> {
    if len < need {
        return Err(refused(
            call,
            ErrorKind::BufferTooShort,
            &format!("{name} holds {len} elements, the plan needs {need}"),
            "nothing was enqueued",
        ));
    }
    Ok(())
}

/// A device address aligned to `align` bytes (cuFFT requires both sides aligned to its complex
/// type).
fn aligned(call: &str, name: &str, ptr: u64, align: usize) -> Result<()> {
    if ptr % align as u64 != 0 {
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("{name} at {ptr:#x} is not aligned to {align} bytes, as cuFFT requires"),
            "nothing was enqueued",
        ));
    }
    Ok(())
}

/// The placement the execution asks for is the plan's.
fn placement(call: &str, params: &Params, in_place: bool) -> Result<()> {
    if params.in_place != in_place {
        let (was, use_) = if params.in_place {
            ("in place", "run_in_place")
        } else {
            ("out of place", "run")
        };
        return Err(refused(
            call,
            ErrorKind::InvalidValue,
            &format!("the plan was made {was}; call `{use_}`"),
            "nothing was enqueued",
        ));
    }
    Ok(())
}

/// An out-of-place execution's buffers: `(address, length)` of the input and the output, each
/// holding its side's extent, both aligned to `align` (the complex type's).
pub(crate) fn out_of_place(
    call: &str,
    params: &Params,
    (input, in_len): (u64, usize),
    (output, out_len): (u64, usize),
    align: usize,
) -> Result<()> {
    placement(call, params, false)?;
    holds(call, "input", in_len, params.in_extent)?;
    holds(call, "output", out_len, params.out_extent)?;
    aligned(call, "input", input, align)?;
    aligned(call, "output", output, align)
}

/// An in-place execution's one buffer of `len` elements of `in_size` bytes: it holds the input's
/// extent and, in bytes, the output's (`out_size` bytes each), aligned to `align`.
pub(crate) fn in_place(
    call: &str,
    params: &Params,
    (data, len): (u64, usize),
    (in_size, out_size): (usize, usize),
    align: usize,
) -> Result<()> {
    placement(call, params, true)?;
    // The output's extent in elements of the input's type, rounded up.
    let out_need = params
        .out_extent
        .checked_mul(out_size)
        .map(|bytes| bytes.div_ceil(in_size))
        .ok_or_else(|| {
            refused(
                call,
                ErrorKind::SizeOverflow,
                "the output's extent overflows",
                "nothing was enqueued",
            )
        })?;
    holds(call, "data", len, params.in_extent.max(out_need))?;
    aligned(call, "data", data, align)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(r: Result<impl core::fmt::Debug>) -> (ErrorKind, String) {
        let e = r.expect_err("must be refused");
        (e.kind(), e.detail().unwrap_or_default().to_owned())
    }

    #[test]
    fn contiguous_plans_span_their_sizes() {
        let p = params(Sides::C2c, &Fft::new(&[8]).batch(3)).unwrap();
        assert_eq!((p.rank, p.n[0], p.batch), (1, 8, 3));
        assert_eq!((p.istride, p.idist, p.ostride, p.odist), (1, 8, 1, 8));
        assert_eq!((p.in_extent, p.out_extent), (24, 24));
        // Real to complex: the output keeps n/2 + 1 of the last dimension.
        let p = params(Sides::R2c, &Fft::new(&[4, 6]).batch(2)).unwrap();
        assert_eq!(
            (&p.inembed[..2], &p.onembed[..2]),
            (&[4, 6][..], &[4, 4][..])
        );
        assert_eq!((p.in_extent, p.out_extent), (48, 32));
        let p = params(Sides::C2r, &Fft::new(&[5])).unwrap();
        assert_eq!((p.in_extent, p.out_extent), (3, 5));
        // Three dimensions.
        let p = params(Sides::C2c, &Fft::new(&[2, 3, 4])).unwrap();
        assert_eq!((p.rank, p.in_extent), (3, 24));
    }

    #[test]
    fn in_place_real_transforms_pad_the_real_side() {
        // n = 6: 4 complex values a row, the reals padded to 8.
        let p = params(Sides::R2c, &Fft::new(&[3, 6]).batch(2).in_place()).unwrap();
        assert_eq!((p.inembed[1], p.onembed[1]), (8, 4));
        assert_eq!((p.idist, p.odist), (24, 12));
        // The reals read end at the last row's sixth value (24 + 2·8 + 6 = 46), the complex
        // values written span all 24 (48 floats).
        assert_eq!((p.in_extent, p.out_extent), (46, 24));
        // The buffer is the reals: 48 floats hold 24 complex values of 8 bytes.
        in_place("cufftExecR2C", &p, (256, 48), (4, 8), 8).unwrap();
        assert_eq!(
            err(in_place("cufftExecR2C", &p, (256, 47), (4, 8), 8)).1,
            "cufftExecR2C: data holds 47 elements, the plan needs 48; nothing was enqueued"
        );
        assert_eq!(
            err(in_place("cufftExecR2C", &p, (260, 48), (4, 8), 8)).1,
            "cufftExecR2C: data at 0x104 is not aligned to 8 bytes, as cuFFT requires; nothing \
             was enqueued"
        );
        // Complex to real in place: the complex values are the buffer.
        let p = params(Sides::C2r, &Fft::new(&[6]).in_place()).unwrap();
        // 4 complex values read, 6 reals written (of the 8 they occupy).
        assert_eq!((p.in_extent, p.out_extent), (4, 6));
        in_place("cufftExecC2R", &p, (256, 4), (8, 4), 8).unwrap();
        assert_eq!(
            err(params(
                Sides::C2c,
                &Fft::new(&[6])
                    .in_place()
                    .input_layout(Layout::new(&[6], 1, 6))
            ))
            .1,
            "cufftMakePlanMany64: an in-place plan takes no layouts (it uses cuFFT's in-place \
             layout); no plan was made"
        );
    }

    #[test]
    fn executions_check_lengths_placement_and_alignment() {
        let call = "cufftExecR2C";
        let p = params(Sides::R2c, &Fft::new(&[16])).unwrap();
        out_of_place(call, &p, (256, 16), (512, 9), 8).unwrap();
        assert_eq!(
            err(out_of_place(call, &p, (256, 16), (512, 8), 8)),
            (
                ErrorKind::BufferTooShort,
                "cufftExecR2C: output holds 8 elements, the plan needs 9; nothing was enqueued"
                    .to_owned()
            )
        );
        assert_eq!(
            err(out_of_place(call, &p, (256, 15), (512, 9), 8)).1,
            "cufftExecR2C: input holds 15 elements, the plan needs 16; nothing was enqueued"
        );
        assert_eq!(
            err(out_of_place(call, &p, (260, 16), (512, 9), 8)).1,
            "cufftExecR2C: input at 0x104 is not aligned to 8 bytes, as cuFFT requires; nothing \
             was enqueued"
        );
        assert_eq!(
            err(in_place(call, &p, (256, 100), (4, 8), 8)).1,
            "cufftExecR2C: the plan was made out of place; call `run`; nothing was enqueued"
        );
    }

    #[test]
    fn shapes_and_layouts_are_refused_before_cufft() {
        let e = |s: Fft| err(params(Sides::C2c, &s)).1;
        assert_eq!(
            e(Fft::new(&[])),
            "cufftMakePlanMany64: rank 0: cuFFT transforms 1, 2 or 3 dimensions; no plan was made"
        );
        assert!(e(Fft::new(&[2, 2, 2, 2])).contains("rank 4"));
        assert_eq!(
            e(Fft::new(&[4, 0])),
            "cufftMakePlanMany64: n[1] is 0; no plan was made"
        );
        assert!(e(Fft::new(&[4]).batch(0)).contains("batch is 0"));
        assert_eq!(
            e(Fft::new(&[4, 8]).input_layout(Layout::new(&[4, 7], 1, 32))),
            "cufftMakePlanMany64: inembed[1] 7 < the 8 elements of the input in dimension 1; \
             no plan was made"
        );
        assert!(
            e(Fft::new(&[4]).output_layout(Layout::new(&[4, 4], 1, 4)))
                .contains("onembed has 2 sizes, the transform 1 dimensions")
        );
        assert!(e(Fft::new(&[4]).input_layout(Layout::new(&[4], 0, 4))).contains("istride is 0"));
        assert!(
            e(Fft::new(&[4])
                .batch(2)
                .output_layout(Layout::new(&[4], 1, 0)))
            .contains("odist is 0 with a batch of 2")
        );
        // The complex side of a real transform has n/2 + 1 elements in the last dimension.
        assert!(
            err(params(
                Sides::R2c,
                &Fft::new(&[2, 8]).output_layout(Layout::new(&[2, 4], 1, 10))
            ))
            .1
            .contains("onembed[1] 4 < the 5 elements of the output in dimension 1")
        );
        // Sizes past a C long long.
        let (kind, detail) = err(params(Sides::C2c, &Fft::new(&[usize::MAX / 2, 4])));
        assert_eq!(kind, ErrorKind::SizeOverflow, "{detail}");
    }

    #[test]
    fn batches_writing_one_element_are_refused_exactly_in_one_dimension() {
        // Interleaved: batch b writes b + 4·x, x < 8, for 4 batches: apart.
        let interleaved = Fft::new(&[8])
            .batch(4)
            .output_layout(Layout::new(&[8], 4, 1));
        let p = params(Sides::C2c, &interleaved).unwrap();
        assert_eq!(p.out_extent, 32);
        // With 5 batches, batch 4 writes element 4, as batch 0 does (x = 1).
        assert_eq!(
            err(params(Sides::C2c, &interleaved.batch(5))).1,
            "cufftMakePlanMany64: odist 1 and ostride 4 make batches 0 and 4 both write element \
             4 of the output; no plan was made"
        );
        // Batches 6 apart with stride 4: batch 2 starts at 12 = 4·3, an element of batch 0.
        assert!(
            err(params(
                Sides::C2c,
                &Fft::new(&[8])
                    .batch(3)
                    .output_layout(Layout::new(&[8], 4, 6))
            ))
            .1
            .contains("batches 0 and 2 both write element 12")
        );
        // ... but with 3 points, batch 0 ends at 8: apart.
        params(
            Sides::C2c,
            &Fft::new(&[3])
                .batch(3)
                .output_layout(Layout::new(&[3], 4, 6)),
        )
        .unwrap();
        // Against every pair of batches' element sets, for small layouts.
        for n in 1..6 {
            for stride in 1..5 {
                for dist in 1..12 {
                    for batch in 1..6 {
                        let mut seen = std::collections::HashSet::new();
                        let apart = (0..batch)
                            .flat_map(|b| (0..n).map(move |x| b * dist + stride * x))
                            .all(|e| seen.insert(e));
                        let shape = Fft::new(&[n]).batch(batch).output_layout(Layout::new(
                            &[n],
                            stride,
                            dist,
                        ));
                        assert_eq!(
                            params(Sides::C2c, &shape).is_ok(),
                            apart,
                            "n {n} stride {stride} dist {dist} batch {batch}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_complex_to_real_input_is_written_so_its_batches_must_lie_apart() {
        // Two batches whose inputs overlap (idist 1) are fine for C2C, which only reads its
        // input; cuFFT may overwrite a C2R input, so there they would write one element.
        let overlapping = |half: usize| Layout::new(&[half], 1, 1);
        params(
            Sides::C2c,
            &Fft::new(&[5]).batch(2).input_layout(overlapping(5)),
        )
        .unwrap();
        assert_eq!(
            err(params(
                Sides::C2r,
                &Fft::new(&[8]).batch(2).input_layout(overlapping(5))
            ))
            .1,
            "cufftMakePlanMany64: idist 1 and istride 1 make batches 0 and 1 both write element \
             1 of the input; no plan was made"
        );
        params(
            Sides::C2r,
            &Fft::new(&[8])
                .batch(2)
                .input_layout(Layout::new(&[5], 1, 5)),
        )
        .unwrap();
    }

    #[test]
    fn batches_in_two_dimensions_lie_outermost_or_innermost() {
        // 4 × 4 transforms, batches outermost with a gap, and innermost (interleaved).
        params(
            Sides::C2c,
            &Fft::new(&[4, 4])
                .batch(3)
                .output_layout(Layout::new(&[4, 4], 1, 20)),
        )
        .unwrap();
        params(
            Sides::C2c,
            &Fft::new(&[4, 4])
                .batch(3)
                .output_layout(Layout::new(&[4, 4], 3, 1)),
        )
        .unwrap();
        assert!(
            err(params(
                Sides::C2c,
                &Fft::new(&[4, 4])
                    .batch(3)
                    .output_layout(Layout::new(&[4, 4], 1, 8))
            ))
            .1
            .contains("may let two batches write one element of the output")
        );
    }
}
