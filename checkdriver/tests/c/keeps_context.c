/*
 * A C program that uses the CUDA driver the way a crate that binds its context to the thread
 * does: it retains the device's primary context, makes it current with cuCtxSetCurrent and
 * leaves it current when it exits. Declarations of its own, no cuda.h: it links against any
 * libcuda (custack's checking driver in checkdriver/tests/runner.rs).
 *
 *   keeps_context good     frees what it allocated on every path
 *   keeps_context leaky    loses the allocation when the event cannot be created
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr ptr);
CUresult cuEventCreate(CUevent *event, unsigned int flags);
CUresult cuEventDestroy_v2(CUevent event);

#define CHECK(call)                                                                        \
    do {                                                                                   \
        CUresult r_ = (call);                                                              \
        if (r_ != 0) {                                                                     \
            fprintf(stderr, "%s failed with %d\n", #call, r_);                             \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv) {
    int leaky = argc > 1 && strcmp(argv[1], "leaky") == 0;
    CUdevice device;
    CUcontext ctx;
    CUdeviceptr buffer;
    CUevent event;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
    CHECK(cuCtxSetCurrent(ctx)); /* current from now on, on purpose */
    CHECK(cuMemAlloc_v2(&buffer, 1 << 20));
    CUresult r = cuEventCreate(&event, 0);
    if (r != 0) {
        fprintf(stderr, "cuEventCreate failed with %d\n", r);
        if (!leaky) {
            cuMemFree_v2(buffer);
        } /* leaky: the allocation is lost */
        return 1;
    }
    CHECK(cuEventDestroy_v2(event));
    CHECK(cuMemFree_v2(buffer));
    return 0;
}
