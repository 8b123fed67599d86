//! What can be checked of a convolution without the GPU: its parameters and the extents of its
//! tensors when the plan is made ([`params`]), and the buffers bound to each run ([`buffers`]).

use crate::dnn::shape::{Conv2d, Layout};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use core::ffi::c_int;

/// The call named by errors of making a plan.
pub(crate) const PLAN: &str = "cudnnSetConvolution2dDescriptor";
/// The call named by errors of a run.
pub(crate) const RUN: &str = "cudnnConvolutionBiasActivationForward";

/// The alignment, in bytes, every tensor's address must have. cuDNN's vectorized kernels read
/// 16 bytes at a time and document `CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER`; custack does not
/// rely on every algorithm checking it, so a view starting elsewhere is refused before the call.
pub(crate) const ALIGN: u64 = 16;

/// A convolution's parameters, checked and converted to cuDNN's `int`s, and the elements each
/// tensor reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Params {
    /// The input's sizes `n, c, h, w` and strides in elements, in that order.
    pub(crate) x: ([c_int; 4], [c_int; 4]),
    /// The filter's `k, c, r, s`.
    pub(crate) w: [c_int; 4],
    /// The output's sizes `n, k, p, q` and strides.
    pub(crate) y: ([c_int; 4], [c_int; 4]),
    /// Padding, stride and dilation, height then width.
    pub(crate) pad: [c_int; 2],
    pub(crate) stride: [c_int; 2],
    pub(crate) dilation: [c_int; 2],
    pub(crate) format: ffi::cudnn::cudnnTensorFormat_t,
    pub(crate) math: ffi::cudnn::cudnnMathType_t,
    /// The elements each run reads or writes: input, filter, bias, output.
    pub(crate) x_len: usize,
    pub(crate) w_len: usize,
    pub(crate) bias_len: usize,
    pub(crate) y_len: usize,
}

fn invalid(what: &str) -> Error {
    Error::custack(
        ErrorKind::InvalidValue,
        format!("{PLAN}: {what}; no plan was made"),
    )
}

fn overflow(what: &str) -> Error {
    Error::custack(
        ErrorKind::SizeOverflow,
        format!(
            "{PLAN}: {what} exceeds cuDNN's limit of 2^31 - 1 elements (an `int`); no plan was made"
        ),
    )
}

/// `v` as cuDNN's `int`.
fn int(v: usize, what: &str) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| overflow(what))
}

/// The packed strides of sizes `n, c, h, w` in `layout`, in `n, c, h, w` order, and the
/// elements the tensor reaches: `1 + Σ (size − 1)·stride`, every product checked.
fn packed(dims: [c_int; 4], layout: Layout, what: &str) -> Result<([c_int; 4], usize)> {
    let [n, c, h, w] = dims.map(i64::from);
    // Sizes are below 2^31, so a product of two is below 2^62; of three, checked.
    let three = |a: i64, b: i64, d: i64| (a * b).checked_mul(d).ok_or_else(|| overflow(what));
    let strides = match layout {
        Layout::Nchw => [three(c, h, w)?, h * w, w, 1],
        Layout::Nhwc => [three(h, w, c)?, 1, w * c, c],
    };
    let mut extent: i64 = 1;
    for (d, s) in [n, c, h, w].into_iter().zip(strides) {
        extent = (d - 1)
            .checked_mul(s)
            .and_then(|step| extent.checked_add(step))
            .ok_or_else(|| overflow(what))?;
    }
    if extent > i64::from(c_int::MAX) {
        return Err(overflow(what));
    }
    let mut out = [0; 4];
    for (o, s) in out.iter_mut().zip(strides) {
        *o = c_int::try_from(s).map_err(|_| overflow(what))?;
    }
    let extent = usize::try_from(extent).map_err(|_| overflow(what))?;
    Ok((out, extent))
}

/// Checks a convolution and computes its output's sizes and every tensor's extent.
///
/// # Errors
///
/// [`ErrorKind::InvalidValue`] for a size, stride or dilation of 0 or a filter wider (after
/// dilation) than the padded input; [`ErrorKind::SizeOverflow`] for a value or a tensor beyond
/// cuDNN's `int`.
#[allow(
    clippy::many_single_char_names,
    reason = "the convolution's own names: n, c, h, w, k, r, s"
)]
pub(crate) fn params(conv: &Conv2d) -> Result<Params> {
    let [n, c, h, w] = conv.input;
    let [k, r, s] = conv.filter;
    for (v, name) in [
        (n, "the batch N"),
        (c, "the input channels C"),
        (h, "the input height H"),
        (w, "the input width W"),
        (k, "the output channels K"),
        (r, "the filter height R"),
        (s, "the filter width S"),
        (conv.stride[0], "the vertical stride"),
        (conv.stride[1], "the horizontal stride"),
        (conv.dilation[0], "the vertical dilation"),
        (conv.dilation[1], "the horizontal dilation"),
    ] {
        if v == 0 {
            return Err(invalid(&format!("{name} is 0")));
        }
    }
    let dims = [int(n, "N")?, int(c, "C")?, int(h, "H")?, int(w, "W")?];
    let filter = [int(k, "K")?, dims[1], int(r, "R")?, int(s, "S")?];
    let pad = [
        int(conv.padding[0], "the padding")?,
        int(conv.padding[1], "the padding")?,
    ];
    let stride = [
        int(conv.stride[0], "the stride")?,
        int(conv.stride[1], "the stride")?,
    ];
    let dilation = [
        int(conv.dilation[0], "the dilation")?,
        int(conv.dilation[1], "the dilation")?,
    ];
    // The output's height and width, in i64 (every operand is below 2^31).
    let axes = [
        (dims[2], filter[2], pad[0], dilation[0], stride[0], "height"),
        (dims[3], filter[3], pad[1], dilation[1], stride[1], "width"),
    ];
    let mut out = [0; 2];
    for (o, (size, taps, pad, dilation, stride, axis)) in out.iter_mut().zip(axes) {
        let padded = i64::from(size) + 2 * i64::from(pad);
        let reach = (i64::from(taps) - 1) * i64::from(dilation) + 1;
        if reach > padded {
            return Err(invalid(&format!(
                "the filter's {axis} reaches {reach} elements (after dilation), more than the \
                 padded input's {padded}"
            )));
        }
        *o = c_int::try_from((padded - reach) / i64::from(stride) + 1)
            .map_err(|_| overflow("the output"))?;
    }
    let (x_strides, x_len) = packed(dims, conv.layout, "the input")?;
    let y_dims = [dims[0], filter[0], out[0], out[1]];
    let (y_strides, y_len) = packed(y_dims, conv.layout, "the output")?;
    // The filter is packed `K, C, R, S` (NCHW) or `K, R, S, C` (NHWC): `K·C·R·S` elements.
    let (_, w_len) = packed(filter, conv.layout, "the filter")?;
    Ok(Params {
        x: (dims, x_strides),
        w: filter,
        y: (y_dims, y_strides),
        pad,
        stride,
        dilation,
        format: match conv.layout {
            Layout::Nchw => ffi::cudnn::cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
            Layout::Nhwc => ffi::cudnn::cudnnTensorFormat_t::CUDNN_TENSOR_NHWC,
        },
        math: if conv.tensor_cores {
            ffi::cudnn::cudnnMathType_t::CUDNN_DEFAULT_MATH
        } else {
            ffi::cudnn::cudnnMathType_t::CUDNN_FMA_MATH
        },
        x_len,
        w_len,
        bias_len: k,
        y_len,
    })
}

/// A bound buffer: its device address and its length in elements.
pub(crate) type Bound = (ffi::CUdeviceptr, usize);

/// Checks the buffers bound to one run: each holds what the plan reaches of it, and starts at
/// an address aligned to [`ALIGN`].
///
/// # Errors
///
/// [`ErrorKind::BufferTooShort`] naming the first buffer shorter than its extent;
/// [`ErrorKind::InvalidValue`] naming the first misaligned one. Nothing was enqueued.
pub(crate) fn buffers(p: &Params, x: Bound, w: Bound, bias: Bound, y: Bound) -> Result<()> {
    bound(
        RUN,
        &[
            ("the input x", x, p.x_len),
            ("the filter w", w, p.w_len),
            ("the bias", bias, p.bias_len),
            ("the output y", y, p.y_len),
        ],
        "cuDNN's kernels read it",
    )
}

/// The one check of the buffers bound to a run of any cuDNN plan (the convolution's
/// [`buffers`], the matmul's): every buffer of `sides` (its name, the buffer, the elements the
/// plan reaches of it) holds what the plan reaches, then every one starts at an address aligned
/// to [`ALIGN`]; errors name the call `run`, the buffer, and why the alignment is needed
/// (`aligned_as`).
///
/// # Errors
///
/// [`ErrorKind::BufferTooShort`] naming the first buffer shorter than its extent;
/// [`ErrorKind::InvalidValue`] naming the first misaligned one. Nothing was enqueued.
pub(crate) fn bound(run: &str, sides: &[(&str, Bound, usize)], aligned_as: &str) -> Result<()> {
    for &(name, (_, len), need) in sides {
        if len < need {
            return Err(Error::custack(
                ErrorKind::BufferTooShort,
                format!(
                    "{run}: {name} holds {len} elements, the plan needs {need}; nothing was \
                     enqueued"
                ),
            ));
        }
    }
    for &(name, (ptr, _), _) in sides {
        if ptr % ALIGN != 0 {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "{run}: {name} starts at {ptr:#x}, not aligned to {ALIGN} bytes as \
                     {aligned_as}; nothing was enqueued"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv() -> Conv2d {
        // 2 images of 3 channels of 5 × 7, 4 filters of 3 × 3.
        Conv2d::new([2, 3, 5, 7], [4, 3, 3])
    }

    #[test]
    fn the_output_shape_follows_padding_stride_and_dilation() {
        let p = params(&conv()).unwrap();
        assert_eq!(p.y.0, [2, 4, 3, 5]);
        let p = params(&conv().padding(1, 1)).unwrap();
        assert_eq!(p.y.0, [2, 4, 5, 7]);
        let p = params(&conv().padding(1, 1).stride(2, 3)).unwrap();
        // (5 + 2 − 3)/2 + 1 = 3, (7 + 2 − 3)/3 + 1 = 3.
        assert_eq!(p.y.0, [2, 4, 3, 3]);
        let p = params(&conv().dilation(2, 2)).unwrap();
        // A 3-tap filter dilated by 2 reaches 5: (5 − 5) + 1 = 1, (7 − 5) + 1 = 3.
        assert_eq!(p.y.0, [2, 4, 1, 3]);
        assert_eq!(p.w, [4, 3, 3, 3]);
        assert_eq!((p.pad, p.stride, p.dilation), ([0, 0], [1, 1], [2, 2]));
    }

    #[test]
    fn strides_and_extents_are_packed_in_either_layout() {
        let p = params(&conv()).unwrap();
        assert_eq!(p.x.1, [3 * 5 * 7, 5 * 7, 7, 1]);
        assert_eq!(p.y.1, [4 * 3 * 5, 3 * 5, 5, 1]);
        assert_eq!((p.x_len, p.w_len, p.bias_len, p.y_len), (210, 108, 4, 120));
        let p = params(&conv().layout(Layout::Nhwc)).unwrap();
        assert_eq!(p.x.1, [5 * 7 * 3, 1, 7 * 3, 3]);
        assert_eq!(p.y.1, [3 * 5 * 4, 1, 5 * 4, 4]);
        assert_eq!((p.x_len, p.w_len, p.bias_len, p.y_len), (210, 108, 4, 120));
        assert_eq!(p.format, ffi::cudnn::cudnnTensorFormat_t::CUDNN_TENSOR_NHWC);
        assert_eq!(p.math, ffi::cudnn::cudnnMathType_t::CUDNN_FMA_MATH);
        let p = params(&conv().tensor_cores(true)).unwrap();
        assert_eq!(p.math, ffi::cudnn::cudnnMathType_t::CUDNN_DEFAULT_MATH);
    }

    #[test]
    fn zero_sizes_strides_and_dilations_are_refused() {
        let zeros = [
            Conv2d::new([0, 3, 5, 7], [4, 3, 3]),
            Conv2d::new([2, 0, 5, 7], [4, 3, 3]),
            Conv2d::new([2, 3, 0, 7], [4, 3, 3]),
            Conv2d::new([2, 3, 5, 0], [4, 3, 3]),
            Conv2d::new([2, 3, 5, 7], [0, 3, 3]),
            Conv2d::new([2, 3, 5, 7], [4, 0, 3]),
            Conv2d::new([2, 3, 5, 7], [4, 3, 0]),
            conv().stride(0, 1),
            conv().stride(1, 0),
            conv().dilation(0, 1),
            conv().dilation(1, 0),
        ];
        for c in zeros {
            let e = params(&c).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue, "{c:?}");
            assert!(e.to_string().contains("is 0"), "{e}");
        }
    }

    #[test]
    fn a_filter_beyond_the_padded_input_is_refused() {
        // Exactly the padded input: one output row.
        assert_eq!(
            params(&Conv2d::new([1, 1, 3, 3], [1, 3, 3])).unwrap().y.0,
            [1, 1, 1, 1]
        );
        let e = params(&Conv2d::new([1, 1, 2, 3], [1, 3, 3])).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.to_string().contains("height reaches 3"), "{e}");
        let e = params(&Conv2d::new([1, 1, 3, 3], [1, 3, 3]).dilation(1, 2)).unwrap_err();
        assert!(e.to_string().contains("width reaches 5"), "{e}");
        // Padding makes room.
        assert_eq!(
            params(&Conv2d::new([1, 1, 2, 3], [1, 3, 3]).padding(1, 0))
                .unwrap()
                .y
                .0,
            [1, 1, 2, 1]
        );
    }

    #[test]
    fn values_and_tensors_beyond_an_int_are_refused() {
        let big = 1usize << 31;
        for c in [
            Conv2d::new([big, 1, 1, 1], [1, 1, 1]),
            Conv2d::new([1, 1, 1, 1], [big, 1, 1]),
            conv().padding(big, 0),
            conv().stride(1, big),
            // Each size fits, the input does not: 2^16 · 2^16 elements.
            Conv2d::new([1, 1, 1 << 16, 1 << 16], [1, 1, 1]),
            // The input fits, the output does not: 2^12 channels out of 2^20 pixels.
            Conv2d::new([1, 1, 1 << 10, 1 << 10], [1 << 12, 1, 1]),
            // Three sizes of 2^31 − 1: their product is beyond an i64 (checked, no wrap).
            Conv2d::new([2, (1 << 31) - 1, (1 << 31) - 1, (1 << 31) - 1], [1, 1, 1]),
            // The filter alone: 2^16 · 2^16 · 1 · 1.
            Conv2d::new([1, 1 << 16, 1, 1], [1 << 16, 1, 1]),
        ] {
            let e = params(&c).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::SizeOverflow, "{c:?}: {e}");
        }
        // Just below the limit: 2^31 − 1 is not a product of small sizes, so 2^30 elements.
        let p = params(&Conv2d::new([1, 1, 1 << 15, 1 << 15], [1, 1, 1])).unwrap();
        assert_eq!(p.x_len, 1 << 30);
    }

    #[test]
    fn every_buffer_must_hold_its_extent() {
        let p = params(&conv()).unwrap();
        let ok = |len| (0x1000, len);
        buffers(&p, ok(210), ok(108), ok(4), ok(120)).unwrap();
        // Longer buffers are fine: only the extent is reached.
        buffers(&p, ok(211), ok(200), ok(5), ok(999)).unwrap();
        let cases = [
            (
                buffers(&p, ok(209), ok(108), ok(4), ok(120)),
                "the input x holds 209 elements, the plan needs 210",
            ),
            (
                buffers(&p, ok(210), ok(107), ok(4), ok(120)),
                "the filter w holds 107 elements, the plan needs 108",
            ),
            (
                buffers(&p, ok(210), ok(108), ok(3), ok(120)),
                "the bias holds 3 elements, the plan needs 4",
            ),
            (
                buffers(&p, ok(210), ok(108), ok(4), ok(119)),
                "the output y holds 119 elements, the plan needs 120",
            ),
        ];
        for (result, says) in cases {
            let e = result.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(e.to_string().contains(says), "{e}");
            assert!(e.to_string().contains("nothing was enqueued"), "{e}");
        }
    }

    #[test]
    fn every_buffer_must_be_aligned_to_16_bytes() {
        let p = params(&conv()).unwrap();
        let ok = (0x1000, 1000);
        let off = (0x1004, 1000);
        let cases = [
            (buffers(&p, off, ok, ok, ok), "the input x"),
            (buffers(&p, ok, off, ok, ok), "the filter w"),
            (buffers(&p, ok, ok, off, ok), "the bias"),
            (buffers(&p, ok, ok, ok, off), "the output y"),
        ];
        for (result, names) in cases {
            let e = result.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue);
            assert!(
                e.to_string().contains(&format!("{names} starts at 0x1004")),
                "{e}"
            );
        }
        buffers(&p, (0x1010, 1000), ok, ok, ok).unwrap();
    }
}
