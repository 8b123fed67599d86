//! The description of a convolution, [`Conv2d`], and the order of its tensors in memory,
//! [`Layout`].

/// The order of the dimensions of the input, the output and the filter in memory, packed (no
/// gaps), the last varying fastest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Input `N, C, H, W`, output `N, K, P, Q`, filter `K, C, R, S` (`CUDNN_TENSOR_NCHW`).
    #[default]
    Nchw,
    /// Input `N, H, W, C`, output `N, P, Q, K`, filter `K, R, S, C` (`CUDNN_TENSOR_NHWC`): the
    /// layout tensor cores prefer.
    Nhwc,
}

/// A 2-d convolution forward of `f32` tensors, with a bias per output channel and a ReLU:
/// `y = max(0, conv(x, w) + bias)`, cross-correlation (the filter not flipped, as deep-learning
/// frameworks define a convolution).
///
/// The input is `N` images of `C` channels of `H × W`; the filter `K` output channels of `C`
/// input channels of `R × S`; the output `N × K × P × Q`, with
/// `P = (H + 2·pad_h − ((R − 1)·dil_h + 1)) / stride_h + 1` and `Q` likewise, which
/// [`ConvPlan::output_dims`] reports.
///
/// [`ConvPlan::output_dims`]: crate::dnn::ConvPlan::output_dims
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conv2d {
    pub(crate) input: [usize; 4],
    pub(crate) filter: [usize; 3],
    pub(crate) padding: [usize; 2],
    pub(crate) stride: [usize; 2],
    pub(crate) dilation: [usize; 2],
    pub(crate) layout: Layout,
    pub(crate) tensor_cores: bool,
}

impl Conv2d {
    /// A convolution of an input `[n, c, h, w]` (sizes, whatever the [`Layout`]) with `k`
    /// filters of `r × s` (`filter = [k, r, s]`; their `c` is the input's): no padding, stride
    /// 1, no dilation, [`Layout::Nchw`], full `f32` precision.
    pub fn new(input: [usize; 4], filter: [usize; 3]) -> Self {
        Self {
            input,
            filter,
            padding: [0, 0],
            stride: [1, 1],
            dilation: [1, 1],
            layout: Layout::Nchw,
            tensor_cores: false,
        }
    }

    /// Zero padding on each side of the height and the width.
    #[must_use]
    pub fn padding(mut self, h: usize, w: usize) -> Self {
        self.padding = [h, w];
        self
    }

    /// The filter's step along the height and the width (at least 1).
    #[must_use]
    pub fn stride(mut self, h: usize, w: usize) -> Self {
        self.stride = [h, w];
        self
    }

    /// The distance between the filter's taps along the height and the width (at least 1).
    #[must_use]
    pub fn dilation(mut self, h: usize, w: usize) -> Self {
        self.dilation = [h, w];
        self
    }

    /// The order of the tensors' dimensions in memory.
    #[must_use]
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// Whether cuDNN may use tensor cores (`CUDNN_DEFAULT_MATH`: TF32 for `f32` on Ampere and
    /// newer, about 3 decimal digits), or only FMA instructions at full `f32` precision
    /// (`CUDNN_FMA_MATH`, the default).
    #[must_use]
    pub fn tensor_cores(mut self, allowed: bool) -> Self {
        self.tensor_cores = allowed;
        self
    }
}
