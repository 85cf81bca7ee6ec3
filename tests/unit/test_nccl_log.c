/* test_nccl_log.c - the transports read from NCCL's own log (backends/cuda/collectives/nccl_log.c),
 * without NCCL or a GPU: the tally of connection lines as NCCL 2.2x writes them, the log armed
 * through the environment only where the user set none of NCCL_DEBUG*, and the reasons given
 * where nothing can be read. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv, fork */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nccl_log.h"
#include "xpb_test.h"

/* Connection lines of P2P, the network and SHM (the formats of NCCL's transport/p2p.cc, net.cc
 * and shm.cc), and lines that are not connections (an init line, a channel without "via", a
 * WARN). */
static const char *sample =
    "h:1:2 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
    "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    "h:1:2 [1] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via P2P/CUMEM\n"
    "h:1:3 [1] NCCL INFO Channel 00/0 : 1[1] -> 3[1] [receive] via NET/IB/2/GDRDMA\n"
    "h:1:2 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    "h:1:3 [1] NCCL INFO Channel 01/0 : 3[1] -> 1[1] [send] via NET/IB/3/GDRDMA\n"
    "h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
    "h:1:2 [0] NCCL INFO Channel 00/24 : 0 1 2 3\n"
    "h:1:2 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n"
    "h:1:2 [0] misc.cc:1 NCCL WARN something via nothing\n";

static int tally_of(const char *text, char *out, size_t n)
{
    FILE *f = tmpfile();
    if (!f)
        return -1;
    fputs(text, f);
    rewind(f);
    const int lines = xpb_nccl_log_tally(f, out, n);
    fclose(f);
    return lines;
}

static void test_tally(void)
{
    char out[256];
    CHECK(tally_of(sample, out, sizeof out) == 6);
    CHECK(strcmp(out, "P2P/CUMEM 3, NET/IB 2, SHM/direct 1") == 0);
    CHECK(tally_of("h:1:2 [0] NCCL INFO Init COMPLETE\n", out, sizeof out) == 0);
    CHECK(out[0] == '\0');
    CHECK(tally_of("", out, sizeof out) == 0);
    /* a short buffer keeps whole entries only */
    char small[16];
    CHECK(tally_of(sample, small, sizeof small) == 6);
    CHECK(strcmp(small, "P2P/CUMEM 3") == 0);
}

/* The user's NCCL_DEBUG is left alone, and said to be why nothing is read (a child process:
 * arming happens once a process). */
static int child_user_debug(void)
{
    setenv("NCCL_DEBUG", "WARN", 1);
    unsetenv("NCCL_DEBUG_FILE");
    unsetenv("NCCL_DEBUG_SUBSYS");
    xpb_nccl_log_arm();
    char out[64];
    xpb_error why = {{0}};
    int ok = strcmp(getenv("NCCL_DEBUG"), "WARN") == 0 && !getenv("NCCL_DEBUG_FILE") &&
             !getenv("NCCL_DEBUG_SUBSYS") &&
             xpb_nccl_log_transports(out, sizeof out, &why) == XPB_ERR_UNAVAILABLE &&
             strstr(why.msg, "set by the user") != NULL;
    return ok ? 0 : 1;
}

static void test_armed(void)
{
    char out[256];
    xpb_error why = {{0}};
    CHECK(xpb_nccl_log_transports(out, sizeof out, &why) == XPB_ERR_UNAVAILABLE);
    CHECK(strstr(why.msg, "no device group") != NULL);

    unsetenv("NCCL_DEBUG");
    unsetenv("NCCL_DEBUG_FILE");
    unsetenv("NCCL_DEBUG_SUBSYS");
    xpb_nccl_log_arm();
    const char *path = getenv("NCCL_DEBUG_FILE");
    CHECK(path && getenv("NCCL_DEBUG") && strcmp(getenv("NCCL_DEBUG"), "INFO") == 0);
    CHECK(getenv("NCCL_DEBUG_SUBSYS") && strcmp(getenv("NCCL_DEBUG_SUBSYS"), "INIT") == 0);
    if (!path)
        return;
    char pid[32];
    snprintf(pid, sizeof pid, "-%ld.log", (long)getpid());
    CHECK(strstr(path, pid) != NULL);

    /* armed, NCCL has written nothing yet */
    CHECK(xpb_nccl_log_transports(out, sizeof out, &why) == XPB_ERR_UNAVAILABLE);
    /* NCCL's log as it stands after init, then after the first collective's connections */
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("h:1:2 [0] NCCL INFO Init COMPLETE\n", f);
    fflush(f);
    CHECK(xpb_nccl_log_transports(out, sizeof out, &why) == XPB_ERR_UNAVAILABLE);
    CHECK(strstr(why.msg, "first collective") != NULL);
    fputs(sample, f);
    fclose(f);
    CHECK(xpb_nccl_log_transports(out, sizeof out, &why) == XPB_OK);
    CHECK(strcmp(out, "P2P/CUMEM 3, NET/IB 2, SHM/direct 1") == 0);
    /* armed once: a second call changes nothing */
    xpb_nccl_log_arm();
    CHECK(strcmp(getenv("NCCL_DEBUG_FILE"), path) == 0);
}

int main(void)
{
    test_tally();
    pid_t child = fork();
    if (child == 0)
        _exit(child_user_debug());
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    test_armed();
    XPB_TEST_END();
}
