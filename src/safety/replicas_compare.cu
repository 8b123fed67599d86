// custack's comparison of two replicas on the device: the kernel that
// `InitPhase::redundant` looks up when a redundant kernel's output is compared on the device
// (`CompareOn::Device`; by default for outputs of `CompareOn::DEVICE_FROM_BYTES` bytes or more).
// Its contract is `custack::safety::ReplicasCompare`; this file is also
// `ReplicasCompare::SOURCE`, for a build script that writes it out.
//
// The restricted profile loads cubins only (no PTX, no JIT at run time), so custack ships this
// as CUDA C source and the program builds it into its own cubin, ahead of time, beside its
// kernels: `#include` it into the .cu file that holds the kernel run redundantly (or compile it
// on its own into a second cubin and give that module to `redundant`), e.g.
//   nvcc -cubin -arch=sm_90 -o kernels.cubin kernels.cu   // kernels.cu: #include "replicas_compare.cu"
// Plain CUDA C: no device runtime, no malloc, no printf.
//
// custack_replicas_compare(first, second, len, size, verdict): compares the `len` elements of
// `size` bytes each at `first` and at `second`, bit for bit, and adds to `verdict` what it
// found: verdict[0] += the number of elements found EQUAL; verdict[1] = max(verdict[1], ~i)
// over every differing element i, so that ~verdict[1] is the first differing element when it
// is not 0. custack zeroes `verdict` (16 bytes) before each launch and passes the frame only
// when verdict[0] == len and verdict[1] == 0: a kernel that did not run, or compared only part
// of the elements (a stub, one built from an older copy of this file, which counted the
// differing ones), fails the frame instead of passing it. A grid-stride loop:
// any grid size covers every element; a block must be a whole number of warps (the contract's
// `requires(block % 32 == 0)`), since each warp sums its threads' findings with shuffles.
// Both buffers must be aligned to the element's widest power-of-two divisor of `size`, up to
// 8 bytes (device allocations are aligned to 256 bytes).
#ifndef CUSTACK_REPLICAS_COMPARE_CU
#define CUSTACK_REPLICAS_COMPARE_CU

template <typename W>
__device__ __forceinline__ bool custack_element_differs(const unsigned char *a,
                                                        const unsigned char *b,
                                                        unsigned long long words) {
    const W *x = reinterpret_cast<const W *>(a);
    const W *y = reinterpret_cast<const W *>(b);
    bool differs = false;
    for (unsigned long long w = 0; w < words; ++w) {
        differs |= x[w] != y[w];
    }
    return differs;
}

extern "C" __global__ void custack_replicas_compare(const unsigned char *first,
                                                    const unsigned char *second,
                                                    unsigned long long len,
                                                    unsigned long long size,
                                                    unsigned long long *verdict) {
    unsigned long long same = 0;
    unsigned long long first_at = ~0ull;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < len; i += stride) {
        const unsigned char *a = first + i * size;
        const unsigned char *b = second + i * size;
        bool differs;
        if (size % 8 == 0) {
            differs = custack_element_differs<unsigned long long>(a, b, size / 8);
        } else if (size % 4 == 0) {
            differs = custack_element_differs<unsigned int>(a, b, size / 4);
        } else if (size % 2 == 0) {
            differs = custack_element_differs<unsigned short>(a, b, size / 2);
        } else {
            differs = custack_element_differs<unsigned char>(a, b, size);
        }
        if (differs) {
            if (first_at == ~0ull) first_at = i;  // the loop visits this thread's i in order
        } else {
            same += 1;
        }
    }
    // The warp's findings, then at most one atomic of each kind per warp.
    for (int offset = 16; offset > 0; offset /= 2) {
        same += __shfl_down_sync(0xffffffffu, same, offset);
        unsigned long long other = __shfl_down_sync(0xffffffffu, first_at, offset);
        first_at = other < first_at ? other : first_at;
    }
    if ((threadIdx.x & 31u) == 0) {
        if (same != 0) atomicAdd(&verdict[0], same);
        if (first_at != ~0ull) atomicMax(&verdict[1], ~first_at);
    }
}

#endif  // CUSTACK_REPLICAS_COMPARE_CU
