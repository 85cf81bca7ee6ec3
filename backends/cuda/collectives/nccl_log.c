/* nccl_log.c - NCCL's own word on its transports (nccl_log.h). Each connection NCCL makes logs a
 * line such as
 *   host:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
 *   host:123:456 [1] NCCL INFO Channel 01/0 : 3[1] -> 1[1] [send] via NET/IB/2/GDRDMA
 *   host:123:456 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct
 * (NCCL's transport/p2p.cc, net.cc, shm.cc, subsystem INIT). The tally keeps the transport and its
 * kind (P2P/CUMEM, NET/Socket, SHM/direct): the NIC index and the read/write mode vary by channel. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "nccl_log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XPB_NCCL_LOG_KINDS 16

static char log_path[512];
static const char *not_armed = "not read yet: no device group opened in this process";

static void remove_log(void)
{
    if (log_path[0])
        remove(log_path);
}

void xpb_nccl_log_arm(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    /* A user who set any of these reads NCCL's log themselves; NCCL_DEBUG=INFO over their
     * NCCL_DEBUG_SUBSYS (COLL: a line a collective) would change what is timed. */
    if (getenv("NCCL_DEBUG") || getenv("NCCL_DEBUG_SUBSYS") || getenv("NCCL_DEBUG_FILE")) {
        not_armed = "not read: NCCL_DEBUG, NCCL_DEBUG_SUBSYS or NCCL_DEBUG_FILE is set by the user";
        return;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(log_path, sizeof log_path, "%s/xpubench-nccl-%ld.log", tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
    if (setenv("NCCL_DEBUG_FILE", log_path, 1) || setenv("NCCL_DEBUG_SUBSYS", "INIT", 1) ||
        setenv("NCCL_DEBUG", "INFO", 1)) {
        log_path[0] = '\0';
        not_armed = "not read: the environment could not be set";
        return;
    }
    atexit(remove_log);
}

/* The transport of one log line: the first two '/'-separated fields after " via " (up to a
 * space), or "" when the line is not a connection. */
static void line_transport(const char *line, char *kind, size_t n)
{
    kind[0] = '\0';
    if (!strstr(line, "NCCL INFO Channel "))
        return;
    const char *v = strstr(line, " via ");
    if (!v)
        return;
    v += 5;
    size_t len = strcspn(v, " \t\r\n");
    const char *slash = memchr(v, '/', len);
    if (slash) {
        const char *second = memchr(slash + 1, '/', len - (size_t)(slash + 1 - v));
        if (second)
            len = (size_t)(second - v);
    }
    if (len == 0 || len >= n)
        return;
    memcpy(kind, v, len);
    kind[len] = '\0';
}

int xpb_nccl_log_tally(FILE *log, char *out, size_t n)
{
    char kinds[XPB_NCCL_LOG_KINDS][48];
    int counts[XPB_NCCL_LOG_KINDS] = {0}, m = 0, lines = 0;
    char line[1024], kind[48];
    while (fgets(line, sizeof line, log)) {
        line_transport(line, kind, sizeof kind);
        if (!kind[0])
            continue;
        lines++;
        int k = 0;
        while (k < m && strcmp(kinds[k], kind) != 0)
            k++;
        if (k == m) {
            if (m == XPB_NCCL_LOG_KINDS)
                continue; /* counted as a line, its kind past the table: "+ others" below */
            snprintf(kinds[m++], sizeof kinds[0], "%s", kind);
        }
        counts[k]++;
    }
    out[0] = '\0';
    size_t used = 0;
    int listed = 0;
    for (int done = 0; done < m; done++) { /* most first; ties in order of appearance */
        int best = -1;
        for (int k = 0; k < m; k++)
            if (counts[k] > 0 && (best < 0 || counts[k] > counts[best]))
                best = k;
        int w = snprintf(out + used, n - used, "%s%s %d", used ? ", " : "", kinds[best], counts[best]);
        if (w < 0 || (size_t)w >= n - used) {
            out[used] = '\0'; /* whole entries only */
            break;
        }
        used += (size_t)w;
        listed += counts[best];
        counts[best] = 0;
    }
    if (listed < lines) {
        int w = snprintf(out + used, n - used, "%s%d others", used ? ", " : "", lines - listed);
        if (w < 0 || (size_t)w >= n - used)
            out[used] = '\0';
    }
    return lines;
}

xpb_status xpb_nccl_log_transports(char *out, size_t n, xpb_error *why)
{
    out[0] = '\0';
    if (!log_path[0])
        return xpb_fail(why, XPB_ERR_UNAVAILABLE, "%s", not_armed);
    FILE *f = fopen(log_path, "r");
    if (!f)
        return xpb_fail(why, XPB_ERR_UNAVAILABLE, "not read: NCCL wrote no log at %s", log_path);
    const int lines = xpb_nccl_log_tally(f, out, n);
    fclose(f);
    if (lines == 0)
        return xpb_fail(why, XPB_ERR_UNAVAILABLE, "none yet: NCCL connects its ranks at their first collective");
    return XPB_OK;
}
