// The kernel of NVIDIA's clock_nvrtc sample, shape kept: each block copies 2 * blockDim.x
// inputs into shared memory, reduces them to their minimum, and records when it started and
// ended with clock64(). examples/18_nvrtc_clock.rs compiles this with NVRTC at run time and
// declares it with a contract; tests/nvrtc.rs checks that contract against NVRTC's PTX.
extern "C" __global__ void timedReduction(const float *input, float *output,
                                          long long *timer) {
    extern __shared__ float shared[];
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;

    if (tid == 0) timer[bid] = clock64();

    // Copy input (2 * blockDim.x elements, the same for every block).
    shared[tid] = input[tid];
    shared[tid + blockDim.x] = input[tid + blockDim.x];

    // Reduce to the minimum.
    for (int d = blockDim.x; d > 0; d /= 2) {
        __syncthreads();
        if (tid < d) {
            float f0 = shared[tid];
            float f1 = shared[tid + d];
            if (f1 < f0) shared[tid] = f1;
        }
    }

    if (tid == 0) output[bid] = shared[0];

    __syncthreads();

    if (tid == 0) timer[bid + gridDim.x] = clock64();
}
