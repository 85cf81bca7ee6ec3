/* xpb_clock.c - see xpb_clock.h. */
#define _POSIX_C_SOURCE 200809L
#include "xpb_clock.h"

#include <time.h>

double xpb_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void xpb_clock_utc(char *buf, size_t n, int compact)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}
