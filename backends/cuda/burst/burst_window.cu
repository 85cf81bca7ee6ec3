/* burst_window.cu - the sharded burst's gathered bits on an NCCL symmetric window (burst_window.h).
 *
 * Why: a burst's exchange at 5M neurons is 625 KB gathered, a latency, not bytes; NCCL's all_gather
 * on a buffer registered as a symmetric window takes 8.95 us on 4 x H200 against 11.58 in place on
 * an ordinary buffer (tests/exchange_peak.cu, docs/multi-gpu.md). The buffers outlive a run (a
 * registration is a collective call and an allocation through cuMem): one a communicator, grown
 * when a run needs more, freed when the group closes. */
#include <mutex>
#include <string.h>

#include "burst_window.h"
#include "cuda_nccl.h"

#define XPB_WINDOW_SLOTS 64 /* communicators with a window at once (groups x local ranks) */

#if defined(NCCL_WIN_COLL_SYMMETRIC)
typedef struct window_entry {
    struct ncclComm *comm; /* the rank's communicator: the key; NULL: free slot */
    int device;
    void *buf;
    size_t bytes;
    ncclWindow_t win;
} window_entry;

static std::mutex window_lock;
static window_entry windows[XPB_WINDOW_SLOTS];

static window_entry *window_find(struct ncclComm *comm)
{
    for (int i = 0; i < XPB_WINDOW_SLOTS; i++)
        if (windows[i].comm == comm)
            return &windows[i];
    return NULL;
}

/* Deregisters (one NCCL group over g's local ranks: a collective call) and frees g's windows. */
static xpb_status window_release(const xpb_cuda_ctx *g, xpb_error *err)
{
    const int local = xpb_cuda_group_local(g);
    xpb_status st = XPB_OK;
    ncclResult_t nr = ncclGroupStart();
    for (int l = 0; l < local && nr == ncclSuccess; l++) {
        window_entry *e = window_find(xpb_cuda_group_comm(g, l));
        if (e && e->win) {
            (void)cudaSetDevice(e->device);
            nr = ncclCommWindowDeregister(e->comm, e->win);
        }
    }
    const ncclResult_t end = ncclGroupEnd();
    if (nr == ncclSuccess)
        nr = end;
    if (nr != ncclSuccess)
        st = xpb_nccl_fail(err, nr, "ncclCommWindowDeregister(burst/sharded bits)", __FILE__, __LINE__);
    for (int l = 0; l < local; l++) {
        window_entry *e = window_find(xpb_cuda_group_comm(g, l));
        if (!e)
            continue;
        (void)cudaSetDevice(e->device);
        if (e->buf)
            (void)ncclMemFree(e->buf);
        memset(e, 0, sizeof *e);
    }
    return st;
}

xpb_status xpb_burst_window_bits(const xpb_cuda_ctx *g, size_t bytes, uint32_t **bits, bool *renewed,
                                 xpb_error *err)
{
    std::lock_guard<std::mutex> hold(window_lock);
    const int local = xpb_cuda_group_local(g);
    bool kept = true; /* every local rank has one of at least `bytes` (the same answer on every rank) */
    for (int l = 0; l < local; l++) {
        const window_entry *e = window_find(xpb_cuda_group_comm(g, l));
        kept = kept && e && e->win && e->bytes >= bytes;
    }
    *renewed = !kept;
    xpb_status st = kept ? XPB_OK : window_release(g, err);
    if (!kept && st == XPB_OK) {
        for (int l = 0; l < local && st == XPB_OK; l++) {
            window_entry *e = window_find(NULL);
            if (!e) { /* through the cleanup below: the ranks before this one hold buffers */
                st = xpb_fail(err, XPB_ERR_UNSUPPORTED, "burst/sharded: more than %d communicators with a window",
                              XPB_WINDOW_SLOTS);
                break;
            }
            const xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(g, l);
            if ((st = xpb_cuda_activate(rank, err)) != XPB_OK)
                break;
            e->comm = xpb_cuda_group_comm(g, l), e->device = rank->device, e->bytes = bytes;
            const ncclResult_t nr = ncclMemAlloc(&e->buf, bytes);
            if (nr != ncclSuccess)
                st = xpb_nccl_fail(err, nr, "ncclMemAlloc(burst/sharded bits)", __FILE__, __LINE__);
        }
        ncclResult_t nr = st == XPB_OK ? ncclGroupStart() : ncclSuccess;
        for (int l = 0; l < local && st == XPB_OK && nr == ncclSuccess; l++) {
            window_entry *e = window_find(xpb_cuda_group_comm(g, l));
            (void)cudaSetDevice(e->device);
            nr = ncclCommWindowRegister(e->comm, e->buf, bytes, &e->win, NCCL_WIN_COLL_SYMMETRIC);
        }
        if (st == XPB_OK) {
            const ncclResult_t end = ncclGroupEnd();
            if (nr == ncclSuccess)
                nr = end;
            if (nr != ncclSuccess)
                st = xpb_nccl_fail(err, nr, "ncclCommWindowRegister(burst/sharded bits)", __FILE__, __LINE__);
        }
        for (int l = 0; l < local && st == XPB_OK; l++) /* a transport that cannot expose it leaves none */
            if (!window_find(xpb_cuda_group_comm(g, l))->win)
                st = xpb_fail(err, XPB_ERR_UNSUPPORTED,
                              "burst/sharded: NCCL registered no symmetric window for the bits (its transport "
                              "between these GPUs has none)");
        if (st != XPB_OK) {
            xpb_error ignored;
            (void)window_release(g, &ignored);
            return st;
        }
    }
    for (int l = 0; l < local && st == XPB_OK; l++)
        bits[l] = static_cast<uint32_t *>(window_find(xpb_cuda_group_comm(g, l))->buf);
    return st;
}

void xpb_burst_window_forget(const xpb_cuda_ctx *g)
{
    std::lock_guard<std::mutex> hold(window_lock);
    xpb_error ignored;
    (void)window_release(g, &ignored);
    (void)cudaGetLastError();
}
#else
xpb_status xpb_burst_window_bits(const xpb_cuda_ctx *g, size_t bytes, uint32_t **bits, bool *renewed,
                                 xpb_error *err)
{
    (void)g, (void)bytes, (void)bits;
    *renewed = false;
    return xpb_fail(err, XPB_ERR_UNSUPPORTED, "burst/sharded: this NCCL (%d.%d) has no symmetric windows (2.27+)",
                    NCCL_MAJOR, NCCL_MINOR);
}

void xpb_burst_window_forget(const xpb_cuda_ctx *g) { (void)g; }
#endif
