//! The kernels several programs declare, and the PTX declarations of the stand-in cubins
//! (`cubin::stand_in_cubin`) the restricted programs load: the fixtures' contracts
//! (`tests/fixtures/contracts.ptx`), the conditional nodes' kernels, example 22's and the
//! Jacobi graph's declarations (which `differential.rs` builds its cubins from too).

/// The contract kernels' PTX (`tests/fixtures/contracts.ptx`), which the contracts below
/// declare.
pub(crate) const CONTRACT_KERNELS: &str = include_str!("../../../tests/fixtures/contracts.ptx");

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    pub(crate) unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// The same kernel declared with a 64-bit `k`: the PTX says 32 bits.
    pub(crate) unsafe kernel AddU32Wide = "add_u32"(x: &mut [u32; n], k: u64, n: u32);
    /// `scale_u32(unsigned* x, unsigned rows, unsigned cols, unsigned k)`.
    pub(crate) unsafe kernel ScaleU32 = "scale_u32"(
        x: &mut [u32; rows * cols],
        rows: u32,
        cols: u32,
        k: u32,
    );
    /// The same kernel with a stricter extent, whose arithmetic can overflow.
    pub(crate) unsafe kernel ScaleU32Strict = "scale_u32"(
        x: &mut [u32; rows * cols * k],
        rows: u32,
        cols: u32,
        k: u32,
    );
    /// `fill_rows(unsigned* img, size_t pitch, unsigned width, unsigned height, unsigned v)`.
    pub(crate) unsafe kernel FillRows = "fill_rows"(
        img: &mut [u32; pitched(height, pitch)],
        pitch: u64,
        width: u32,
        height: u32,
        value: u32,
    );
    /// `iota(unsigned* x)`: one element per launched thread.
    pub(crate) unsafe kernel Iota = "iota"(x: &mut [u32; grid]);
    /// The same kernel declared with stricter clauses: dynamic shared memory and a largest block.
    pub(crate) unsafe kernel IotaClauses = "iota"(x: &mut [u32; grid])
        shared(block * 4) max_block(256, 1, 1);
    /// The same kernel declared cooperative (as a kernel with a grid-wide barrier would be):
    /// `run_cooperative` only.
    pub(crate) unsafe kernel IotaCooperative = "iota"(x: &mut [u32; grid])
        max_block(256, 1, 1) cooperative;
    /// `count_threads()`: adds 1 to the module's global `counters[0]` per thread.
    pub(crate) unsafe kernel CountThreads = "count_threads"();
    /// `row_offsets(unsigned* offsets, unsigned char n)`: `offsets[i] = i` for `i <= n`.
    pub(crate) unsafe kernel RowOffsets = "row_offsets"(offsets: &mut [u32; (n + 1)], n: u8);
    /// `cluster_ids(uint2* out)`: block `b` writes its rank in its cluster of 2 and its
    /// cluster's index to `out[b]`: written for clusters of 2 blocks.
    pub(crate) unsafe kernel ClusterIds = "cluster_ids"(out: &mut [[u32; 2]; blocks])
        cluster(2, 1, 1);
    /// `index_2d(unsigned* out, unsigned width)`: `out[y * width + x] = y * width + x` per
    /// launched thread, no bounds check.
    pub(crate) unsafe kernel Index2d = "index_2d"(out: &mut [u32; grid_y * width], width: u32)
        requires(width > 0, grid_x <= width, blocks_z == 1);
}

/// `set_condition(handle cond, const unsigned* value)`, the parameter list of the nvcc kernel
/// of `tests/fixtures/conditional.cu` (the double runs no kernel: only the list counts).
pub(crate) const CONDITIONAL_PTX: &str = "
.version 7.8
.target sm_90
.address_size 64
.visible .entry set_condition(
    .param .u64 set_condition_cond,
    .param .u64 set_condition_value
)
{
    ret;
}
";

custack::kernel_contract! {
    /// `set_condition(cudaGraphConditionalHandle cond, const unsigned* value)`.
    pub(crate) unsafe kernel SetCondition = "set_condition"(cond: conditional, value: &[u32; 1]);
    /// `count_down(cudaGraphConditionalHandle cond, unsigned* left)`: `left[0] -= 1`, the
    /// condition set to whether it is still above 0 (a WHILE body's count: it ends on a GPU).
    pub(crate) unsafe kernel CountDown = "count_down"(cond: conditional, left: &mut [u32; 1]);
}

/// The PTX declarations of every kernel of `tests/fixtures/conditional.cu` (the Jacobi graph's,
/// `set_condition` and `count_down`), which `differential::conditional_cubin`'s stand-in cubin
/// carries (the double runs none of them: only the parameter lists count).
pub(crate) const CONDITIONAL_DECLARATIONS: &str = ".version 7.8\n.target sm_90\n.address_size 64\n\
    .visible .entry jacobi_step(.param .u64 b, .param .u64 x, .param .u64 y, .param .u64 diff, \
    .param .u32 n) { ret; }\n\
    .visible .entry jacobi_check(.param .u64 cond, .param .u64 diff, .param .u64 iters, \
    .param .f32 tol, .param .u32 max_iters) { ret; }\n\
    .visible .entry set_condition(.param .u64 cond, .param .u64 value) { ret; }\n\
    .visible .entry count_down(.param .u64 cond, .param .u64 left) { ret; }\n";

/// The PTX declarations of `tests/fixtures/conditional.cu`'s Jacobi kernels, which the stand-in
/// cubin carries (the double runs no kernel here: only the parameter lists count).
pub(crate) const JACOBI_DECLARATIONS: &str = ".version 7.8\n.target sm_90\n.address_size 64\n\
    .visible .entry jacobi_step(.param .u64 b, .param .u64 x, .param .u64 y, .param .u64 diff, \
    .param .u32 n) { ret; }\n\
    .visible .entry jacobi_check(.param .u64 cond, .param .u64 diff, .param .u64 iters, \
    .param .f32 tol, .param .u32 max_iters) { ret; }\n";

/// The PTX declarations of example 22's kernels, which the stand-in cubin carries so that the
/// checking driver knows their parameters (`cubin::DECLARATIONS_SECTION`).
pub(crate) const FRAME_DECLARATIONS: &str = ".version 6.0\n.target sm_50\n.address_size 64\n\
    .visible .entry frame_blur(.param .u64 input, .param .u64 output, .param .u32 width, \
    .param .u32 height) { ret; }\n\
    .visible .entry frame_gain(.param .u64 data, .param .f32 gain, .param .u32 n) { ret; }\n";
