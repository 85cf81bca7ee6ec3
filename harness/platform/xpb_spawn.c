/* xpb_spawn.c - fork, exec and wait (xpb_spawn.h). */
#define _POSIX_C_SOURCE 200809L
#include "xpb_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXEC_FAILED 127

bool xpb_program_exists(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char dir[4096];
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof dir, "%.*s/%s", (int)n, p, prog);
        if (n && access(dir, X_OK) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

/* xpb_spawn_wait, with the child's stdout and stderr appended to `log` when it is not NULL. */
static int spawn_wait(char *const argv[], const char *cwd, const char *log, xpb_error *err)
{
    if (!xpb_program_exists(argv[0])) {
        xpb_fail(err, XPB_ERR_UNAVAILABLE, "%s not found", argv[0]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        xpb_fail(err, XPB_ERR_RUNTIME, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int fd = log ? open(log, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
        if (log && (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)) {
            fprintf(stderr, "xpubench: cannot write %s: %s\n", log, strerror(errno));
            _exit(EXEC_FAILED);
        }
        if (cwd && chdir(cwd) != 0) {
            fprintf(stderr, "xpubench: cannot enter %s: %s\n", cwd, strerror(errno));
            _exit(EXEC_FAILED);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "xpubench: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(EXEC_FAILED);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            xpb_fail(err, XPB_ERR_RUNTIME, "waiting for %s: %s", argv[0], strerror(errno));
            return -1;
        }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int xpb_spawn_wait(char *const argv[], const char *cwd, xpb_error *err) { return spawn_wait(argv, cwd, NULL, err); }

int xpb_spawn_wait_log(char *const argv[], const char *log, xpb_error *err) { return spawn_wait(argv, NULL, log, err); }
