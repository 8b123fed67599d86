/*
 * What the driver does to the work of a process after a sticky fault (contract row
 * R20): the facts docs/reliability.md states and custack's fault semantics rest on. Plain C
 * against the driver API, built and run on the GPU machine by scripts/fault-facts/run.sh:
 *
 *   fault_facts SCENARIO SPIN_PTX KERNELS_PTX
 *
 * SCENARIO is `other-context` (the fault is in context A, the work in context B) or
 * `same-context` (the fault is on a second stream of context B itself). The work, on a stream
 * of context B: `spin` for 1.5 s then writes 1 into a device word; an asynchronous download of
 * that word into page-locked memory; a `cuStreamWriteValue32` of 7 into page-locked, mapped
 * memory; a host function that notes the time it ran. 200 ms in, another thread launches
 * `trap_kernel` (sticky: CUDA_ERROR_LAUNCH_FAILED) in context A or on B's second stream. The
 * main thread meanwhile polls, every millisecond for 4 s: cuStreamQuery on B's busy stream, on an
 * idle stream of B and on an idle stream of a third context C (when each first reports an
 * error), and the page-locked words (when the download and the stream write land). Then it
 * tries cuMemFree, cuMemFreeHost, a new enqueue and cuStreamSynchronize. Every line printed is
 * `fact NAME VALUE` (times in ms from the start of the work; -1: never within 4 s).
 */
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Both drivers export cuCtxCreate_v2; CUDA 13's cuda.h maps cuCtxCreate to _v4. */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);

static double t0;
static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 - t0;
}

static void check(CUresult r, const char *what) {
    if (r != CUDA_SUCCESS) {
        const char *name = "?";
        cuGetErrorName(r, &name);
        fprintf(stderr, "fault_facts: %s: %s (%d)\n", what, name, (int)r);
        exit(2);
    }
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(2); }
    s[n] = 0;
    fclose(f);
    return s;
}

static const char *name_of(CUresult r) {
    const char *name = "?";
    cuGetErrorName(r, &name);
    return name;
}

static _Atomic double host_fn_ran = -1;
static void CUDA_CB host_fn(void *arg) {
    (void)arg;
    atomic_store(&host_fn_ran, now_ms());
}

/* The faulting kernel and stream, loaded and made before the work starts (a module load in
 * a busy context waits for its work). */
struct faulter {
    CUcontext ctx;
    CUfunction trap;
    CUstream stream;
    double launched, returned;
    CUresult sync;
};

static void *fault(void *p) {
    struct faulter *f = p;
    usleep(200 * 1000);
    check(cuCtxPushCurrent(f->ctx), "push the faulting context");
    f->launched = now_ms();
    check(cuLaunchKernel(f->trap, 1, 1, 1, 1, 1, 1, 0, f->stream, NULL, NULL), "launch trap_kernel");
    f->sync = cuStreamSynchronize(f->stream);
    f->returned = now_ms();
    return NULL;
}

/* Loads trap_kernel and makes a stream in `ctx`, which is left current. */
static void prepare(struct faulter *f, CUcontext ctx, const char *kernels) {
    CUmodule m;
    f->ctx = ctx;
    check(cuCtxSetCurrent(ctx), "the faulting context current");
    check(cuModuleLoadData(&m, kernels), "load kernels.ptx");
    check(cuModuleGetFunction(&f->trap, m, "trap_kernel"), "trap_kernel");
    check(cuStreamCreate(&f->stream, CU_STREAM_NON_BLOCKING), "the faulting stream");
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: fault_facts other-context|same-context SPIN_PTX KERNELS_PTX\n");
        return 2;
    }
    int same = strcmp(argv[1], "same-context") == 0;
    char *spin_ptx = slurp(argv[2]), *kernels_ptx = slurp(argv[3]);
    CUdevice dev;
    CUcontext a, b, c;
    check(cuInit(0), "cuInit");
    check(cuDeviceGet(&dev, 0), "device 0");
    check(cuCtxCreate_v2(&a, 0, dev), "context A");
    check(cuCtxCreate_v2(&c, 0, dev), "context C");
    check(cuCtxCreate_v2(&b, 0, dev), "context B");
    CUstream idle_c;
    check(cuCtxSetCurrent(c), "C current");
    check(cuStreamCreate(&idle_c, CU_STREAM_NON_BLOCKING), "C's idle stream");
    struct faulter f = {0};
    prepare(&f, same ? b : a, kernels_ptx);
    f.launched = f.returned = -1;
    check(cuCtxSetCurrent(b), "B current");
    int khz;
    check(cuDeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev), "clock rate");
    CUmodule m;
    CUfunction spin;
    check(cuModuleLoadData(&m, spin_ptx), "load spin.ptx");
    check(cuModuleGetFunction(&spin, m, "spin"), "spin");
    CUstream busy, idle_b;
    check(cuStreamCreate(&busy, CU_STREAM_NON_BLOCKING), "B's busy stream");
    check(cuStreamCreate(&idle_b, CU_STREAM_NON_BLOCKING), "B's idle stream");
    CUdeviceptr word, spare_dev;
    check(cuMemAlloc(&word, 4), "word");
    check(cuMemAlloc(&spare_dev, 1 << 20), "spare device memory");
    check(cuMemsetD32(word, 0, 1), "zero the word");
    volatile uint32_t *download, *marker;
    void *spare_host;
    check(cuMemHostAlloc((void **)&download, 4, 0), "page-locked download");
    check(cuMemHostAlloc((void **)&marker, 4, CU_MEMHOSTALLOC_DEVICEMAP), "mapped marker");
    check(cuMemHostAlloc(&spare_host, 1 << 20, 0), "spare page-locked memory");
    *download = 0;
    *marker = 0;
    CUdeviceptr marker_dev;
    check(cuMemHostGetDevicePointer(&marker_dev, (void *)marker, 0), "marker's device address");
    check(cuCtxSynchronize(), "setup");

    unsigned long long cycles = (unsigned long long)khz * 1500ULL;
    void *args[] = {&cycles, &word};
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
    check(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, busy, args, NULL), "launch spin");
    check(cuMemcpyDtoHAsync((void *)download, word, 4, busy), "download");
    check(cuStreamWriteValue32(busy, marker_dev, 7, 0), "stream write");
    check(cuLaunchHostFunc(busy, host_fn, NULL), "host function");

    pthread_t th;
    pthread_create(&th, NULL, fault, &f);

    double busy_err = -1, idle_b_err = -1, idle_c_err = -1, landed = -1, marked = -1;
    CUresult busy_code = CUDA_SUCCESS, idle_b_code = CUDA_SUCCESS, idle_c_code = CUDA_SUCCESS;
    double landed_after_busy_err = -1;
    while (now_ms() < 4000) {
        double t = now_ms();
        CUresult r = cuStreamQuery(busy);
        if (busy_err < 0 && r != CUDA_ERROR_NOT_READY && r != CUDA_SUCCESS) { busy_err = t; busy_code = r; }
        r = cuStreamQuery(idle_b);
        if (idle_b_err < 0 && r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) { idle_b_err = t; idle_b_code = r; }
        check(cuCtxSetCurrent(c), "C current");
        r = cuStreamQuery(idle_c);
        if (idle_c_err < 0 && r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) { idle_c_err = t; idle_c_code = r; }
        check(cuCtxSetCurrent(b), "B current");
        if (landed < 0 && *download == 1) {
            landed = t;
            if (busy_err >= 0) landed_after_busy_err = t - busy_err;
        }
        if (marked < 0 && *marker == 7) marked = t;
        usleep(1000);
    }
    pthread_join(th, NULL);
    printf("fact scenario %s\n", argv[1]);
    printf("fact fault_launched_ms %.1f\n", f.launched);
    printf("fact fault_sync_returned_ms %.1f %s\n", f.returned, name_of(f.sync));
    printf("fact busy_stream_first_error_ms %.1f %s\n", busy_err, name_of(busy_code));
    printf("fact idle_stream_same_context_first_error_ms %.1f %s\n", idle_b_err, name_of(idle_b_code));
    printf("fact idle_stream_third_context_first_error_ms %.1f %s\n", idle_c_err, name_of(idle_c_code));
    printf("fact download_landed_ms %.1f\n", landed);
    printf("fact download_landed_after_busy_stream_error_ms %.1f\n", landed_after_busy_err);
    printf("fact stream_write_value_landed_ms %.1f\n", marked);
    printf("fact host_function_ran_ms %.1f\n", atomic_load(&host_fn_ran));
    printf("fact download_value %u\n", *download);
    CUresult r = cuStreamWriteValue32(busy, marker_dev, 9, 0);
    printf("fact enqueue_after_fault %s\n", name_of(r));
    r = cuStreamSynchronize(busy);
    printf("fact stream_synchronize_after_fault %s\n", name_of(r));
    r = cuMemFree(spare_dev);
    printf("fact cuMemFree_after_fault %s\n", name_of(r));
    r = cuMemFreeHost(spare_host);
    printf("fact cuMemFreeHost_after_fault %s\n", name_of(r));
    r = cuMemFreeHost((void *)download);
    printf("fact cuMemFreeHost_of_download_after_fault %s\n", name_of(r));
    r = cuCtxDestroy(b);
    printf("fact cuCtxDestroy_after_fault %s\n", name_of(r));
    printf("fact done_ms %.1f\n", now_ms());
    return 0;
}
