/* The camera-frame loop of custack's safety-profile example, written in C against the raw
 * driver API: the reference that scripts/frame-bench.sh times against the Rust loop, in one run
 * on the GPU machine.
 *
 *   safety_frame CUBIN FRAMES REPS
 *
 * Init: the primary context of device 0, the cubin (nvcc -cubin, examples/kernels/frame.cu)
 * loaded with cuModuleLoadData (no JIT options), one stream, two device buffers and two
 * page-locked host buffers (cuMemHostAlloc) of 640 x 480 floats, and a graph captured on the
 * stream that runs frame_blur(d_in -> d_mid). Each frame: upload h_in, launch the graph,
 * launch frame_gain(d_mid, 0.5) directly, download d_mid into h_out, synchronize. After 20 warm-up frames, REPS
 * repetitions of FRAMES frames are timed with CLOCK_MONOTONIC; then h_out is checked against a
 * CPU reference (blur, then x 0.5). Output, one line per repetition and a final line:
 *
 *   rep <k> ns_per_frame=<n>
 *   frame c ns_per_frame=<median> min=<n> max=<n> reps=<REPS> frames=<FRAMES> device_bytes_delta=<n>
 *
 * ns_per_frame of a repetition is its elapsed nanoseconds divided by FRAMES (integer
 * division); the median is the sorted values' element REPS / 2 (the middle one for odd REPS);
 * device_bytes_delta is cuMemGetInfo's free bytes before the warm-up minus after the last
 * repetition. Every CUresult is checked: a failure prints the call and cuGetErrorName's name
 * and exits 1, as does a wrong result. C99, <cuda.h> and libc only; the primary context (not
 * cuCtxCreate, whose signature CUDA 13's cuda.h changed) keeps it compiling against the CUDA 12
 * and 13 headers alike. Built on the GPU machine by the runner of scripts/gpu-bundle.sh:
 *
 *   cc -O2 -std=c99 benches/safety_frame.c -I<cuda include> -lcuda -o .gpu/bin/c-safety_frame
 */
#define _POSIX_C_SOURCE 200112L

#include <cuda.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WIDTH 640u
#define HEIGHT 480u
#define BLOCK 256u
#define WARMUP 20u
#define GAIN 0.5f

/* Prints the failed call and the driver's name for its error, and exits 1. */
static void fail(const char *call, CUresult r) {
    const char *name = NULL;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || name == NULL) {
        name = "an unknown error";
    }
    fprintf(stderr, "safety_frame: %s failed: %s (%d)\n", call, name, (int)r);
    exit(1);
}

#define CHECK(call)                                                                           \
    do {                                                                                      \
        CUresult check_r_ = (call);                                                           \
        if (check_r_ != CUDA_SUCCESS) {                                                       \
            fail(#call, check_r_);                                                            \
        }                                                                                     \
    } while (0)

/* A positive integer argument, or exit 2 with a message. */
static unsigned arg_count(const char *text, const char *what) {
    char *end = NULL;
    unsigned long v;
    errno = 0;
    v = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v == 0 || v > 100000000ul) {
        fprintf(stderr, "safety_frame: %s must be a positive count, not '%s'\n", what, text);
        exit(2);
    }
    return (unsigned)v;
}

/* The whole file at `path`, its length in *len; exit 1 if it cannot be read. */
static void *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    long size;
    void *bytes;
    if (f == NULL) {
        fprintf(stderr, "safety_frame: cannot open %s\n", path);
        exit(1);
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "safety_frame: cannot size %s (empty?)\n", path);
        exit(1);
    }
    bytes = malloc((size_t)size);
    if (bytes == NULL || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "safety_frame: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    *len = (size_t)size;
    return bytes;
}

static long long now_ns(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) {
        fprintf(stderr, "safety_frame: clock_gettime failed\n");
        exit(1);
    }
    return (long long)t.tv_sec * 1000000000ll + (long long)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static float magnitude(float x) { return x < 0.0f ? -x : x; }

int main(int argc, char **argv) {
    const unsigned width = WIDTH, height = HEIGHT, n = WIDTH * HEIGHT;
    const size_t bytes = (size_t)n * sizeof(float);
    const unsigned blocks = (n + BLOCK - 1) / BLOCK;
    unsigned frames, reps, i, k;
    float gain = GAIN;
    size_t image_len = 0, free_before = 0, free_after = 0, total = 0;
    void *image;
    long long *per_frame;
    CUdevice dev;
    CUcontext ctx = NULL, popped = NULL;
    CUmodule module = NULL;
    CUfunction blur = NULL, gain_fn = NULL;
    CUstream stream = NULL;
    CUdeviceptr d_in = 0, d_mid = 0;
    float *h_in = NULL, *h_out = NULL;
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;

    if (argc != 4) {
        fprintf(stderr, "usage: safety_frame CUBIN FRAMES REPS\n");
        return 2;
    }
    frames = arg_count(argv[2], "FRAMES");
    reps = arg_count(argv[3], "REPS");
    image = read_file(argv[1], &image_len);
    per_frame = malloc(reps * sizeof *per_frame);
    if (per_frame == NULL) {
        fprintf(stderr, "safety_frame: out of host memory\n");
        return 1;
    }

    /* Init: context, module, stream, memory, graph. */
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxPushCurrent(ctx));
    CHECK(cuModuleLoadData(&module, image));
    free(image);
    CHECK(cuModuleGetFunction(&blur, module, "frame_blur"));
    CHECK(cuModuleGetFunction(&gain_fn, module, "frame_gain"));
    CHECK(cuStreamCreate(&stream, 0));
    CHECK(cuMemAlloc(&d_in, bytes));
    CHECK(cuMemAlloc(&d_mid, bytes));
    /* cuMemAllocHost's equivalent (flags 0), and the call custack's pinned memory makes. */
    CHECK(cuMemHostAlloc((void **)&h_in, bytes, 0));
    CHECK(cuMemHostAlloc((void **)&h_out, bytes, 0));
    for (i = 0; i < n; ++i) {
        h_in[i] = (float)((i * 7919u) % 1024u) / 1024.0f;
        h_out[i] = 0.0f;
    }
    {
        void *blur_args[4];
        blur_args[0] = &d_in;
        blur_args[1] = &d_mid;
        blur_args[2] = (void *)&width;
        blur_args[3] = (void *)&height;
        CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
        CHECK(cuLaunchKernel(blur, blocks, 1, 1, BLOCK, 1, 1, 0, stream, blur_args, NULL));
        CHECK(cuStreamEndCapture(stream, &graph));
        CHECK(cuGraphInstantiateWithFlags(&exec, graph, 0));
    }

    /* Run: WARMUP frames, then `reps` timed repetitions of `frames` frames. */
    CHECK(cuMemGetInfo(&free_before, &total));
    {
        void *gain_args[3];
        unsigned count = n;
        gain_args[0] = &d_mid;
        gain_args[1] = &gain;
        gain_args[2] = &count;
        for (k = 0; k <= reps; ++k) {
            unsigned todo = k == 0 ? WARMUP : frames, f;
            long long start = now_ns();
            for (f = 0; f < todo; ++f) {
                CHECK(cuMemcpyHtoDAsync(d_in, h_in, bytes, stream));
                CHECK(cuGraphLaunch(exec, stream));
                CHECK(cuLaunchKernel(gain_fn, blocks, 1, 1, BLOCK, 1, 1, 0, stream, gain_args,
                                     NULL));
                CHECK(cuMemcpyDtoHAsync(h_out, d_mid, bytes, stream));
                CHECK(cuStreamSynchronize(stream));
            }
            if (k > 0) {
                per_frame[k - 1] = (now_ns() - start) / (long long)frames;
                printf("rep %u ns_per_frame=%lld\n", k, per_frame[k - 1]);
            }
        }
    }
    CHECK(cuMemGetInfo(&free_after, &total));

    /* The last frame's result against the CPU: the same float operations in the same order. */
    for (i = 0; i < n; ++i) {
        unsigned y = i / width, x = i - y * width;
        unsigned left = x > 0 ? x - 1 : 0, right = x + 1 < width ? x + 1 : width - 1;
        const float *row = h_in + (size_t)y * width;
        float want = (row[left] + row[x] + row[right]) / 3.0f * GAIN;
        if (magnitude(h_out[i] - want) > 1e-5f * magnitude(want)) {
            fprintf(stderr, "safety_frame: pixel %u (x %u, y %u) is %.9g, expected %.9g\n", i,
                    x, y, (double)h_out[i], (double)want);
            return 1;
        }
    }

    qsort(per_frame, reps, sizeof *per_frame, by_value);
    printf("frame c ns_per_frame=%lld min=%lld max=%lld reps=%u frames=%u "
           "device_bytes_delta=%lld\n",
           per_frame[reps / 2], per_frame[0], per_frame[reps - 1], reps, frames,
           (long long)free_before - (long long)free_after);
    free(per_frame);

    /* Teardown, in reverse order of creation. */
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(graph));
    CHECK(cuMemFreeHost(h_out));
    CHECK(cuMemFreeHost(h_in));
    CHECK(cuMemFree(d_mid));
    CHECK(cuMemFree(d_in));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxPopCurrent(&popped));
    if (popped != ctx) {
        fprintf(stderr, "safety_frame: popped a context that is not the one pushed\n");
        return 1;
    }
    CHECK(cuDevicePrimaryCtxRelease(dev));
    return fflush(stdout) == 0 ? 0 : 1;
}
