// Tiled matrix multiply: C = A * B for row-major n x n float matrices, TILE x TILE blocks,
// each block staging a tile of A and of B in shared memory per step.
// Compiled to matmul.ptx on the GPU machine (nvcc 13.0) with
//   nvcc -ptx -arch=compute_75 -o matmul.ptx matmul.cu
// and its `.version 9.0` line lowered to `.version 7.0` (the code uses nothing newer), so drivers
// from 535 (CUDA 12.2) on can JIT it.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, unsigned n) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    unsigned row = blockIdx.y * TILE + threadIdx.y;
    unsigned col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (unsigned t = 0; t < (n + TILE - 1) / TILE; ++t) {
        unsigned ac = t * TILE + threadIdx.x;
        unsigned br = t * TILE + threadIdx.y;
        ta[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? a[row * n + ac] : 0.0f;
        tb[threadIdx.y][threadIdx.x] = (br < n && col < n) ? b[br * n + col] : 0.0f;
        __syncthreads();
        for (unsigned k = 0; k < TILE; ++k) {
            sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        c[row * n + col] = sum;
    }
}
