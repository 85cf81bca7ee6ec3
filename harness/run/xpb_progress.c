/* xpb_progress.c - see xpb_progress.h. */
#include "xpb_progress.h"

#include <stdio.h>

#include "xpb_clock.h"
#include "xpb_names.h"

void xpb_progress_duration(char *buf, size_t n, double s)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, n, "%lds", t);
}

void xpb_progress_begin(xpb_progress *p, size_t total, int rounds, bool tty, bool quiet)
{
    pthread_mutex_init(&p->mu, NULL);
    p->quiet = quiet;
    p->total = total;
    p->index = 0;
    p->rounds = rounds > 1 ? rounds : 1;
    p->round = 1;
    p->units_total = total * (size_t)p->rounds;
    p->units_done = 0;
    p->t0 = p->case_t0 = p->last_status = xpb_clock_now();
    p->tty = tty;
    p->current = NULL;
    p->where[0] = 0;
}

/* "[12/137] 3m05s elapsed, about 21m left" (the estimate once a unit is done). Caller holds mu. */
static void status_prefix(const xpb_progress *p, char *buf, size_t n)
{
    double now = xpb_clock_now(), el = now - p->t0;
    char e[32], left[32];
    xpb_progress_duration(e, sizeof e, el);
    if (p->units_done == 0) {
        snprintf(buf, n, "[%zu/%zu] %s elapsed", p->index + 1, p->total, e);
        return;
    }
    double rest = el / (double)p->units_done * (double)(p->units_total - p->units_done);
    xpb_progress_duration(left, sizeof left, rest);
    snprintf(buf, n, "[%zu/%zu] %s elapsed, about %s left", p->index + 1, p->total, e, left);
}

/* The terminal's one line: where the run is and what runs now. Caller holds mu. */
static void redraw(xpb_progress *p)
{
    char pre[96];
    status_prefix(p, pre, sizeof pre);
    fprintf(stderr, "\r\033[K%s  %s%s%s", pre, p->where, p->where[0] ? " " : "", p->current ? p->current->id : "");
    if (p->rounds > 1 && p->round > 1)
        fprintf(stderr, " (round %d of %d)", p->round, p->rounds);
    fflush(stderr);
}

void xpb_progress_start_case(xpb_progress *p, size_t index, const xpb_case *c)
{
    pthread_mutex_lock(&p->mu);
    p->index = index;
    p->current = c;
    p->round = 1;
    p->where[0] = 0;
    p->case_t0 = xpb_clock_now();
    if (p->tty && !p->quiet)
        redraw(p);
    pthread_mutex_unlock(&p->mu);
}

void xpb_progress_start_variant(xpb_progress *p, const xpb_case *c, const char *device, const char *variant,
                                int round)
{
    pthread_mutex_lock(&p->mu);
    p->current = c;
    snprintf(p->where, sizeof p->where, "%s %s", device, variant);
    p->round = round;
    p->case_t0 = xpb_clock_now();
    pthread_mutex_unlock(&p->mu);
}

void xpb_progress_unit(xpb_progress *p)
{
    pthread_mutex_lock(&p->mu);
    if (p->units_done < p->units_total)
        p->units_done++;
    pthread_mutex_unlock(&p->mu);
}

void xpb_progress_case(xpb_progress *p, const xpb_result *r)
{
    if (p->quiet || (p->tty && r->status == XPB_CASE_OK))
        return;
    pthread_mutex_lock(&p->mu);
    if (p->tty)
        fprintf(stderr, "\r\033[K");
    fprintf(stderr, "[%zu/%zu] %-8s %-10s %-52s %s", p->index + 1, p->total, r->device->label,
            r->variant, r->c.id, xpb_case_status_name(r->status));
    if (r->timed)
        fprintf(stderr, "  %.3f us", r->kernel.median * 1e6);
    if (r->message[0])
        fprintf(stderr, "  (%s)", r->message);
    fputc('\n', stderr);
    fputs(r->dump_note, stderr);
    if (r->status == XPB_CASE_FAILED_VALIDATION)
        for (int i = 0; i < r->validation.n_mismatches; i++) {
            const xpb_mismatch *m = &r->validation.mismatches[i];
            fprintf(stderr, "    [%lld] got %.9g, reference %.9g, tolerance %.3g\n",
                    (long long)m->index, m->value, m->reference, m->tolerance);
        }
    pthread_mutex_unlock(&p->mu);
}

void xpb_progress_heartbeat(xpb_progress *p)
{
    if (p->quiet)
        return;
    pthread_mutex_lock(&p->mu);
    double now = xpb_clock_now();
    if (p->tty) {
        redraw(p); /* the elapsed time and the estimate move every second */
    } else if (now - p->last_status >= XPB_PROGRESS_HEARTBEAT_S && p->current) {
        char pre[96], running[32];
        status_prefix(p, pre, sizeof pre);
        xpb_progress_duration(running, sizeof running, now - p->case_t0);
        fprintf(stderr, "%s  running %s%s%s for %s", pre, p->where, p->where[0] ? " " : "", p->current->id,
                running);
        if (p->rounds > 1)
            fprintf(stderr, " (round %d of %d)", p->round, p->rounds);
        fputc('\n', stderr);
        p->last_status = now;
    }
    pthread_mutex_unlock(&p->mu);
}

void xpb_progress_end(xpb_progress *p)
{
    if (p->quiet)
        return;
    pthread_mutex_lock(&p->mu);
    char e[32];
    xpb_progress_duration(e, sizeof e, xpb_clock_now() - p->t0);
    if (p->tty)
        fprintf(stderr, "\r\033[K");
    fprintf(stderr, "%zu cases in %s\n", p->total, e);
    p->current = NULL;
    pthread_mutex_unlock(&p->mu);
}
