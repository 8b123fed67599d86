// The two kernels of the camera-frame loop (the safety profile's frame example and its C twin,
// benches/safety_frame.c): a 3-tap horizontal box blur, then a gain, over one width x height
// frame of floats. Plain CUDA C with no device runtime (no dynamic parallelism, no device-side
// malloc or printf), so the cubin links against nothing and the safety profile can load it.
// Compiled to a cubin for the device's own architecture on the GPU machine (never PTX: the
// safety profile loads no PTX and runs no JIT) by the runner that scripts/gpu-bundle.sh writes:
//   nvcc -cubin -arch=sm_<CC> -o .gpu/frame.cubin examples/kernels/frame.cu
// where CC is the device's compute capability (9.0 -> 90).
//
// With custack's comparison kernel, custack_replicas_compare: the redundant frame
// (examples/25_safety_redundant.rs, benches/redundant.rs) compares its two replicas' outputs on
// the device, by that kernel, which the restricted profile looks up in this cubin (it loads no
// PTX and compiles nothing at run time).
#include "../../src/safety/replicas_compare.cu"

// out[y*w + x] = mean of in[y*w + x-1 .. x+1], the edges clamped to the row: one thread per
// pixel, 1-D blocks over the width*height pixels.
extern "C" __global__ void frame_blur(const float* in, float* out, unsigned width,
                                      unsigned height) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width * height) {
        unsigned y = i / width;
        unsigned x = i - y * width;
        unsigned left = x > 0 ? x - 1 : 0;                 // max(x - 1, 0)
        unsigned right = x + 1 < width ? x + 1 : width - 1; // min(x + 1, width - 1)
        const float* row = in + y * width;
        out[i] = (row[left] + row[x] + row[right]) / 3.0f;
    }
}

// data[i] *= gain for i < n: one thread per element.
extern "C" __global__ void frame_gain(float* data, float gain, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] *= gain;
    }
}
