/* csrc/python/spec/warm_threads.c: threads kept warm between calls (warm_threads.h).
 *
 * The process has up to WARM_THREADS of them, each started the first time a caller claims it. A caller
 * claims a free one (an atomic flag: no lock, no wait), posts its job and, once it has run its own part,
 * waits for the job's end; then it frees the thread. The thread, its job done, spins for up to SPIN_NS
 * (none on a machine of one core) looking for the next job (a pause instruction between looks, the clock
 * read every SPIN_LOOKS looks) before it sleeps on a condition variable; a caller waiting for a job's
 * end does the same. This is what the OpenMP runtimes do by default between parallel regions (libgomp
 * spins GOMP_SPINCOUNT times before it sleeps), for the same reason: waking a sleeping core costs more
 * than the work of a small region.
 *
 * Jobs posted and ended are counts, written with the thread's lock held and read with or without it:
 * job and arg are written before the post that the thread reads with acquire, and the job's writes come
 * before the end that the caller reads with acquire. `sleeping` and `waiting` (a side asleep on its
 * condition) are read and written with the lock held only, so a post or an end never misses a sleeper.
 *
 * Fork: the pool is one pointer, forgotten in a forked child (a pthread_atfork handler): the child's
 * callers start a pool of their own, and the parent's (its threads absent, its locks as the fork found
 * them) is left as it is, never touched. The threads are detached and never end: at exit they are
 * stopped where they are, asleep or spinning, touching nothing of Python's. */
#define _POSIX_C_SOURCE 200809L
#include "warm_threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define WARM_THREADS 8
#define SPIN_NS 250000L /* a little more than the gap between the layer's batches */
#define SPIN_LOOKS 256

struct WarmThread {
    atomic_int claimed; /* a caller holds it */
    int started;        /* its thread runs: read and written by the caller holding it */
    pthread_mutex_t lock;
    pthread_cond_t posted_cond, done_cond;
    void *(*job)(void *);
    void *arg;
    atomic_uint posted, done; /* jobs posted to it, jobs it ended */
    int sleeping, waiting;    /* the thread asleep for a post, its caller asleep for an end */
    long spin_ns;             /* how long a side spins before it sleeps */
};

typedef struct {
    WarmThread threads[WARM_THREADS];
} WarmPool;

static _Atomic(WarmPool *) pool;
static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static int fork_handler_set;

static void
relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("isb" ::: "memory");
#endif
}

/* Spins until *count is `target`, for at most spin_ns: whether it got there. */
static int
spin_until(atomic_uint *count, unsigned target, long spin_ns)
{
    struct timespec start, now;
    if (clock_gettime(CLOCK_MONOTONIC, &start) != 0) return 0;
    for (;;) {
        for (int look = 0; look < SPIN_LOOKS; look++) {
            if (atomic_load_explicit(count, memory_order_acquire) == target) return 1;
            relax();
        }
        if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return 0;
        if ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) > spin_ns) return 0;
    }
}

/* Polls *count every millisecond until it is `target`: a wait that a failed lock or sleep leaves. */
static void
poll_until(atomic_uint *count, unsigned target)
{
    struct timespec millisecond = {0, 1000000L};
    while (atomic_load_explicit(count, memory_order_acquire) != target) nanosleep(&millisecond, NULL);
}

/* Waits until *count is `target`: a spin, then asleep on `cond` (the thread's lock held, *asleep set). */
static void
wait_until(WarmThread *thread, atomic_uint *count, unsigned target, pthread_cond_t *cond, int *asleep)
{
    if (spin_until(count, target, thread->spin_ns)) return;
    if (pthread_mutex_lock(&thread->lock) != 0) {
        poll_until(count, target);
        return;
    }
    int slept = 0;
    while (slept == 0 && atomic_load_explicit(count, memory_order_acquire) != target) {
        *asleep = 1;
        slept = pthread_cond_wait(cond, &thread->lock);
        *asleep = 0;
    }
    (void)pthread_mutex_unlock(&thread->lock); /* unlock, signal, destroy fail only on misuse */
    if (slept != 0) poll_until(count, target);
}

/* Adds one to *count and wakes the other side when it sleeps on `cond`: 0, or -1 with *count as it was
 * when the lock cannot be taken. */
static int
count_up(WarmThread *thread, atomic_uint *count, pthread_cond_t *cond, const int *asleep)
{
    if (pthread_mutex_lock(&thread->lock) != 0) return -1;
    atomic_fetch_add_explicit(count, 1, memory_order_release);
    if (*asleep) (void)pthread_cond_signal(cond);
    (void)pthread_mutex_unlock(&thread->lock);
    return 0;
}

static void *
serve(void *arg)
{
    WarmThread *thread = arg;
    for (unsigned done = 0;; done++) {
        wait_until(thread, &thread->posted, done + 1, &thread->posted_cond, &thread->sleeping);
        thread->job(thread->arg);
        if (count_up(thread, &thread->done, &thread->done_cond, &thread->waiting) < 0) {
            /* a lock that cannot be taken (only a broken one): the end counted anyway, sleepers woken */
            atomic_fetch_add_explicit(&thread->done, 1, memory_order_release);
            (void)pthread_cond_broadcast(&thread->done_cond);
        }
    }
    return NULL;
}

/* Starts the thread of a pool's slot: 0, or -1 with nothing left behind. */
static int
start(WarmThread *thread)
{
    pthread_attr_t attr;
    pthread_t id;
    if (pthread_mutex_init(&thread->lock, NULL) != 0) return -1;
    if (pthread_cond_init(&thread->posted_cond, NULL) != 0) goto no_posted_cond;
    if (pthread_cond_init(&thread->done_cond, NULL) != 0) goto no_done_cond;
    if (pthread_attr_init(&attr) != 0) goto no_attr;
    int made = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
               pthread_create(&id, &attr, serve, thread) == 0;
    (void)pthread_attr_destroy(&attr);
    if (made) return 0;
no_attr:
    (void)pthread_cond_destroy(&thread->done_cond);
no_done_cond:
    (void)pthread_cond_destroy(&thread->posted_cond);
no_posted_cond:
    (void)pthread_mutex_destroy(&thread->lock);
    return -1;
}

static void
forget_pool(void)
{
    atomic_store_explicit(&pool, NULL, memory_order_relaxed); /* the child has one thread: no race */
}

static void
set_fork_handler(void)
{
    fork_handler_set = pthread_atfork(NULL, NULL, forget_pool) == 0;
}

/* The process's pool, made on first use; NULL when it cannot be. */
static WarmPool *
the_pool(void)
{
    WarmPool *found = atomic_load_explicit(&pool, memory_order_acquire);
    if (found) return found;
    if (pthread_once(&fork_handler_once, set_fork_handler) != 0 || !fork_handler_set) return NULL;
    WarmPool *made = calloc(1, sizeof(*made));
    if (!made) return NULL;
    /* on one core, a side spinning would keep the other from running */
    long spin_ns = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? SPIN_NS : 0;
    for (int t = 0; t < WARM_THREADS; t++) {
        made->threads[t].spin_ns = spin_ns;
        atomic_init(&made->threads[t].claimed, 0);
        atomic_init(&made->threads[t].posted, 0);
        atomic_init(&made->threads[t].done, 0);
    }
    if (atomic_compare_exchange_strong_explicit(&pool, &found, made, memory_order_acq_rel, memory_order_acquire))
        return made;
    free(made); /* another caller's came first: `found` */
    return found;
}

WarmThread *
warm_start(void *(*job)(void *), void *arg)
{
    WarmPool *warm = the_pool();
    if (!warm) return NULL;
    for (int t = 0; t < WARM_THREADS; t++) {
        WarmThread *thread = &warm->threads[t];
        int free_slot = 0;
        if (atomic_load_explicit(&thread->claimed, memory_order_relaxed) ||
            !atomic_compare_exchange_strong_explicit(&thread->claimed, &free_slot, 1, memory_order_acquire,
                                                     memory_order_relaxed))
            continue;
        if (!thread->started && start(thread) < 0) {
            atomic_store_explicit(&thread->claimed, 0, memory_order_release);
            return NULL;
        }
        thread->started = 1;
        thread->job = job;
        thread->arg = arg;
        if (count_up(thread, &thread->posted, &thread->posted_cond, &thread->sleeping) == 0) return thread;
        atomic_store_explicit(&thread->claimed, 0, memory_order_release); /* not posted: the caller runs it */
        return NULL;
    }
    return NULL;
}

void
warm_wait(WarmThread *thread)
{
    unsigned target = atomic_load_explicit(&thread->posted, memory_order_relaxed);
    wait_until(thread, &thread->done, target, &thread->done_cond, &thread->waiting);
    atomic_store_explicit(&thread->claimed, 0, memory_order_release);
}
