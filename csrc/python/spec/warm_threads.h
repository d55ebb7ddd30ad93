/* csrc/python/spec/warm_threads.h: threads kept warm between calls, for the parts of a call that the
 * calling thread does not run itself (spec_module.c's encode).
 *
 * A call's second part on a thread made for it costs the wake of an idle core (tens of microseconds on a
 * small machine, the same for a new thread and a sleeping one); the parts of back-to-back calls (the
 * layer's batches) come a few tens of microseconds apart. A warm thread, once its part is done, keeps
 * looking for the next one for a while before it sleeps, so the next call finds it awake.
 *
 *   warm_start(job, arg)  runs job(arg) on a warm thread of the process, started on first use; NULL when
 *       none is free (every one serves another call) or none can start: the caller then runs the part as
 *       before (a thread of its own, or itself). Never blocks on another caller.
 *   warm_wait(thread)     waits for that job to end (a short spin, then asleep) and frees the thread.
 *
 * The threads run jobs only: no Python object, no GIL. A forked child starts with no warm thread (those
 * of its parent are not in it; their state is left as it is, never touched). */
#ifndef KVEC_WARM_THREADS_H
#define KVEC_WARM_THREADS_H

typedef struct WarmThread WarmThread;

WarmThread *warm_start(void *(*job)(void *), void *arg);
void warm_wait(WarmThread *thread);

#endif
