/* xpb_power.h - samples a device's board power on a background thread while a case is timed. */
#ifndef XPB_POWER_H
#define XPB_POWER_H

#include <pthread.h>
#include <stdbool.h>

#include "xpb_result_record.h"

typedef struct xpb_power_sampler {
    const xpb_device *dev;
    pthread_t thread;
    bool running;
    volatile int stop;
    double sum, max;
    int n;
    xpb_error err;
    xpb_status st;
} xpb_power_sampler;

/* Starts sampling dev's power every 10 ms. Returns false (with the reason in s->err) when the
 * backend has no power sensor or the first reading fails; nothing runs then. */
bool xpb_power_start(xpb_power_sampler *s, const xpb_device *dev);
/* Stops the thread and writes the average, maximum and count (or the reason) into r. */
void xpb_power_stop(xpb_power_sampler *s, xpb_result *r);

#endif
