/* test_group_cpus.c - harness/run/xpb_group_cpus.h: a group's ranks get this process's CPU count
 * outside MPI (the affinity mask, as sched_getaffinity reads it), and the warning says what
 * starves a rank's host threads and nothing else: in one process fewer CPUs than ranks; under MPI
 * nothing (a rank on one core, Open MPI's binding at -np <= 2, measured no slower); unknown counts
 * (0) never warn. */
#include <string.h>

#include "xpb_group_cpus.h"
#include "xpb_sysinfo.h"
#include "xpb_test.h"

static xpb_group_layout layout(int n, const int *cpus)
{
    xpb_group_layout l;
    memset(&l, 0, sizeof l);
    l.n = n;
    for (int i = 0; i < n; i++)
        l.cpus[i] = cpus[i];
    return l;
}

int main(void)
{
    char w[256];
    xpb_error err = {{0}};
    xpb_group_layout l = layout(3, (const int[]){0, 0, 0});
    CHECK(xpb_group_cpus_read(&l, false, &err) == XPB_OK);
    const int mine = xpb_sysinfo_affinity_cpus();
    CHECK(mine >= 1 && l.cpus[0] == mine && l.cpus[1] == mine && l.cpus[2] == mine);

    /* under MPI: recorded, never warned about, one CPU or many */
    l = layout(2, (const int[]){1, 1});
    CHECK(xpb_group_cpus_warning(&l, true, w, sizeof w) == 0 && w[0] == '\0');
    l = layout(4, (const int[]){16, 1, 16, 16});
    CHECK(xpb_group_cpus_warning(&l, true, w, sizeof w) == 0);
    l = layout(2, (const int[]){2, 32});
    CHECK(xpb_group_cpus_warning(&l, true, w, sizeof w) == 0 && w[0] == '\0');
    l = layout(2, (const int[]){0, 0});
    CHECK(xpb_group_cpus_warning(&l, true, w, sizeof w) == 0);

    /* one process: a CPU a rank is enough, fewer is not */
    l = layout(4, (const int[]){2, 2, 2, 2});
    CHECK(xpb_group_cpus_warning(&l, false, w, sizeof w) > 0 && strncmp(w, "4 ranks of one process on 2 CPU(s)", 34) == 0);
    l = layout(4, (const int[]){4, 4, 4, 4});
    CHECK(xpb_group_cpus_warning(&l, false, w, sizeof w) == 0);
    l = layout(1, (const int[]){1});
    CHECK(xpb_group_cpus_warning(&l, false, w, sizeof w) == 0);

    /* a short buffer is cut, never overrun */
    char tiny[8];
    l = layout(2, (const int[]){1, 1});
    CHECK(xpb_group_cpus_warning(&l, false, tiny, sizeof tiny) > 0 && strlen(tiny) == 7);
    XPB_TEST_END();
}
