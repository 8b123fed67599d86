// A sum over n unsigned integers in one cooperative launch: every block reduces a grid-strided
// share into partial[blockIdx.x], the whole grid synchronizes (cooperative groups' grid.sync(),
// which needs every block resident: a cooperative launch), then block 0 adds the partials.
// Compiled to reduce.ptx on the GPU machine (nvcc 13.0) with
//   nvcc -ptx -arch=compute_75 -o reduce.ptx reduce.cu
// and its `.version 9.0` line lowered to `.version 7.0`, as for matmul.ptx.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_grid(const unsigned* x, unsigned n, unsigned long long* partial,
                                       unsigned long long* total) {
    extern __shared__ unsigned long long shared[];
    cg::grid_group grid = cg::this_grid();
    unsigned long long sum = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        sum += x[i];
    }
    shared[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = shared[0];
    grid.sync();
    if (blockIdx.x == 0) {
        unsigned long long t = 0;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) t += partial[b];
        shared[threadIdx.x] = t;
        __syncthreads();
        for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
            if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
            __syncthreads();
        }
        if (threadIdx.x == 0) *total = shared[0];
    }
}
