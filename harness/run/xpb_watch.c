/* xpb_watch.c - see xpb_watch.h. */
#define _POSIX_C_SOURCE 200809L
#include "xpb_watch.h"

#include "xpb_mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])
static volatile sig_atomic_t signal_pipe = -1; /* the write end, for the handler; -1: none */

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    int fd = signal_pipe;
    if (fd >= 0 && write(fd, &b, 1) < 0) { /* a full pipe: a signal is waiting to be read already */
    }
    errno = saved;
}

static void take_signals(bool take)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = take ? on_signal : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* the run's own reads and waits go on */
    for (size_t i = 0; i < N_STOP_SIGNALS; i++)
        sigaction(stop_signals[i], &sa, NULL);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

bool xpb_watch_snapshot(const xpb_run *run, int sig, size_t cases_planned, xpb_run *snap)
{
    *snap = *run;
    snap->lock = NULL;
    snap->results = malloc((run->count ? run->count : 1) * sizeof *snap->results);
    if (!snap->results)
        return false;
    snap->count = snap->capacity = 0;
    snap->cases_finished = 0;
    const char *last_id = NULL;
    for (size_t i = 0; i < run->count; i++) {
        const xpb_result *r = &run->results[i];
        if (!r->settled)
            continue;
        snap->results[snap->count++] = *r;
        if (!last_id || strcmp(last_id, r->c.id) != 0) /* a case's results are consecutive */
            snap->cases_finished++;
        last_id = r->c.id;
    }
    snap->capacity = snap->count;
    snap->interrupted = signal_name(sig);
    snap->cases_planned = cases_planned;
    return true;
}

/* A signal: the settled results out through the caller, then the process ends. The lock stays
 * held, so the run cannot change a result while it is written, nor go on after. */
static void interrupted(xpb_watch *w, int sig)
{
    if (xpb_mpi_active() && xpb_mpi_rank() > 0) {
        /* Under MPI rank 0 writes every rank's results. This process ending now would be a rank
         * gone before MPI_Finalize, on which the launcher ends the job, rank 0 with it, maybe
         * before rank 0 has written (a cut mpirun sweep left no file): it waits instead, its run
         * held (the lock), until rank 0 is done and the launcher ends it, or XPB_WATCH_LINGER_S. */
        pthread_mutex_lock(&run_lock);
        fprintf(stderr, "xpubench: MPI rank %d: %s: waiting for rank 0 to write the finished cases\n",
                xpb_mpi_rank(), signal_name(sig));
        for (int i = 0; i < XPB_WATCH_LINGER_S * 10; i++)
            (void)poll(NULL, 0, 100); /* SA_RESTART does not restart poll: a later signal shortens one wait */
        fflush(NULL);
        _exit(128 + sig);
    }
    pthread_mutex_lock(&run_lock);
    fprintf(stderr, "\nxpubench: %s: stopping; writing the finished cases\n", signal_name(sig));
    xpb_run snap;
    int code = 128 + sig;
    if (!xpb_watch_snapshot(w->run, sig, w->cases_planned, &snap)) {
        fprintf(stderr, "xpubench: out of host memory: no results written\n");
    } else {
        int rc = w->write(w->user, &snap);
        if (rc)
            code = rc;
        free(snap.results);
    }
    fflush(NULL);
    _exit(code); /* the main thread may be inside a launch that lasts minutes: no cleanup waits for it */
}

static void *watch_main(void *arg)
{
    xpb_watch *w = arg;
    while (!atomic_load(&w->stop)) {
        struct pollfd p = {w->pipe[0], POLLIN, 0};
        int ready = poll(&p, 1, 1000);
        unsigned char sig = 0;
        if (atomic_load(&w->stop))
            break;
        if (ready > 0 && read(w->pipe[0], &sig, 1) == 1)
            interrupted(w, sig);
        else if (w->prog)
            xpb_progress_heartbeat(w->prog);
    }
    return NULL;
}

bool xpb_watch_start(xpb_watch *w, xpb_run *run, xpb_progress *prog, size_t cases_planned,
                     xpb_watch_write_fn write, void *user)
{
    memset(w, 0, sizeof *w);
    atomic_init(&w->stop, false);
    w->pipe[0] = w->pipe[1] = -1;
    w->run = run;
    w->prog = prog;
    w->cases_planned = cases_planned;
    w->write = write;
    w->user = user;
    if (pipe(w->pipe) != 0)
        return false;
    fcntl(w->pipe[1], F_SETFL, O_NONBLOCK); /* the handler never blocks */
    run->lock = &run_lock;
    signal_pipe = w->pipe[1];
    w->started = pthread_create(&w->thread, NULL, watch_main, w) == 0;
    if (!w->started) {
        run->lock = NULL;
        close(w->pipe[0]);
        close(w->pipe[1]);
        return false;
    }
    take_signals(true);
    return true;
}

void xpb_watch_stop(xpb_watch *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&run_lock); /* a signal being handled finishes (and ends the process) first */
    atomic_store(&w->stop, true);
    pthread_mutex_unlock(&run_lock);
    pthread_join(w->thread, NULL);
    w->run->lock = NULL;
    w->started = false;
    /* The handlers stay: a signal from here on, while the whole run's files are written, is
     * ignored rather than killing the process before it wrote them. No handler writes to the
     * pipe once it is closed. */
    signal_pipe = -1;
    close(w->pipe[0]);
    close(w->pipe[1]);
}
