/* xpb_power.c - see xpb_power.h. */
#define _POSIX_C_SOURCE 200809L
#include "xpb_power.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define PERIOD_NS 10000000L /* 10 ms: NVML's power reading itself updates about every 20-100 ms */

static void *sample_loop(void *arg)
{
    xpb_power_sampler *s = arg;
    const struct timespec period = {0, PERIOD_NS};
    while (!s->stop) {
        double w;
        xpb_status st = s->dev->backend->power_watts(s->dev->ctx, &w, &s->err);
        if (st) {
            s->st = st;
            break;
        }
        s->sum += w;
        s->max = w > s->max ? w : s->max;
        s->n++;
        nanosleep(&period, NULL);
    }
    return NULL;
}

bool xpb_power_start(xpb_power_sampler *s, const xpb_device *dev)
{
    memset(s, 0, sizeof *s);
    s->dev = dev;
    if (!dev->backend->power_watts) {
        xpb_fail(&s->err, XPB_ERR_UNSUPPORTED, "the %s backend has no power sensor", dev->backend->name);
        return false;
    }
    double w;
    if ((s->st = dev->backend->power_watts(dev->ctx, &w, &s->err)) != XPB_OK)
        return false;
    s->running = pthread_create(&s->thread, NULL, sample_loop, s) == 0;
    if (!s->running)
        xpb_fail(&s->err, XPB_ERR_RUNTIME, "cannot start the power sampling thread");
    return s->running;
}

void xpb_power_stop(xpb_power_sampler *s, xpb_result *r)
{
    if (s->running) {
        s->stop = 1;
        pthread_join(s->thread, NULL);
        s->running = false;
    }
    if (s->n > 0 && s->st == XPB_OK) {
        r->power_sampled = true;
        r->power_avg_w = s->sum / s->n;
        r->power_max_w = s->max;
        r->power_samples = s->n;
    } else {
        snprintf(r->power_note, sizeof r->power_note, "%.150s", s->err.msg[0] ? s->err.msg : "no reading");
    }
}
