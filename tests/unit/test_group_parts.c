/* test_group_parts.c - where a device group's download reads each byte (xpb_cuda_group_owner),
 * checked byte by byte against the rule it implements for 1 to 5 ranks, without a GPU: the parts
 * of the collectives (1-D, one per rank) and the column parts of the sharded GEMM (columns
 * [r C / P, (r+1) C / P) of a row-major matrix, the owner shifted by one for the gather variant),
 * including matrices with fewer columns than ranks, and the guard bytes around them (first rank
 * before, last rank after). Every run the download copies must hold one owner's bytes only and
 * the runs must tile the range. (On one GPU, the only device lent so far, P is 1 and none of
 * this is exercised on the device.) */
#include <stdlib.h>

#include "cuda_backend.h"
#include "xpb_test.h"

#define G 64 /* guard bytes before and after the matrix, as the runner's */

/* The rule, written out: rank r owns columns [first(r), first(r + 1)). */
static int column_owner(int64_t col, int p, int64_t cols)
{
    for (int r = 0; r < p; r++)
        if (col >= xpb_cuda_shard_first(r, p, cols) && col < xpb_cuda_shard_first(r + 1, p, cols))
            return r;
    return -1;
}

static int expected(const xpb_buffer *b, size_t at, int p)
{
    size_t total = b->part_rows ? (size_t)b->part_rows * (size_t)b->part_cols * 4 : b->part_bytes * (size_t)p;
    if (at < b->part_offset)
        return 0;
    if (at >= b->part_offset + total)
        return p - 1;
    size_t rel = at - b->part_offset;
    if (!b->part_rows)
        return (int)(rel / b->part_bytes);
    return (column_owner((int64_t)(rel % ((size_t)b->part_cols * 4)) / 4, p, b->part_cols) + b->part_shift) % p;
}

/* Walks [0, bytes) run by run as the download does; every byte's owner must be the rule's. */
static void walk(const xpb_buffer *b, size_t bytes, int p)
{
    int wrong = 0, empty = 0;
    for (size_t at = 0; at < bytes;) {
        size_t end = 0;
        int r = xpb_cuda_group_owner(b, at, bytes, &end);
        if (end <= at || end > bytes) {
            empty++;
            break;
        }
        for (size_t x = at; x < end; x++)
            wrong += expected(b, x, p) != r;
        at = end;
    }
    CHECK(empty == 0);
    CHECK(wrong == 0);
    if (wrong)
        fprintf(stderr, "  P=%d rows=%lld cols=%lld bytes=%zu shift=%d: %d bytes from the wrong rank\n", p,
                (long long)b->part_rows, (long long)b->part_cols, b->part_bytes, b->part_shift, wrong);
}

int main(void)
{
    static const int64_t shapes[][2] = {{1, 1}, {3, 5}, {2, 3}, {5, 2}, {4, 7}, {3, 257}};
    for (int p = 1; p <= 5; p++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int shift = 0; shift <= 1; shift++) {
                xpb_buffer b = {0};
                b.group_ranks = p;
                xpb_cuda_group_set_column_parts(&b, G, shapes[s][0], shapes[s][1], shift);
                walk(&b, G + (size_t)(shapes[s][0] * shapes[s][1]) * 4 + G, p);
            }
        for (size_t part = 4; part <= 20; part += 16) { /* 1-D parts of 1 and 5 floats */
            xpb_buffer b = {0};
            b.group_ranks = p;
            xpb_cuda_group_set_parts(&b, G, part);
            walk(&b, G + part * (size_t)p + G, p);
        }
        xpb_buffer none = {0}; /* no parts: everything from rank 0 */
        none.group_ranks = p;
        size_t end = 0;
        CHECK(xpb_cuda_group_owner(&none, 0, 100, &end) == 0 && end == 100);
    }
    /* the split: every column owned once, ranks beyond the columns own none */
    CHECK(xpb_cuda_shard_first(0, 4, 2) == 0 && xpb_cuda_shard_first(4, 4, 2) == 2);
    CHECK(column_owner(0, 4, 2) == 1 && column_owner(1, 4, 2) == 3);
    XPB_TEST_END();
}
