/* xpb_isolate_record.c - see xpb_isolate_record.h. */
#define _POSIX_C_SOURCE 200809L
#include "xpb_isolate_record.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "XPBISO01": a record of this layout. With the size of xpb_result, it refuses the bytes of
 * another build (a different binary at the same path), which would otherwise be read as ours. */
#define RECORD_MAGIC 0x31304f5349425058ULL

typedef struct record_header {
    uint64_t magic;
    uint64_t result_bytes;
    uint64_t n[3]; /* kernel_samples, e2e_samples, units */
} record_header;

static xpb_status write_all(int fd, const void *p, size_t bytes, xpb_error *err)
{
    const char *c = p;
    while (bytes > 0) {
        ssize_t w = write(fd, c, bytes);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return xpb_fail(err, XPB_ERR_IO, "isolated case: cannot send: %s", strerror(errno));
        c += w;
        bytes -= (size_t)w;
    }
    return XPB_OK;
}

xpb_status xpb_isolate_record_write(int fd, const xpb_result *r, xpb_error *err)
{
    const xpb_samples *s[3] = {&r->kernel_samples, &r->e2e_samples, &r->units};
    record_header h = {.magic = RECORD_MAGIC, .result_bytes = sizeof *r};
    for (int i = 0; i < 3; i++)
        h.n[i] = s[i]->n;
    xpb_status st = write_all(fd, &h, sizeof h, err);
    if (!st)
        st = write_all(fd, r, sizeof *r, err);
    for (int i = 0; i < 3 && !st; i++)
        st = write_all(fd, s[i]->v, s[i]->n * sizeof *s[i]->v, err);
    return st;
}

xpb_status xpb_isolate_record_read(const void *buf, size_t len, xpb_result *r, xpb_error *err)
{
    record_header h;
    size_t want = sizeof h + sizeof *r;
    if (len >= sizeof h)
        memcpy(&h, buf, sizeof h);
    if (len < want || h.magic != RECORD_MAGIC || h.result_bytes != sizeof *r)
        return xpb_fail(err, XPB_ERR_IO, "not a whole result (%zu bytes)", len);
    for (int i = 0; i < 3; i++) {
        if (h.n[i] > (SIZE_MAX - want) / sizeof(double))
            return xpb_fail(err, XPB_ERR_IO, "not a whole result (%zu bytes)", len);
        want += (size_t)h.n[i] * sizeof(double);
    }
    if (len != want)
        return xpb_fail(err, XPB_ERR_IO, "not a whole result (%zu of %zu bytes)", len, want);
    xpb_samples got[3] = {{0}};
    const char *at = (const char *)buf + sizeof h + sizeof *r;
    for (int i = 0; i < 3; i++) {
        size_t bytes = (size_t)h.n[i] * sizeof(double);
        if (bytes && !(got[i].v = malloc(bytes))) {
            for (int j = 0; j < i; j++)
                xpb_samples_free(&got[j]);
            return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for an isolated case's result");
        }
        if (bytes)
            memcpy(got[i].v, at, bytes);
        got[i].n = got[i].capacity = (size_t)h.n[i];
        at += bytes;
    }
    /* the receiver's own pointers: the case (its workload, input and preset), device and kernel */
    xpb_case c = r->c;
    const xpb_device *dev = r->device;
    const xpb_kernel *ran = r->ran;
    memcpy(r, (const char *)buf + sizeof h, sizeof *r);
    r->c = c;
    r->device = dev;
    r->ran = ran;
    r->kernel_samples = got[0];
    r->e2e_samples = got[1];
    r->units = got[2];
    memset(&r->run, 0, sizeof r->run); /* one-shot cases only: no outcome, none of its arrays */
    r->settled = false;
    return XPB_OK;
}

xpb_status xpb_isolate_info_write(int fd, const xpb_device_info *info, xpb_error *err)
{
    return write_all(fd, info, sizeof *info, err);
}

xpb_status xpb_isolate_info_read(int fd, xpb_device_info *info, xpb_error *err)
{
    char *p = (char *)info;
    for (size_t got = 0; got < sizeof *info;) {
        ssize_t r = read(fd, p + got, sizeof *info - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return xpb_fail(err, XPB_ERR_IO, "isolated case: the device's description did not arrive whole");
        got += (size_t)r;
    }
    return XPB_OK;
}
