/* xpb_isolate.c - see xpb_isolate.h. */
#define _GNU_SOURCE /* SOCK_CLOEXEC */
#include "xpb_isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xpb_clock.h"
#include "xpb_isolate_record.h"
#include "xpb_source.h"

const char *xpb_isolate_name(int mode)
{
    return mode == XPB_ISOLATE_ALL ? "all" : mode == XPB_ISOLATE_PLUGINS ? "plugins" : "off";
}

/* A kernel of the backend's own list; the others came from a plugin (xpb_backend_kernels_for). */
static bool builtin(const xpb_backend_i *b, const xpb_kernel *k)
{
    for (const xpb_kernel *const *own = b->kernels; own && *own; own++)
        if (*own == k)
            return true;
    return false;
}

bool xpb_isolate_applies(const xpb_run_config *cfg, const xpb_device *dev, const xpb_kernel *k, const xpb_case *c)
{
    if (c->workload->run || dev->n_group)
        return false;
    return cfg->isolate == XPB_ISOLATE_ALL || (cfg->isolate == XPB_ISOLATE_PLUGINS && !builtin(dev->backend, k));
}

/* ---- the case's process ------------------------------------------------------------------------ */

#define MAX_ARGS 256
#define ARG_TEXT 8192

/* The command of the case's process into argv (room for MAX_ARGS) and text: this binary, `run`,
 * the run's own arguments, then the ones that pin it to this case (a later option wins over the
 * run's). false when they do not fit. */
static bool child_argv(const xpb_device *dev, const xpb_kernel *k, const xpb_case *c, const xpb_run_config *cfg,
                       int fd, char **argv, char *text, size_t size)
{
    size_t used = 0;
    int n = 0;
    char exe[4096];
    xpb_self_path(exe, sizeof exe);
    char rounds[16], reps[16], min_time[40], warmup[40], fds[16];
    snprintf(rounds, sizeof rounds, "%d", cfg->rounds > 0 ? cfg->rounds : 1);
    snprintf(reps, sizeof reps, "%d", cfg->repetitions > 0 ? cfg->repetitions : 1);
    snprintf(min_time, sizeof min_time, "%.17g", cfg->min_time);
    snprintf(warmup, sizeof warmup, "%.17g", cfg->warmup_time);
    snprintf(fds, sizeof fds, "%d", fd);
    const char *pin[] = {"--backend", dev->label, "--variant", k->variant, "--preset", c->preset ? c->preset : cfg->preset,
                         "--rounds", rounds, "--repetitions", reps, "--min-time", min_time, "--warmup", warmup,
                         "--isolated-case", c->id, "--isolated-fd", fds};
    size_t n_pin = sizeof pin / sizeof pin[0];
    if ((size_t)cfg->run_argc + n_pin + 3 > MAX_ARGS)
        return false;
    const char *all[MAX_ARGS];
    all[n++] = exe;
    all[n++] = "run";
    for (int i = 0; i < cfg->run_argc; i++)
        all[n++] = cfg->run_argv[i];
    for (size_t i = 0; i < n_pin; i++)
        all[n++] = pin[i];
    for (int i = 0; i < n; i++) { /* copied: exec takes writable strings */
        size_t len = strlen(all[i]) + 1;
        if (used + len > size)
            return false;
        argv[i] = memcpy(text + used, all[i], len);
        used += len;
    }
    argv[n] = NULL;
    return true;
}

/* Forks and execs argv with fd (the case's end of the socket) kept open across the exec. Between fork
 * and exec only async-signal-safe calls: the run has other threads (the watcher, OpenMP's). */
static pid_t spawn(char **argv, int fd)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* the case dies with the run, even when the run is killed with SIGKILL */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
    if (fcntl(fd, F_SETFD, 0) != 0)
        _exit(127);
    execv(argv[0], argv);
    _exit(127);
}

static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGABRT, "SIGABRT"}, {SIGFPE, "SIGFPE"},
                 {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
                 {SIGHUP, "SIGHUP"},   {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return NULL;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Waits for pid until `deadline` (xpb_clock_now; 0: no deadline). false when it is still running. */
static bool wait_until(pid_t pid, double deadline, int *status)
{
    for (double nap = 1e-4;; nap = nap < 0.02 ? nap * 2 : nap) {
        pid_t got = waitpid(pid, status, deadline > 0 ? WNOHANG : 0);
        if (got == pid)
            return true;
        if (got < 0 && errno != EINTR) {
            *status = 0;
            return true; /* not our child any more: nothing to wait for */
        }
        if (deadline > 0 && xpb_clock_now() >= deadline)
            return false;
        if (got == 0)
            sleep_s(nap);
    }
}

/* Ends a case past its time: SIGTERM, then SIGKILL after the grace period. */
static void stop(pid_t pid, int *status)
{
    kill(pid, SIGTERM);
    if (!wait_until(pid, xpb_clock_now() + XPB_ISOLATE_GRACE_S, status)) {
        kill(pid, SIGKILL);
        wait_until(pid, 0, status);
    }
}

typedef struct growing {
    char *p;
    size_t n, cap;
} growing;

/* Reads fd to its end into b, until `deadline` (0: none). false on a timeout. A read error ends
 * the reading: the record is then incomplete, which the caller reports. */
static bool read_all(int fd, double deadline, growing *b)
{
    for (;;) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - xpb_clock_now();
            if (left <= 0)
                return false;
            ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            continue; /* the deadline is checked above */
        if (ready < 0)
            return true;
        if (b->n == b->cap) {
            size_t cap = b->cap ? b->cap * 2 : 65536;
            char *p = realloc(b->p, cap);
            if (!p)
                return true;
            b->p = p;
            b->cap = cap;
        }
        ssize_t got = read(fd, b->p + b->n, b->cap - b->n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return true;
        b->n += (size_t)got;
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail(xpb_result *r, const char *fmt, ...)
{
    r->status = XPB_CASE_ERROR;
    r->validated = r->timed = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

void xpb_isolate_run(const xpb_device *dev, const xpb_kernel *k, const xpb_case *c, const xpb_run_config *cfg,
                     xpb_result *r)
{
    double t0 = xpb_clock_now();
    r->isolated = true;
    int fds[2]; /* [0] the run's end, [1] the case's */
    xpb_error err = {{0}};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        fail(r, "isolated case: no socket to its process: %s", strerror(errno));
        return;
    }
    if (xpb_isolate_info_write(fds[0], &dev->info, &err)) { /* fits the socket's buffer: sent before it starts */
        close(fds[0]);
        close(fds[1]);
        fail(r, "%s", err.msg);
        return;
    }
    char *argv[MAX_ARGS], text[ARG_TEXT];
    bool fits = child_argv(dev, k, c, cfg, fds[1], argv, text, sizeof text);
    pid_t pid = fits ? spawn(argv, fds[1]) : -1;
    int spawn_errno = errno;
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        fail(r, "isolated case: cannot start its process: %s", fits ? strerror(spawn_errno) : "command too long");
        return;
    }
    double deadline = cfg->case_timeout > 0 ? t0 + cfg->case_timeout : 0;
    growing got = {0};
    int status = 0;
    bool in_time = read_all(fds[0], deadline, &got) && wait_until(pid, deadline, &status);
    close(fds[0]);
    if (!in_time) {
        stop(pid, &status);
        fail(r, "timed out after %g s (--case-timeout): its process was stopped", cfg->case_timeout);
    } else if (WIFSIGNALED(status)) {
        const char *name = signal_name(WTERMSIG(status));
        if (name)
            fail(r, "killed by %s", name);
        else
            fail(r, "killed by signal %d", WTERMSIG(status));
    } else {
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code != 0)
            fail(r, "its process exited with status %d without a result (its stderr says why)", code);
        else if (xpb_isolate_record_read(got.p, got.n, r, &err))
            fail(r, "its process exited with status 0 without a whole result: %s", err.msg);
        r->isolated = true; /* the record's bytes are the process's own result, which was not */
    }
    free(got.p);
}
