/* test_team.c - the thread team of harness/platform/xpb_team.h: every member runs every job once,
 * sees what the caller wrote before the job and is seen by it after (spinning and sleeping
 * members alike), the lowest failing member's error is the job's, and a bad size is a usage
 * error. Run under ThreadSanitizer where the build has it (the ASan CI job runs it too). */
#include <stdatomic.h>
#include <string.h>

#include "xpb_team.h"
#include "xpb_test.h"

typedef struct job {
    int round;        /* written by the caller before each job */
    int seen[64];     /* each member copies round here */
    atomic_int calls; /* every member's calls, all jobs */
    int fail_from;    /* members >= fail_from fail (or none: 64) */
} job;

static xpb_status part(void *user, int m, xpb_error *err)
{
    job *j = user;
    j->seen[m] = j->round;
    atomic_fetch_add(&j->calls, 1);
    if (m >= j->fail_from)
        return xpb_fail(err, XPB_ERR_RUNTIME, "member %d failed", m);
    return XPB_OK;
}

static void test_jobs(int n, unsigned spin_us, int jobs)
{
    xpb_team *t = NULL;
    xpb_error err = {{0}};
    CHECK(xpb_team_open(n, spin_us, &t, &err) == XPB_OK && t && xpb_team_size(t) == n);
    if (!t)
        return;
    job j = {.fail_from = 64};
    atomic_init(&j.calls, 0);
    int wrong = 0;
    for (int r = 1; r <= jobs; r++) {
        j.round = r;
        if (xpb_team_run(t, part, &j, &err) != XPB_OK)
            wrong++;
        for (int m = 0; m < n; m++)
            wrong += j.seen[m] != r; /* every member's write of this job is visible here */
    }
    CHECK(wrong == 0);
    CHECK(atomic_load(&j.calls) == n * jobs);
    xpb_team_close(t);
}

static void test_errors(void)
{
    xpb_team *t = NULL;
    xpb_error err = {{0}};
    CHECK(xpb_team_open(4, 50, &t, &err) == XPB_OK);
    job j = {.fail_from = 2};
    atomic_init(&j.calls, 0);
    CHECK(xpb_team_run(t, part, &j, &err) == XPB_ERR_RUNTIME && strcmp(err.msg, "member 2 failed") == 0);
    j.fail_from = 64; /* the next job starts clean */
    err.msg[0] = '\0';
    CHECK(xpb_team_run(t, part, &j, &err) == XPB_OK && err.msg[0] == '\0');
    j.fail_from = 0;
    CHECK(xpb_team_run(t, part, &j, &err) == XPB_ERR_RUNTIME && strcmp(err.msg, "member 0 failed") == 0);
    xpb_team_close(t);

    CHECK(xpb_team_open(0, 0, &t, &err) == XPB_ERR_USAGE && t == NULL);
    CHECK(xpb_team_open(65, 0, &t, &err) == XPB_ERR_USAGE && t == NULL);
    xpb_team_close(NULL);
}

int main(void)
{
    test_jobs(1, 0, 100);
    test_jobs(2, 0, 2000);    /* members sleep between jobs */
    test_jobs(4, 0, 2000);
    test_jobs(4, 200, 2000);  /* members spin, then sleep where the caller is late */
    test_jobs(5, 100000, 100); /* members spin through every gap (on 2 cores: slower, still right) */
    test_errors();
    XPB_TEST_END();
}
