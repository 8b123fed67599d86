// Which driver calls change a context's device memory around a launch of a kernel that needs
// more local memory than the context reserved: run by run.sh on the GPU machine, printing the
// device's free memory after each step (cuMemGetInfo), to decide what the restricted profile's
// init phase must do so that no run-phase launch allocates.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" __global__ void local_heavy(float *out, int n) {
    volatile float buf[2048];  // 8 KiB of local memory per thread
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < 2048; i++) buf[(i * 7 + t) & 2047] = (float)(i + t);
    float s = 0;
    for (int i = 0; i < n; i++) s += buf[(i * 13 + t) & 2047];
    out[t] = s;
}

extern "C" __global__ void light(float *out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

#define CK(x)                                                                   \
    do {                                                                        \
        CUresult r_ = (x);                                                      \
        if (r_ != CUDA_SUCCESS) {                                               \
            const char *s_ = 0;                                                 \
            cuGetErrorName(r_, &s_);                                            \
            fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, s_);    \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

static size_t last;
static void mark(const char *what) {
    size_t free_b, total;
    CK(cuMemGetInfo(&free_b, &total));
    long long d = (long long)free_b - (long long)last;
    printf("  %-44s free %8.1f MiB  change %+10.1f MiB\n", what, free_b / 1048576.0,
           last ? d / 1048576.0 : 0.0);
    last = free_b;
}

int main(int argc, char **argv) {
    // argv[1]: cubin path; argv[2]: context flags; argv[3]: stack limit to set (0: none)
    const char *path = argv[1];
    unsigned flags = (unsigned)strtoul(argv[2], 0, 0);
    size_t stack = (size_t)strtoull(argv[3], 0, 0);
    int preset = argc > 4 ? atoi(argv[4]) : 0;  // 1: set the limit before loading the module
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *img = (char *)malloc(len);
    if (fread(img, 1, len, f) != (size_t)len) return 1;
    fclose(f);
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuCtxCreate(&ctx, 0, flags, dev));  // CUDA 13's cuCtxCreate takes create params
    int sms;
    CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    size_t lim;
    CK(cuCtxGetLimit(&lim, CU_LIMIT_STACK_SIZE));
    printf("flags %#x, stack limit at creation %zu, set %zu (%s), MODULE_LOADING=%s\n", flags, lim,
           stack, preset ? "before load" : "after lookup",
           getenv("CUDA_MODULE_LOADING") ? getenv("CUDA_MODULE_LOADING") : "(unset)");
    mark("context created");
    if (stack && preset) {
        CK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, stack));
        CK(cuCtxSynchronize());
        mark("stack limit set");
    }
    CUmodule mod;
    CK(cuModuleLoadData(&mod, img));
    mark("module loaded");
    CUfunction heavy, lightf;
    CK(cuModuleGetFunction(&heavy, mod, "local_heavy"));
    CK(cuModuleGetFunction(&lightf, mod, "light"));
    int lsz;
    CK(cuFuncGetAttribute(&lsz, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, heavy));
    mark("functions looked up");
    printf("  local_heavy: %d bytes of local memory per thread\n", lsz);
    if (stack && !preset) {
        CK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, stack));
        CK(cuCtxSynchronize());
        mark("stack limit set");
    }
    CK(cuCtxGetLimit(&lim, CU_LIMIT_STACK_SIZE));
    printf("  stack limit now %zu\n", lim);
    CUdeviceptr out;
    int threads = 256, blocks = sms * 8;
    CK(cuMemAlloc(&out, (size_t)threads * blocks * sizeof(float)));
    mark("output allocated");
    int n = 64;
    void *light_args[] = {&out};
    CK(cuLaunchKernel(lightf, blocks, 1, 1, threads, 1, 1, 0, 0, light_args, 0));
    CK(cuCtxSynchronize());
    mark("light launched");
    void *args[] = {&out, &n};
    for (int i = 1; i <= 3; i++) {
        CK(cuLaunchKernel(heavy, blocks, 1, 1, threads, 1, 1, 0, 0, args, 0));
        CK(cuCtxSynchronize());
        char what[64];
        snprintf(what, sizeof what, "local_heavy launch %d", i);
        mark(what);
    }
    CK(cuLaunchKernel(lightf, blocks, 1, 1, threads, 1, 1, 0, 0, light_args, 0));
    CK(cuCtxSynchronize());
    mark("light launched again");
    CK(cuCtxGetLimit(&lim, CU_LIMIT_STACK_SIZE));
    printf("  stack limit at the end %zu\n", lim);
    CK(cuMemFree(out));
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    return 0;
}
