/* xpb_watch.h - the run's watcher: a thread beside the run that turns Ctrl-C, SIGTERM and SIGHUP
 * into a results file of the finished cases, and keeps the progress alive while a long case runs.
 *
 * Why a thread: a signal may come while one launch runs for minutes (a 4096^3 GEMM on a software
 * Vulkan device), and nothing that writes a file may run inside a signal handler. The handler only
 * writes the signal's number into a pipe (the one async-signal-safe thing it needs; any thread may
 * run it: libraries such as OpenBLAS start threads before main, so the signals cannot be kept to
 * one thread by masks). The watcher reads the pipe, takes the run's lock (xpb_run.lock: the runner
 * holds it only while it adds or changes a result), writes the settled results through the
 * caller's callback, marked incomplete, and ends the process with 128 + the signal's number. Every
 * second without a signal it lets the progress print its heartbeat (xpb_progress_heartbeat). */
#ifndef XPB_WATCH_H
#define XPB_WATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "xpb_progress.h"
#include "xpb_result_record.h"

/* Under MPI a process other than rank 0 (which writes the results) waits this long after a stop
 * signal before it ends, so that its end does not make the launcher end rank 0 before rank 0 has
 * written (Open MPI's mpirun sends SIGKILL a grace period after its SIGTERM anyway). */
#define XPB_WATCH_LINGER_S 30

/* Writes what an interrupted run has (a snapshot of its settled results, run->interrupted set);
 * returns the process's exit code. Called on the watcher thread, with the run's lock held. */
typedef int (*xpb_watch_write_fn)(void *user, xpb_run *snapshot);

typedef struct xpb_watch {
    pthread_t thread;
    bool started;
    int pipe[2]; /* the handler writes a signal's number, the watcher reads it */
    atomic_bool stop;     /* set by xpb_watch_stop */
    xpb_run *run;         /* its lock guards results[] */
    xpb_progress *prog;   /* heartbeat; may be NULL */
    size_t cases_planned;
    xpb_watch_write_fn write;
    void *user;
} xpb_watch;

/* Starts the watcher over run (whose lock it sets up) and takes SIGINT, SIGTERM and SIGHUP.
 * false: no watcher (the run goes on without one; a signal then ends it as before, no file). */
bool xpb_watch_start(xpb_watch *w, xpb_run *run, xpb_progress *prog, size_t cases_planned,
                     xpb_watch_write_fn write, void *user);
/* The run is over: the watcher stops. A signal from here on is ignored, so that the whole run's
 * files get written (each atomically: xpb_file_begin writes a temporary and renames it). */
void xpb_watch_stop(xpb_watch *w);

/* The settled results of run, copied (shallow: their samples stay run's) into snapshot, marked
 * interrupted by signal sig; free snapshot->results. Exposed for the tests. */
bool xpb_watch_snapshot(const xpb_run *run, int sig, size_t cases_planned, xpb_run *snapshot);

#endif
