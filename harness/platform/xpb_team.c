/* xpb_team.c - a team of host threads started once (xpb_team.h). A job is published by bumping
 * `job` (release) after fn and user are set; members see it with an acquire load, run their part,
 * and count `pending` down (acq_rel), so the caller that reads pending == 0 sees every member's
 * status. The mutex and condition variables are only for members that stopped spinning: a
 * sleeper checks the counter under the mutex before it waits, and whoever changes what it waits
 * for takes the mutex before signalling, so no wake-up is lost. */
#define _POSIX_C_SOURCE 200809L
#include "xpb_team.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XPB_TEAM_MAX 64

typedef struct member {
    xpb_team *team;
    int index;
    xpb_status st;
    xpb_error err;
} member;

struct xpb_team {
    int n;
    unsigned spin_us;
    xpb_team_fn fn;
    void *user;
    atomic_uint job;   /* the job number; members run each new one */
    atomic_int pending; /* members 1..n-1 still inside the current job */
    atomic_bool stop;
    pthread_mutex_t mu;
    pthread_cond_t job_cv, done_cv;
    pthread_t tid[XPB_TEAM_MAX];
    bool started[XPB_TEAM_MAX];
    member m[XPB_TEAM_MAX];
};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Polls done(t, arg) for up to spin_us, then sleeps on cv until it holds. */
static void wait_until(xpb_team *t, bool (*done)(xpb_team *, unsigned), unsigned arg, pthread_cond_t *cv)
{
    if (t->spin_us) {
        const double until = now_us() + t->spin_us;
        for (unsigned i = 1;; i++) {
            if (done(t, arg))
                return;
            if ((i & 255u) == 0 && now_us() > until)
                break;
        }
    }
    pthread_mutex_lock(&t->mu);
    while (!done(t, arg))
        pthread_cond_wait(cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

static bool new_job(xpb_team *t, unsigned seen)
{
    return atomic_load_explicit(&t->job, memory_order_acquire) != seen ||
           atomic_load_explicit(&t->stop, memory_order_acquire);
}

static bool all_done(xpb_team *t, unsigned unused)
{
    (void)unused;
    return atomic_load_explicit(&t->pending, memory_order_acquire) == 0;
}

static void *member_main(void *arg)
{
    member *m = arg;
    xpb_team *t = m->team;
    unsigned seen = 0;
    for (;;) {
        wait_until(t, new_job, seen, &t->job_cv);
        if (atomic_load_explicit(&t->stop, memory_order_acquire))
            return NULL;
        seen = atomic_load_explicit(&t->job, memory_order_acquire);
        m->st = t->fn(t->user, m->index, &m->err);
        if (atomic_fetch_sub_explicit(&t->pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&t->mu); /* the caller may be asleep */
            pthread_cond_signal(&t->done_cv);
            pthread_mutex_unlock(&t->mu);
        }
    }
}

xpb_status xpb_team_open(int n, unsigned spin_us, xpb_team **out, xpb_error *err)
{
    *out = NULL;
    if (n < 1 || n > XPB_TEAM_MAX)
        return xpb_fail(err, XPB_ERR_USAGE, "a team of %d threads (1 to %d)", n, XPB_TEAM_MAX);
    xpb_team *t = calloc(1, sizeof *t);
    if (!t)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "a team of %d threads: out of memory", n);
    t->n = n;
    t->spin_us = spin_us;
    atomic_init(&t->job, 0u);
    atomic_init(&t->pending, 0);
    atomic_init(&t->stop, false);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->job_cv, NULL);
    pthread_cond_init(&t->done_cv, NULL);
    for (int i = 0; i < n; i++)
        t->m[i] = (member){.team = t, .index = i};
    for (int i = 1; i < n; i++) {
        int rc = pthread_create(&t->tid[i], NULL, member_main, &t->m[i]);
        t->started[i] = rc == 0;
        if (rc) {
            xpb_team_close(t);
            return xpb_fail(err, XPB_ERR_RUNTIME, "cannot start thread %d of a team of %d: %s", i, n, strerror(rc));
        }
    }
    *out = t;
    return XPB_OK;
}

xpb_status xpb_team_run(xpb_team *t, xpb_team_fn fn, void *user, xpb_error *err)
{
    t->fn = fn;
    t->user = user;
    for (int i = 0; i < t->n; i++)
        t->m[i].st = XPB_OK, t->m[i].err.msg[0] = '\0';
    if (t->n > 1) {
        atomic_store_explicit(&t->pending, t->n - 1, memory_order_relaxed);
        pthread_mutex_lock(&t->mu);
        atomic_fetch_add_explicit(&t->job, 1u, memory_order_release);
        pthread_cond_broadcast(&t->job_cv);
        pthread_mutex_unlock(&t->mu);
    }
    t->m[0].st = fn(user, 0, &t->m[0].err);
    if (t->n > 1)
        wait_until(t, all_done, 0, &t->done_cv);
    for (int i = 0; i < t->n; i++)
        if (t->m[i].st) {
            if (err)
                *err = t->m[i].err;
            return t->m[i].st;
        }
    return XPB_OK;
}

int xpb_team_size(const xpb_team *t) { return t->n; }

void xpb_team_close(xpb_team *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    atomic_store_explicit(&t->stop, true, memory_order_release);
    pthread_cond_broadcast(&t->job_cv);
    pthread_mutex_unlock(&t->mu);
    for (int i = 1; i < t->n; i++)
        if (t->started[i])
            pthread_join(t->tid[i], NULL);
    pthread_cond_destroy(&t->job_cv);
    pthread_cond_destroy(&t->done_cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
}
