/* xpb_clock.h - the host clock (CLOCK_MONOTONIC, seconds) and UTC timestamps. */
#ifndef XPB_CLOCK_H
#define XPB_CLOCK_H

#include <stddef.h>

double xpb_clock_now(void);
/* "2026-11-22T05:30:00Z" into buf; compact: "20261122T053000Z". */
void xpb_clock_utc(char *buf, size_t n, int compact);

#endif
