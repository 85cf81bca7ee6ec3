/* xpb_progress.c - see xpb_progress.h. */
#include "xpb_progress.h"

#include <stdio.h>

#include "xpb_clock.h"

void xpb_progress_begin(xpb_progress *p, size_t total, bool tty, bool quiet)
{
    p->quiet = quiet;
    p->total = total;
    p->index = 0;
    p->t0 = xpb_clock_now();
    p->tty = tty;
    p->current = NULL;
}

void xpb_progress_start_case(xpb_progress *p, size_t index, const xpb_case *c)
{
    p->index = index;
    p->current = c;
    if (!p->tty || p->quiet)
        return;
    double el = xpb_clock_now() - p->t0;
    double eta = index ? el / (double)index * (double)(p->total - index) : 0;
    fprintf(stderr, "\r\033[K[%zu/%zu] %.0fs elapsed, ETA %.0fs  %s", index + 1, p->total, el, eta,
            c->id);
    fflush(stderr);
}

void xpb_progress_case(xpb_progress *p, const xpb_result *r)
{
    if (p->quiet || (p->tty && r->status == XPB_CASE_OK))
        return;
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
}

void xpb_progress_end(xpb_progress *p)
{
    if (p->tty && !p->quiet)
        fprintf(stderr, "\r\033[K%zu cases in %.1f s\n", p->total, xpb_clock_now() - p->t0);
}
