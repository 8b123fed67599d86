/*
 * Ways to bound every NCCL wait (R16, docs/invariants.md), measured call by call in plain C against the CUDA
 * runtime and NCCL: what each costs an all-reduce, and whether each ends a rank whose peer died
 * or stopped in an error within its deadline. docs/nccl-designs.md says what each design is and
 * what the figures decide; scripts/nccl-facts/designs.sh builds this with nvcc on the GPU
 * machine and runs every design and test:
 *
 *   designs DESIGN perf           all-reduce call by call at 1, 2, 4, 8, 16 MiB and 1 GiB
 *   designs DESIGN kill|stall     rank 1 is SIGKILLed (kill) or stops calling (stall) mid-run
 *   designs watchdog-cost         what arming and disarming the watchdog's deadline costs
 *
 * DESIGN is one of
 *   blocking  the unbounded reference (perf only): a blocking communicator, nothing watching its
 *       calls (NCCL's default, what nccl-tests uses; scripts/nccl-facts/nccl_facts.cu's row);
 *   a   non-blocking communicator (custack today): every call answers ncclInProgress and is
 *       polled (ncclCommGetAsyncError, a tight spin bounded by the deadline) before the next;
 *   b   blocking communicator and a watchdog thread per rank that polls an atomic deadline word
 *       (armed before every NCCL call, disarmed after) every WATCHDOG_POLL_US and calls
 *       ncclCommAbort from its own thread once the deadline has passed;
 *   b-revoke  as b, but the watchdog calls ncclCommRevoke (sets the abort flags, frees nothing)
 *       and the calling thread aborts the communicator itself once its call has returned
 *       (kill tests only: its calls cost what b's do);
 *   c   blocking communicator, every connection made at init (NCCL_RUNTIME_CONNECT=0, set by
 *       this program before NCCL reads it: NCCL 2.28 has no ncclConfig_t field for it);
 *   d   non-blocking init (polled, bounded), then ncclCommSplit of it into a blocking
 *       communicator (config.blocking = 1; the split is polled on the non-blocking parent);
 *   dc  d, with every connection made at the child's init (NCCL_RUNTIME_CONNECT=0, as c);
 *   e   dc, and the caller bounds its own calls: before each call it looks at the
 *       communicator's async error (ncclCommGetAsyncError, an atomic load), and after every
 *       CAP_CALLS un-waited calls it waits, bounded, so that no more than CAP_CALLS are ever in
 *       flight (no second thread; what it rests on is that a connected communicator with few
 *       calls in flight never blocks inside a call, which NCCL does not promise).
 *
 * Two ranks, two processes (one GPU each; rank 0 is this process, rank 1 a child forked before
 * either touches CUDA or NCCL, so that the kill test can SIGKILL a whole rank as a launcher's
 * rank dies). nccl-tests' `-g 2` is one thread driving both GPUs in one NCCL group per call;
 * custack's 20_nccl_ranks is one process per GPU, which this follows.
 *
 * Timing, per size, three runs: 5 warm-up calls and a bounded wait, a barrier of both ranks,
 * then 20 timed calls, each in place on the same buffer on one stream (each depends on the one
 * before in stream order), between two CUDA events, then a bounded wait. Rank 0 prints
 *   perf DESIGN BYTES RUN us_per_call=E wall_us_per_call=W host_us_per_call=H host_max_us=M
 * E: GPU time between the events / 20 (how 20_nccl_ranks --sweep times); W: host clock from the
 * first timed call to the stream being idle / 20 (how nccl-tests' all_reduce_perf times: its
 * timer from before the first call to after its stream synchronize, over -n); H: host time from
 * the first call's start to the last call's return / 20; M: the longest single call. After
 * the three runs of a size, `range DESIGN BYTES` gives each figure's range over them.
 *
 * Kill test: both ranks make the communicator and run KILL_WARMUP (or DESIGNS_KILL_WARMUP)
 * all-reduces of KILL_BYTES, waited for; after a barrier rank 1 writes the time and SIGKILLs
 * itself (kill) or sleeps without calling NCCL (stall); rank 0 issues up to KILL_CALLS (or
 * DESIGNS_KILL_CALLS) more all-reduces without waiting (each bounded as its design bounds
 * calls; enough of them fill NCCL's queues, so that a call blocks where it can), then waits,
 * bounded. Its deadline is DEADLINE_S after the start of each call or wait. Rank 0 prints
 *   kill DESIGN MODE warmup=N calls=N outcome=error|NO-ERROR ms_after_stop=T where=... by=...
 * and, past DEADLINE_S + HANG_MARGIN_S after the stop with no outcome, a harness thread prints
 * outcome=HUNG naming the call, wait or abort rank 0 is stuck in, and ends the process.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <nccl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 5
#define ITERS 20
#define RUNS 3
#define MAX_BYTES ((size_t)1 << 30)
#define DEADLINE_S 5
#define HANG_MARGIN_S 3 /* DESIGNS_HANG_MARGIN_S overrides: how long past the deadline is a hang */
#define WATCHDOG_POLL_US 1000
#define KILL_WARMUP 5
#define KILL_BYTES ((size_t)4 << 20)
#define KILL_CALLS 4000
#define PERF_LIMIT_S 100
#define KILL_LIMIT_S 40
#define CAP_CALLS 64

/* This program's own result for a deadline that passed (NCCL 2.28 has no ncclTimeout). */
#define DEADLINE_PASSED ((ncclResult_t)100)

static const char *res_str(ncclResult_t r) {
    return r == DEADLINE_PASSED ? "deadline-passed" : ncclGetErrorString(r);
}

static const size_t sizes[] = {1u << 20, 2u << 20, 4u << 20, 8u << 20, 16u << 20, (size_t)1 << 30};

enum design { BLOCKING, A, B, B_REVOKE, C, D, DC, E };
static const char *design_name[] = {"blocking", "a", "b", "b-revoke", "c", "d", "dc", "e"};
static enum design design;
static int split_made(void) { return design == D || design == DC || design == E; }
static const char *mode; /* perf, kill, stall */
static int rank;
static pid_t child = -1;

/* Shared by both ranks' processes (MAP_SHARED before the fork). */
struct shared {
    pthread_barrier_t barrier;
    ncclUniqueId id;
    _Atomic int64_t stopped_ns; /* when rank 1 stopped (kill tests), CLOCK_MONOTONIC */
};
static struct shared *sh;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void die(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "designs %s %s rank %d: ", design_name[design], mode, rank);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    if (child > 0) kill(child, SIGKILL);
    _exit(1);
}

#define CUDA(x)                                                                        \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) die("%s: %s", #x, cudaGetErrorString(e_));              \
    } while (0)

static void barrier(void) { pthread_barrier_wait(&sh->barrier); }

/* ---- the watchdog (designs b and b-revoke) ---------------------------------------------- */

static _Atomic int64_t wd_deadline;   /* 0: disarmed; else CLOCK_MONOTONIC ns */
static _Atomic(ncclComm_t) wd_comm;   /* the communicator it may abort */
static _Atomic int wd_fired;          /* 1 once it acted */
static _Atomic int wd_stop;
static _Atomic int64_t wd_fired_ns, wd_done_ns;
static _Atomic int wd_async, wd_result; /* async error seen before acting; the action's result */
static pthread_t wd_thread;

static void *watchdog(void *arg) {
    (void)arg;
    struct timespec poll = {0, WATCHDOG_POLL_US * 1000};
    while (!atomic_load_explicit(&wd_stop, memory_order_relaxed)) {
        nanosleep(&poll, NULL);
        int64_t d = atomic_load_explicit(&wd_deadline, memory_order_acquire);
        if (d == 0 || now_ns() < d) continue;
        ncclComm_t comm = atomic_load(&wd_comm);
        atomic_store(&wd_fired_ns, now_ns());
        ncclResult_t async = ncclSuccess;
        ncclCommGetAsyncError(comm, &async); /* before the communicator may be freed */
        atomic_store(&wd_async, (int)async);
        atomic_store(&wd_fired, 1);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
        ncclResult_t r = design == B_REVOKE ? ncclCommRevoke(comm, NCCL_REVOKE_DEFAULT)
                                            : ncclCommAbort(comm);
#else
        ncclResult_t r = ncclCommAbort(comm); /* no ncclCommRevoke before 2.28 */
#endif
        atomic_store(&wd_result, (int)r);
        atomic_store(&wd_done_ns, now_ns());
        return NULL;
    }
    return NULL;
}

static inline void arm(void) {
    atomic_store_explicit(&wd_deadline, now_ns() + (int64_t)DEADLINE_S * 1000000000,
                          memory_order_release);
}
static inline void disarm(void) { atomic_store_explicit(&wd_deadline, 0, memory_order_release); }
static int watched(void) { return design == B || design == B_REVOKE; }

/* ---- what rank 0 is doing, for the harness's report ------------------------------------ */

static _Atomic int where_call = -1; /* index of the call it is inside, -1: none */
static _Atomic int in_wait;
static _Atomic int in_abort;
static _Atomic int in_revoke_wait; /* b-revoke: out of its call, waiting for the watchdog's revoke */
static _Atomic int reported;

/* ---- one call, one wait, as each design bounds them -------------------------------------- */

/* Polls a non-blocking communicator until it is no longer ncclInProgress or `deadline` passes
 * (then DEADLINE_PASSED; the caller aborts). */
static ncclResult_t settle(ncclComm_t comm, ncclResult_t r, int64_t deadline) {
    while (r == ncclInProgress) {
        if (ncclCommGetAsyncError(comm, &r) != ncclSuccess) return ncclInternalError;
        if (r == ncclInProgress && now_ns() > deadline) return DEADLINE_PASSED;
    }
    return r;
}

/* One in-place all-reduce of `count` floats, bounded as the design bounds calls. */
static ncclResult_t call(ncclComm_t comm, float *buf, size_t count, cudaStream_t s) {
    if (design == A) {
        int64_t deadline = now_ns() + (int64_t)DEADLINE_S * 1000000000;
        return settle(comm, ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, comm, s),
                      deadline);
    }
    if (design == E) {
        /* The caller's own look before the call: an error NCCL already knows ends it here. */
        ncclResult_t a = ncclSuccess;
        if (ncclCommGetAsyncError(comm, &a) != ncclSuccess) return ncclInternalError;
        if (a != ncclSuccess) return a;
    }
    if (watched()) arm();
    ncclResult_t r = ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, comm, s);
    if (watched()) disarm();
    return r;
}

/* Waits for the stream, bounded: cudaStreamQuery and ncclCommGetAsyncError, yielding between
 * looks (custack's Comm::wait), until idle (ncclSuccess), an NCCL error, or the deadline
 * (DEADLINE_PASSED); the caller aborts on anything but ncclSuccess. Design b instead blocks in
 * cudaStreamSynchronize under its watchdog. */
static ncclResult_t wait_bounded(ncclComm_t comm, cudaStream_t s) {
    if (watched()) {
        /* b: the wait blocks in the runtime, and the watchdog bounds it; its abort makes NCCL's
         * kernels quit (the abort flag they poll), which ends the synchronize. The caller is in
         * the runtime, not in NCCL, while the watchdog frees the communicator. */
        arm();
        cudaError_t q = cudaStreamSynchronize(s);
        disarm();
        if (atomic_load(&wd_fired)) return DEADLINE_PASSED;
        if (q != cudaSuccess) return ncclUnhandledCudaError;
        ncclResult_t a = ncclSuccess;
        if (ncclCommGetAsyncError(comm, &a) != ncclSuccess) return ncclInternalError;
        return a;
    }
    int64_t deadline = now_ns() + (int64_t)DEADLINE_S * 1000000000;
    for (;;) {
        cudaError_t q = cudaStreamQuery(s);
        if (q == cudaSuccess) return ncclSuccess;
        if (q != cudaErrorNotReady) return ncclUnhandledCudaError;
        ncclResult_t a = ncclSuccess;
        if (ncclCommGetAsyncError(comm, &a) != ncclSuccess) return ncclInternalError;
        if (a != ncclSuccess && a != ncclInProgress) return a;
        if (now_ns() > deadline) return DEADLINE_PASSED;
        sched_yield();
    }
}

/* Design e's cap: after every CAP_CALLS un-waited calls, a bounded wait (the other designs: a
 * no-op). `issued` counts the calls since the last wait. */
static ncclResult_t cap(ncclComm_t comm, cudaStream_t s, int *issued) {
    if (design != E || ++*issued < CAP_CALLS) return ncclSuccess;
    *issued = 0;
    return wait_bounded(comm, s);
}

/* ---- making the communicator ------------------------------------------------------------ */

static ncclComm_t parent; /* design d's non-blocking parent, kept (its abort ends the child's init) */
static double init_ms;

static ncclComm_t make_comm(void) {
    int64_t t0 = now_ns();
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    if (getenv("DESIGNS_NVLINK_CENTRIC")) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
        config.nvlinkCentricSched = 1; /* what nccl-tests >= 2.28 sets */
#endif
    }
    config.blocking = (design == A || split_made()) ? 0 : 1;
    ncclComm_t comm = NULL;
    ncclResult_t r = ncclCommInitRankConfig(&comm, 2, sh->id, rank, &config);
    if (config.blocking == 0) {
        /* ncclCommInitRankConfig writes `comm` before it answers ncclInProgress. */
        r = settle(comm, r, now_ns() + (int64_t)30 * 1000000000);
    }
    if (r != ncclSuccess) die("init: %s %s", res_str(r), "");
    if (split_made()) {
        ncclConfig_t child_config = NCCL_CONFIG_INITIALIZER;
        child_config.blocking = 1;
        if (getenv("DESIGNS_NVLINK_CENTRIC")) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
            child_config.nvlinkCentricSched = 1;
#endif
        }
        parent = comm;
        ncclComm_t split = NULL;
        r = ncclCommSplit(parent, 0, rank, &split, &child_config);
        /* The split is a job of the non-blocking parent. NCCL 2.28.9's ncclCommSplit answers
         * ncclSuccess, not ncclInProgress, even when the job is still running on the parent's
         * thread (it returns the child's set-up result, and ncclGroupEndInternal's
         * ncclInProgress passes NCCLCHECK), and it writes `split` only when the child is
         * complete: so the parent is polled whatever the call answered, bounded. (This
         * program's first run judged `split` right after the call and found it NULL.) */
        if (r != ncclSuccess && r != ncclInProgress) die("split: %s %s", res_str(r), "");
        int64_t split_deadline = now_ns() + (int64_t)30 * 1000000000;
        r = settle(parent, ncclInProgress, split_deadline);
        if (r != ncclSuccess) die("split (the parent's job): %s %s", res_str(r), "");
        ncclComm_t made;
        while ((made = __atomic_load_n(&split, __ATOMIC_ACQUIRE)) == NULL) {
            if (now_ns() > split_deadline) die("split: the parent is done but no child was written%s%s", "", "");
            sched_yield();
        }
        comm = made;
    }
    init_ms = (now_ns() - t0) / 1e6;
    return comm;
}

static void end_comm(ncclComm_t comm) {
    ncclResult_t r = ncclCommFinalize(comm);
    r = settle(comm, r, now_ns() + (int64_t)30 * 1000000000);
    if (r != ncclSuccess) die("finalize: %s %s", res_str(r), "");
    ncclCommDestroy(comm);
    if (parent) {
        r = settle(parent, ncclCommFinalize(parent), now_ns() + (int64_t)30 * 1000000000);
        if (r != ncclSuccess) die("finalize parent: %s %s", res_str(r), "");
        ncclCommDestroy(parent);
    }
}

/* ---- perf ------------------------------------------------------------------------------- */

static void check(ncclComm_t comm, ncclResult_t r, const char *what) {
    if (r == ncclSuccess) return;
    die("%s: %s", what, res_str(r));
    (void)comm;
}

static void perf(ncclComm_t comm, float *buf, cudaStream_t s) {
    cudaEvent_t start, stop;
    CUDA(cudaEventCreate(&start));
    CUDA(cudaEventCreate(&stop));
    if (rank == 0)
        printf("init %s ms=%.1f calls_blocking=%d\n", design_name[design], init_ms,
               design == A ? 0 : 1);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t count = sizes[i] / sizeof(float);
        double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {0, 0, 0}; /* gpu, wall, host */
        for (int run = 1; run <= RUNS; run++) {
            for (int w = 0; w < WARMUP; w++) check(comm, call(comm, buf, count, s), "warm-up");
            check(comm, wait_bounded(comm, s), "warm-up wait");
            barrier();
            CUDA(cudaEventRecord(start, s));
            double host_max = 0;
            int64_t t0 = now_ns();
            int issued = 0;
            for (int k = 0; k < ITERS; k++) {
                int64_t c0 = now_ns();
                check(comm, call(comm, buf, count, s), "call");
                check(comm, cap(comm, s, &issued), "capped wait");
                double c = (now_ns() - c0) / 1e3;
                if (c > host_max) host_max = c;
            }
            double host = (now_ns() - t0) / 1e3;
            CUDA(cudaEventRecord(stop, s));
            check(comm, wait_bounded(comm, s), "wait");
            double wall = (now_ns() - t0) / 1e3;
            float ms;
            CUDA(cudaEventElapsedTime(&ms, start, stop));
            if (rank == 0)
                printf("perf %s %zu %d us_per_call=%.1f wall_us_per_call=%.1f "
                       "host_us_per_call=%.1f host_max_us=%.1f\n",
                       design_name[design], sizes[i], run, ms * 1e3 / ITERS, wall / ITERS,
                       host / ITERS, host_max);
            double v[3] = {ms * 1e3 / ITERS, wall / ITERS, host / ITERS};
            for (int j = 0; j < 3; j++) {
                if (v[j] < lo[j]) lo[j] = v[j];
                if (v[j] > hi[j]) hi[j] = v[j];
            }
        }
        if (rank == 0)
            printf("range %s %zu us_per_call=%.1f-%.1f wall_us_per_call=%.1f-%.1f "
                   "host_us_per_call=%.1f-%.1f\n",
                   design_name[design], sizes[i], lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
    }
    barrier();
}

/* ---- kill and stall --------------------------------------------------------------------- */

static double since_stop_ms(int64_t t) {
    int64_t s = atomic_load(&sh->stopped_ns);
    return s ? (t - s) / 1e6 : -1;
}

static int hang_margin_s(void) {
    const char *m = getenv("DESIGNS_HANG_MARGIN_S");
    return m && atoi(m) > 0 ? atoi(m) : HANG_MARGIN_S;
}

static void *harness(void *arg) {
    (void)arg;
    while (atomic_load(&sh->stopped_ns) == 0) usleep(1000);
    int64_t limit = atomic_load(&sh->stopped_ns) + (int64_t)(DEADLINE_S + hang_margin_s()) * 1000000000;
    while (now_ns() < limit) {
        if (atomic_load(&reported)) return NULL;
        usleep(1000);
    }
    if (atomic_exchange(&reported, 1)) return NULL;
    int k = atomic_load(&where_call);
    char where[64];
    if (k >= 0) snprintf(where, sizeof where, "call#%d", k);
    else snprintf(where, sizeof where, "%s",
                  atomic_load(&in_abort)         ? "abort"
                  : atomic_load(&in_revoke_wait) ? "waiting-for-the-watchdog's-revoke"
                  : atomic_load(&in_wait)        ? "wait"
                                                 : "between-calls");
    printf("kill %s %s warmup=%s calls=%s outcome=HUNG ms_after_stop=%.0f where=%s watchdog_fired=%d "
           "watchdog_ms_after_stop=%.0f watchdog_action_returned=%s\n",
           design_name[design], mode,
           getenv("DESIGNS_KILL_WARMUP") ? getenv("DESIGNS_KILL_WARMUP") : "5",
           getenv("DESIGNS_KILL_CALLS") ? getenv("DESIGNS_KILL_CALLS") : "4000",
           since_stop_ms(now_ns()), where, atomic_load(&wd_fired),
           atomic_load(&wd_fired) ? since_stop_ms(atomic_load(&wd_fired_ns)) : -1.0,
           atomic_load(&wd_done_ns) ? "yes" : "no");
    fflush(stdout);
    if (child > 0) kill(child, SIGKILL);
    _exit(0);
}

static void kill_test(ncclComm_t comm, float *buf, cudaStream_t s) {
    size_t count = KILL_BYTES / sizeof(float);
    /* DESIGNS_KILL_WARMUP=0: rank 1 stops right after init, so rank 0's first call is the
     * first use of its algorithm, which NCCL connects then (NCCL_RUNTIME_CONNECT=1). */
    int warm = getenv("DESIGNS_KILL_WARMUP") ? atoi(getenv("DESIGNS_KILL_WARMUP")) : KILL_WARMUP;
    for (int w = 0; w < warm; w++) check(comm, call(comm, buf, count, s), "warm-up");
    if (warm > 0) check(comm, wait_bounded(comm, s), "warm-up wait");
    barrier();
    if (rank == 1) {
        atomic_store(&sh->stopped_ns, now_ns());
        if (strcmp(mode, "kill") == 0) kill(getpid(), SIGKILL);
        for (;;) pause(); /* stall: alive, never calls NCCL again; rank 0 kills it */
    }
    pthread_t h;
    pthread_create(&h, NULL, harness, NULL);
    while (atomic_load(&sh->stopped_ns) == 0) sched_yield();
    usleep(1000); /* rank 1 is gone (kill) or idle (stall) before rank 0 goes on */
    ncclResult_t r = ncclSuccess;
    const char *by = "none";
    int calls = getenv("DESIGNS_KILL_CALLS") ? atoi(getenv("DESIGNS_KILL_CALLS")) : KILL_CALLS;
    int k, issued = 0;
    for (k = 0; k < calls; k++) {
        atomic_store(&where_call, k);
        r = call(comm, buf, count, s);
        atomic_store(&where_call, -1);
        if (r != ncclSuccess) {
            by = design == A ? "call(settle)" : design == E ? "call(look)" : "call";
            break;
        }
        atomic_store(&in_wait, 1);
        r = cap(comm, s, &issued);
        atomic_store(&in_wait, 0);
        if (r != ncclSuccess) {
            by = r == DEADLINE_PASSED ? "capped-wait(deadline)" : "capped-wait(error)";
            break;
        }
        if (atomic_load(&wd_fired)) {
            by = "watchdog(call returned ncclSuccess)";
            r = ncclSystemError;
            break;
        }
    }
    int64_t t_err = now_ns();
    if (r == ncclSuccess) {
        atomic_store(&in_wait, 1);
        r = wait_bounded(comm, s);
        atomic_store(&in_wait, 0);
        t_err = now_ns();
        by = atomic_load(&wd_fired) ? "watchdog(wait)"
             : r == DEADLINE_PASSED ? "wait(deadline)"
             : r == ncclSuccess     ? "none"
                                    : "wait(error)";
    }
    if (atomic_load(&wd_fired) && strcmp(by, "call") == 0) by = "watchdog(call returned its error)";
    ncclResult_t async = ncclSuccess;
    int freed = atomic_load(&wd_fired) && design == B;
    if (freed) {
        async = (ncclResult_t)atomic_load(&wd_async); /* the watchdog's look, before its abort */
    } else {
        ncclCommGetAsyncError(comm, &async);
    }
    int64_t a0 = now_ns();
    ncclResult_t aborted = ncclSuccess;
    if (!freed && r != ncclSuccess) {
        /* b-revoke: the watchdog revoked; the caller, out of NCCL now, frees. Others: the
         * caller's own bounded poll ended it. */
        if (design == B_REVOKE) {
            atomic_store(&in_revoke_wait, 1);
            while (atomic_load(&wd_fired) && !atomic_load(&wd_done_ns)) sched_yield();
            atomic_store(&in_revoke_wait, 0);
        }
        atomic_store(&in_abort, 1);
        aborted = ncclCommAbort(comm);
        if (parent) ncclCommAbort(parent);
        atomic_store(&in_abort, 0);
    }
    double abort_ms = (now_ns() - a0) / 1e6;
    if (atomic_exchange(&reported, 1)) for (;;) pause(); /* the harness already spoke */
    char where[64];
    if (k < calls && strncmp(by, "capped", 6) == 0)
        snprintf(where, sizeof where, "capped-wait(after-call#%d)", k);
    else if (k < calls) snprintf(where, sizeof where, "call#%d", k);
    else snprintf(where, sizeof where, "wait(after-%d-calls)", k);
    printf("kill %s %s warmup=%d calls=%d outcome=%s ms_after_stop=%.0f where=%s by=%s result=%s "
           "async_error=%s abort=%s abort_ms=%.1f watchdog_fired=%d "
           "watchdog_ms_after_stop=%.0f watchdog_action=%s\n",
           design_name[design], mode, warm, calls, r == ncclSuccess ? "NO-ERROR" : "error",
           since_stop_ms(t_err),
           where, by, res_str(r),
           ncclGetErrorString(async), freed ? "by-watchdog" : ncclGetErrorString(aborted), abort_ms,
           atomic_load(&wd_fired),
           atomic_load(&wd_fired) ? since_stop_ms(atomic_load(&wd_fired_ns)) : -1.0,
           atomic_load(&wd_fired) ? ncclGetErrorString((ncclResult_t)atomic_load(&wd_result)) : "-");
    fflush(stdout);
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    _exit(0);
}

/* ---- what the watchdog's deadline word costs a call ---------------------------------------- */

static void watchdog_cost(void) {
    design = B;
    pthread_create(&wd_thread, NULL, watchdog, NULL);
    const int n = 10000000;
    int64_t t0 = now_ns();
    for (int i = 0; i < n; i++) {
        arm();
        __asm__ __volatile__("" ::: "memory");
        disarm();
    }
    double per = (double)(now_ns() - t0) / n;
    int64_t t1 = now_ns();
    for (int i = 0; i < n; i++) __asm__ __volatile__("" ::: "memory");
    double empty = (double)(now_ns() - t1) / n;
    atomic_store(&wd_stop, 1);
    pthread_join(wd_thread, NULL);
    printf("watchdog arm+disarm ns_per_call=%.1f (empty loop %.1f; clock_gettime and two "
           "release stores; the watchdog polls every %d us)\n",
           per, empty, WATCHDOG_POLL_US);
}

/* ---- the rank --------------------------------------------------------------------------- */

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "designs: did not finish within its limit (alarm); killed\n";
    if (write(2, msg, sizeof msg - 1) < 0) {}
    if (child > 0) kill(child, SIGKILL);
    _exit(1);
}

static void run_rank(void) {
    int devices = 0;
    CUDA(cudaGetDeviceCount(&devices));
    if (devices < 2) die("needs two GPUs, this machine has %s%s", devices == 1 ? "one" : "none", "");
    CUDA(cudaSetDevice(rank));
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *buf;
    size_t bytes = strcmp(mode, "perf") == 0 ? MAX_BYTES : KILL_BYTES;
    CUDA(cudaMalloc((void **)&buf, bytes));
    CUDA(cudaMemset(buf, 0, bytes));
    CUDA(cudaDeviceSynchronize());
    if (rank == 0) {
        if (ncclGetUniqueId(&sh->id) != ncclSuccess) die("ncclGetUniqueId failed%s%s", "", "");
    }
    barrier();
    ncclComm_t comm = make_comm();
    if (watched()) {
        atomic_store(&wd_comm, comm);
        pthread_create(&wd_thread, NULL, watchdog, NULL);
    }
    if (strcmp(mode, "perf") == 0) {
        perf(comm, buf, s);
        if (watched()) {
            atomic_store(&wd_stop, 1);
            pthread_join(wd_thread, NULL);
        }
        end_comm(comm);
        CUDA(cudaFree(buf));
        return;
    }
    kill_test(comm, buf, s);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && strcmp(argv[1], "watchdog-cost") == 0) {
        mode = "watchdog-cost";
        watchdog_cost();
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: designs blocking|a|b|b-revoke|c|d|dc|e perf|kill|stall | designs watchdog-cost\n");
        return 2;
    }
    int found = 0;
    for (int d = BLOCKING; d <= E; d++)
        if (strcmp(argv[1], design_name[d]) == 0) design = (enum design)d, found = 1;
    mode = argv[2];
    if (!found || (strcmp(mode, "perf") && strcmp(mode, "kill") && strcmp(mode, "stall"))) {
        fprintf(stderr, "designs: unknown design or mode: %s %s\n", argv[1], argv[2]);
        return 2;
    }
    if (design == B_REVOKE && strcmp(mode, "perf") == 0) {
        fprintf(stderr, "designs: b-revoke's calls are b's; it has kill tests only\n");
        return 2;
    }
    if (design == BLOCKING && strcmp(mode, "perf") != 0) {
        fprintf(stderr, "designs: the unbounded reference has no kill test\n");
        return 2;
    }
    /* NVLS stays off (no cuMulticastCreate); NCCL_COMM_BLOCKING would override config.blocking. */
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    unsetenv("NCCL_COMM_BLOCKING");
    if (design == C || design == DC || design == E) setenv("NCCL_RUNTIME_CONNECT", "0", 1);
    else unsetenv("NCCL_RUNTIME_CONNECT");

    sh = (struct shared *)mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return 1;
    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&sh->barrier, &attr, 2);
    atomic_store(&sh->stopped_ns, 0);
    fflush(NULL);
    /* Fork before either process touches CUDA or NCCL. */
    child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* rank 1 never outlives rank 0 */
        rank = 1;
    } else {
        rank = 0;
        signal(SIGALRM, on_alarm);
        alarm(strcmp(mode, "perf") == 0 ? PERF_LIMIT_S : KILL_LIMIT_S + hang_margin_s());
    }
    if (rank == 0) {
        int version = 0;
        ncclGetVersion(&version);
        printf("run %s %s nccl=%d ranks=2 processes=2 deadline_s=%d runtime_connect=%s\n",
               design_name[design], mode, version, DEADLINE_S,
               getenv("NCCL_RUNTIME_CONNECT") ? getenv("NCCL_RUNTIME_CONNECT") : "default(1)");
    }
    run_rank();
    if (rank == 0) {
        int status = 0;
        waitpid(child, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "designs %s %s: rank 1 failed\n", design_name[design], mode);
            return 1;
        }
    }
    return 0;
}
