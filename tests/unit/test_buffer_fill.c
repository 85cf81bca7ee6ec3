/* test_buffer_fill.c - xpb_backend_i.buffer_fill, which poisons a case's outputs on the device
 * (harness/run/xpb_runner.c): on device 0 of every backend that has one and fills (lavapipe in
 * CI; the GPU's backends on the device machine), a buffer of an odd word count is uploaded with
 * distinct words, a range inside it is filled, and the download must hold the word exactly there
 * and the uploaded words everywhere else; an unaligned range is a one-line usage error. Exit 77
 * (skipped) when no backend here both has a device and fills. */
#include <stdint.h>
#include <stdlib.h>

#include "xpb_backend.h"
#include "xpb_test.h"

static void check_backend(const xpb_backend_i *b)
{
    xpb_error err = {{0}};
    void *ctx = NULL;
    if (b->open(0, &ctx, &err) != XPB_OK) {
        fprintf(stderr, "%s: cannot open device 0: %s\n", b->name, err.msg);
        CHECK(0);
        return;
    }
    const size_t words = 4099, lo = 3, hi = 4097; /* fill [lo, hi): odd ends, inside the buffer */
    uint32_t *host = malloc(words * 4), *back = malloc(words * 4);
    xpb_buffer *buf = NULL;
    CHECK(host && back);
    for (size_t i = 0; host && i < words; i++)
        host[i] = (uint32_t)i * 2654435761u;
    const uint32_t word = 0x7FC0DEADu;
    bool ok = host && back && b->buffer_alloc(ctx, words * 4, &buf, &err) == XPB_OK &&
              b->buffer_upload(ctx, buf, 0, host, words * 4, &err) == XPB_OK &&
              b->buffer_fill(ctx, buf, lo * 4, (hi - lo) * 4, word, &err) == XPB_OK &&
              b->buffer_download(ctx, buf, 0, back, words * 4, &err) == XPB_OK;
    if (!ok)
        fprintf(stderr, "%s: %s\n", b->name, err.msg);
    CHECK(ok);
    size_t wrong = 0;
    for (size_t i = 0; ok && i < words; i++)
        wrong += back[i] != (i >= lo && i < hi ? word : host[i]);
    CHECK(wrong == 0);
    /* not whole words: refused, the buffer untouched */
    xpb_error e2 = {{0}};
    CHECK(!buf || b->buffer_fill(ctx, buf, 2, 8, word, &e2) == XPB_ERR_USAGE);
    CHECK(!buf || b->buffer_fill(ctx, buf, 0, (words + 1) * 4, word, &e2) == XPB_ERR_USAGE);
    printf("%s: fill of words [%zu, %zu) of %zu: %zu wrong\n", b->name, lo, hi, words, wrong);
    if (buf)
        b->buffer_free(ctx, buf);
    b->close(ctx);
    free(host);
    free(back);
}

int main(void)
{
    int tried = 0;
    for (const xpb_backend_i *const *b = xpb_backends(); *b; b++) {
        xpb_error why = {{0}};
        if (!(*b)->buffer_fill || !(*b)->probe(&why) || (*b)->device_count() < 1)
            continue;
        check_backend(*b);
        tried++;
    }
    if (!tried) {
        printf("skipped: no backend here has a device and fills buffers\n");
        return 77;
    }
    XPB_TEST_END();
}
