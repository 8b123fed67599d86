//! A plan's description in plain values: the sizes, the batch, where the data lies
//! ([`Layout`]) and whether the transform is in place ([`Fft`]).

/// How the elements of one side of a transform lie in memory, as cuFFT's advanced data layout
/// describes them (`inembed`/`istride`/`idist`, `onembed`/`ostride`/`odist`): element
/// `(x₀, …, x_{r−1})` of batch `b` is at index
/// `b·dist + stride·(((x₀·embed₁ + x₁)·embed₂ + x₂)…)`.
///
/// `embed` has one entry per dimension: the storage size of each, at least the transform's size
/// there (`n/2 + 1` in the last dimension of a complex side of a real transform). cuFFT does not
/// use `embed[0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub(crate) embed: [usize; 3],
    pub(crate) rank: usize,
    pub(crate) stride: usize,
    pub(crate) dist: usize,
}

impl Layout {
    /// The storage sizes of each dimension, the distance between two consecutive elements of
    /// the last dimension and the distance between two batches, all in elements of the side's
    /// type. More than three sizes are refused when the plan is made.
    pub fn new(embed: &[usize], stride: usize, dist: usize) -> Self {
        let mut e = [0; 3];
        for (to, &from) in e.iter_mut().zip(embed) {
            *to = from;
        }
        Self {
            embed: e,
            rank: embed.len(),
            stride,
            dist,
        }
    }
}

/// A transform to plan: its sizes (1 to 3 dimensions, the last varying fastest), a batch of
/// that many transforms, and its data layouts; out of place unless [`in_place`](Self::in_place).
///
/// Without layouts, each side is contiguous: every batch one after the other, each dimension
/// its transform size. In place, a real side is padded to `2·(n/2 + 1)` in its last dimension,
/// so that the complex side fits the same memory (cuFFT's in-place layout).
///
/// ```
/// use custack::fft::{Fft, Layout};
/// // 64 transforms of 1024 points; their i-th points lie together (interleaved batches).
/// let shape = Fft::new(&[1024])
///     .batch(64)
///     .input_layout(Layout::new(&[1024], 64, 1))
///     .output_layout(Layout::new(&[1024], 64, 1));
/// # let _ = shape;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fft {
    pub(crate) dims: [usize; 3],
    pub(crate) rank: usize,
    pub(crate) batch: usize,
    pub(crate) input: Option<Layout>,
    pub(crate) output: Option<Layout>,
    pub(crate) in_place: bool,
}

impl Fft {
    /// A transform of these sizes (one per dimension; more than three are refused when the plan
    /// is made), a batch of one, contiguous, out of place.
    pub fn new(dims: &[usize]) -> Self {
        let mut d = [0; 3];
        for (to, &from) in d.iter_mut().zip(dims) {
            *to = from;
        }
        Self {
            dims: d,
            rank: dims.len(),
            batch: 1,
            input: None,
            output: None,
            in_place: false,
        }
    }

    /// `batch` transforms of these sizes.
    #[must_use]
    pub fn batch(mut self, batch: usize) -> Self {
        self.batch = batch;
        self
    }

    /// The input's layout (out of place only).
    #[must_use]
    pub fn input_layout(mut self, layout: Layout) -> Self {
        self.input = Some(layout);
        self
    }

    /// The output's layout (out of place only).
    #[must_use]
    pub fn output_layout(mut self, layout: Layout) -> Self {
        self.output = Some(layout);
        self
    }

    /// In place: the output overwrites the input, in one exclusive binding, in cuFFT's
    /// in-place layout (no custom layouts).
    #[must_use]
    pub fn in_place(mut self) -> Self {
        self.in_place = true;
        self
    }
}
