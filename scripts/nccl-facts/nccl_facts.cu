/*
 * What one NCCL all-reduce costs the host, blocking against non-blocking communicators: the facts
 * BENCHMARKS.md ("One process per GPU") states and custack's NCCL design rests on. Plain C
 * against the CUDA runtime and NCCL, one thread per GPU (every visible GPU a rank of one clique),
 * built and run on the GPU machine by scripts/nccl-facts/run.sh:
 *
 *   nccl_facts
 *
 * Three modes, each on its own communicator (made, used, destroyed in turn), each size 1, 4 and
 * 16 MiB in place (f32, sum), 5 warm-ups then 20 timed calls between two GPU events, three times:
 *   blocking      `blocking = 1` (NCCL's default, as nccl-tests): each call returns when NCCL has
 *                 enqueued it on the calling thread;
 *   nonblocking   `blocking = 0` (custack's): each call answers ncclInProgress and is polled
 *                 (`ncclCommGetAsyncError`, a tight spin: the least a poller can wait) before the
 *                 next, as NCCL requires;
 *   grouped       `blocking = 0`, the 20 calls inside one ncclGroupStart/ncclGroupEnd, polled
 *                 once.
 * Every line printed is `fact MODE BYTES RUN us_per_call=… host_us_per_call=…` (rank 0: the GPU
 * time between the events over 20, and the host time from the first call's start to the last
 * call's return over 20).
 */
#include <cuda_runtime.h>
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP 5
#define ITERS 20
#define RUNS 3

#define CUDA(x)                                                                        \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

enum mode { BLOCKING, NONBLOCKING, GROUPED };
static const char *mode_name[] = {"blocking", "nonblocking", "grouped"};

static int nranks;
static ncclUniqueId ids[3]; /* one per mode: an id makes one communicator */
static pthread_barrier_t barrier;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Polls the communicator until it is no longer ncclInProgress; exits on an error. */
static void settle(ncclComm_t comm, ncclResult_t r, const char *what) {
    while (r == ncclInProgress) {
        if (ncclCommGetAsyncError(comm, &r) != ncclSuccess) {
            fprintf(stderr, "%s: ncclCommGetAsyncError failed\n", what);
            exit(1);
        }
    }
    if (r != ncclSuccess) {
        fprintf(stderr, "%s: %s: %s\n", what, ncclGetErrorString(r), ncclGetLastError(comm));
        exit(1);
    }
}

/* One batch of `n` in-place all-reduces of `count` floats, as `m` issues them. */
static void batch(enum mode m, ncclComm_t comm, float *buf, size_t count, cudaStream_t s, int n) {
    if (m == GROUPED) {
        ncclGroupStart();
        for (int i = 0; i < n; i++) {
            ncclResult_t r = ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, comm, s);
            if (r != ncclSuccess && r != ncclInProgress) settle(comm, r, "ncclAllReduce in a group");
        }
        settle(comm, ncclGroupEnd(), "ncclGroupEnd");
        return;
    }
    for (int i = 0; i < n; i++) {
        ncclResult_t r = ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, comm, s);
        settle(comm, r, "ncclAllReduce");
    }
}

static void *rank_main(void *arg) {
    int rank = (int)(size_t)arg;
    CUDA(cudaSetDevice(rank));
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *buf;
    CUDA(cudaMalloc(&buf, 16u << 20));
    CUDA(cudaMemset(buf, 0, 16u << 20));
    cudaEvent_t start, stop;
    CUDA(cudaEventCreate(&start));
    CUDA(cudaEventCreate(&stop));
    for (int m = BLOCKING; m <= GROUPED; m++) {
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = m == BLOCKING ? 1 : 0;
        ncclComm_t comm;
        pthread_barrier_wait(&barrier);
        /* ncclCommInitRankConfig writes `comm` before it answers ncclInProgress. */
        ncclResult_t made = ncclCommInitRankConfig(&comm, nranks, ids[m], rank, &config);
        settle(comm, made, "init");
        for (size_t bytes = 1u << 20; bytes <= 16u << 20; bytes <<= 2) {
            size_t count = bytes / sizeof(float);
            for (int run = 1; run <= RUNS; run++) {
                batch((enum mode)m, comm, buf, count, s, WARMUP);
                CUDA(cudaStreamSynchronize(s));
                pthread_barrier_wait(&barrier);
                CUDA(cudaEventRecord(start, s));
                double t0 = now_us();
                batch((enum mode)m, comm, buf, count, s, ITERS);
                double host = now_us() - t0;
                CUDA(cudaEventRecord(stop, s));
                CUDA(cudaEventSynchronize(stop));
                float ms;
                CUDA(cudaEventElapsedTime(&ms, start, stop));
                if (rank == 0)
                    printf("fact %s %zu %d us_per_call=%.1f host_us_per_call=%.1f\n", mode_name[m],
                           bytes, run, ms * 1e3 / ITERS, host / ITERS);
            }
        }
        settle(comm, ncclCommFinalize(comm), "finalize");
        ncclCommDestroy(comm);
    }
    return NULL;
}

int main(void) {
    CUDA(cudaGetDeviceCount(&nranks));
    int version;
    ncclGetVersion(&version);
    printf("fact ranks %d nccl %d\n", nranks, version);
    for (int m = 0; m < 3; m++)
        if (ncclGetUniqueId(&ids[m]) != ncclSuccess) return 1;
    pthread_barrier_init(&barrier, NULL, (unsigned)nranks);
    pthread_t threads[16];
    for (int r = 0; r < nranks && r < 16; r++)
        pthread_create(&threads[r], NULL, rank_main, (void *)(size_t)r);
    for (int r = 0; r < nranks && r < 16; r++) pthread_join(threads[r], NULL);
    return 0;
}
