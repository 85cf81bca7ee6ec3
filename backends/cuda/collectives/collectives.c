/* collectives.c - the collectives workload's ops on a device group (cuda_group.c), through NCCL:
 * one call per rank this process drives between ncclGroupStart and ncclGroupEnd, every rank on
 * its own stream (NCCL's single-process pattern; under MPI each process drives one rank).
 * Variants: `nccl` out of place, `nccl-inplace` in place (all_reduce, all_gather, broadcast).
 * all_to_all and sendrecv are grouped ncclSend/ncclRecv pairs, as nccl-tests builds them. fp32
 * (xpb_collective_args). */
#include <string.h>

#include "cuda_nccl.h"
#include "xpb_knob.h"
#include "xpb_mpi.h"

static xpb_status supports(void *ctx, const void *args, xpb_error *why)
{
    const xpb_collective_args *a = args;
    int n = xpb_cuda_group_size(ctx);
    if (n == 0)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "a collective needs a device group (--devices)");
    if (n != a->ranks)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED, "the case is for %d ranks; the group has %d", a->ranks, n);
    return XPB_OK;
}

/* Group rank r's send and receive buffers (l: its index among this process's ranks). In place
 * (nccl-tests' in-place mode) the send buffer lies in the receive buffer where NCCL expects it:
 * the whole of it (all_reduce, broadcast) or the rank's slot (all_gather). */
static const char *send_ptr(const xpb_collective_args *a, int l, int r)
{
    return (const char *)a->send.buf->rank_ptr[l] + a->send.offset + (size_t)r * (size_t)a->send_count * 4;
}

static char *recv_ptr(const xpb_collective_args *a, int l, int r)
{
    return (char *)a->recv.buf->rank_ptr[l] + a->recv.offset + (size_t)r * (size_t)a->recv_count * 4;
}

static const char *inplace_send_ptr(xpb_op op, const xpb_collective_args *a, int l, int r)
{
    return recv_ptr(a, l, r) + (op == XPB_OP_ALL_GATHER ? (size_t)r * (size_t)a->send_count * 4 : 0);
}

/* Group rank r's call(s) of op, inside the group; l is its index among this process's ranks. */
static xpb_status issue(xpb_op op, const xpb_collective_args *a, int l, int r, int n, bool inplace, ncclComm_t comm,
                        cudaStream_t s, xpb_error *err)
{
    const char *send = inplace ? inplace_send_ptr(op, a, l, r) : send_ptr(a, l, r);
    char *recv = recv_ptr(a, l, r);
    size_t chunk = (size_t)a->send_count / (size_t)n; /* all_to_all: floats to each peer */
    switch (op) {
    case XPB_OP_ALL_REDUCE:
        XPB_NCCL_CHECK(err, ncclAllReduce(send, recv, (size_t)a->recv_count, ncclFloat, ncclSum, comm, s));
        break;
    case XPB_OP_ALL_GATHER:
        XPB_NCCL_CHECK(err, ncclAllGather(send, recv, (size_t)a->send_count, ncclFloat, comm, s));
        break;
    case XPB_OP_REDUCE_SCATTER:
        XPB_NCCL_CHECK(err, ncclReduceScatter(send, recv, (size_t)a->recv_count, ncclFloat, ncclSum, comm, s));
        break;
    case XPB_OP_BROADCAST:
        XPB_NCCL_CHECK(err, ncclBroadcast(send, recv, (size_t)a->send_count, ncclFloat, a->root, comm, s));
        break;
    case XPB_OP_ALL_TO_ALL:
        for (int q = 0; q < n; q++) {
            XPB_NCCL_CHECK(err, ncclSend(send + (size_t)q * chunk * 4, chunk, ncclFloat, q, comm, s));
            XPB_NCCL_CHECK(err, ncclRecv(recv + (size_t)q * chunk * 4, chunk, ncclFloat, q, comm, s));
        }
        break;
    case XPB_OP_SENDRECV:
        XPB_NCCL_CHECK(err, ncclSend(send, (size_t)a->send_count, ncclFloat, (r + 1) % n, comm, s));
        XPB_NCCL_CHECK(err, ncclRecv(recv, (size_t)a->recv_count, ncclFloat, (r + n - 1) % n, comm, s));
        break;
    default: return xpb_fail(err, XPB_ERR_USAGE, "cuda: op %d is not a collective", (int)op);
    }
    return XPB_OK;
}

static xpb_status launch(xpb_op op, bool inplace, void *ctx, const void *args, xpb_error *err)
{
    const xpb_collective_args *a = args;
    int n = xpb_cuda_group_size(ctx);
    if (!a->send.buf || !a->recv.buf || !a->send.buf->rank_ptr || !a->recv.buf->rank_ptr)
        return xpb_fail(err, XPB_ERR_USAGE, "cuda: a collective's buffers must be device-group buffers");
    /* the downloaded array's part r is rank r's receive buffer */
    xpb_cuda_group_set_parts(a->recv.buf, a->recv.offset, (size_t)a->recv_count * 4);
    XPB_NCCL_CHECK(err, ncclGroupStart());
    xpb_status st = XPB_OK;
    int first = xpb_cuda_group_first(ctx);
    for (int l = 0; l < xpb_cuda_group_local(ctx) && !st; l++) /* this process's ranks: all, or one under MPI */
        st = issue(op, a, l, first + l, n, inplace, xpb_cuda_group_comm(ctx, l), xpb_cuda_group_stream(ctx, l), err);
    ncclResult_t end = ncclGroupEnd(); /* always closes the group, even after a failed call */
    if (!st && end != ncclSuccess)
        st = xpb_nccl_fail(err, end, "ncclGroupEnd", __FILE__, __LINE__);
    return st;
}

/* One host thread a rank (XPB_CUDA_SHARDED_LAUNCH=threads, nccl-tests' -t): each rank's `count`
 * launches of a sample from its own thread, on its own communicator, outside any cross-rank NCCL
 * group (a rank's grouped send/recv pairs in a group of its own, NCCL's groups being per thread).
 * One thread issuing 4 ranks' calls in a group each launch bound the one-process collectives at
 * 1-4 MiB (0.89-0.93 of torch's busbw, docs/multi-gpu.md). Under MPI a process has one rank: the
 * same as `one`. The timer still reads the slowest rank. */
typedef struct rank_burst {
    xpb_op op;
    bool inplace;
    const xpb_cuda_ctx *g;
    const xpb_collective_args *a;
    int count;
} rank_burst;

static xpb_status rank_launches(void *user, int l, xpb_error *err)
{
    const rank_burst *b = user;
    int n = xpb_cuda_group_size(b->g), r = xpb_cuda_group_first(b->g) + l;
    bool pairs = b->op == XPB_OP_ALL_TO_ALL || b->op == XPB_OP_SENDRECV; /* several calls a launch */
    ncclComm_t comm = xpb_cuda_group_comm(b->g, l);
    cudaStream_t s = xpb_cuda_group_stream(b->g, l);
    xpb_status st = XPB_OK;
    for (int i = 0; i < b->count && !st; i++) {
        if (pairs)
            XPB_NCCL_CHECK(err, ncclGroupStart());
        st = issue(b->op, b->a, l, r, n, b->inplace, comm, s, err);
        ncclResult_t end = pairs ? ncclGroupEnd() : ncclSuccess; /* always closes its group */
        if (!st && end != ncclSuccess)
            st = xpb_nccl_fail(err, end, "ncclGroupEnd", __FILE__, __LINE__);
    }
    return st;
}

/* xpb_backend_i.launch_n for the cuda backend: a device group's collective from one thread a rank
 * in the threads mode; anything else (one device, a group's other kernels, the mode `one`, one
 * rank in this process) launched count times from this thread. */
xpb_status xpb_cuda_launch_n(void *ctx, const xpb_kernel *k, const void *args, void *state, int count,
                             xpb_error *err)
{
    int mode = 0;
    bool ours = k->op == XPB_OP_ALL_REDUCE || k->op == XPB_OP_ALL_GATHER || k->op == XPB_OP_REDUCE_SCATTER ||
                k->op == XPB_OP_BROADCAST || k->op == XPB_OP_ALL_TO_ALL || k->op == XPB_OP_SENDRECV;
    bool collective = ours && xpb_cuda_group_size(ctx) > 0 &&
                      (strcmp(k->variant, "nccl") == 0 || strcmp(k->variant, "nccl-inplace") == 0);
    xpb_status st = collective ? xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_LAUNCH, &mode, err) : XPB_OK;
    if (st)
        return st;
    if (!collective || mode == 0 || xpb_cuda_group_local(ctx) < 2) {
        for (int i = 0; i < count && !st; i++)
            st = k->launch(ctx, args, state, err);
        return st;
    }
    xpb_op op = k->op;
    bool inplace = strcmp(k->variant, "nccl-inplace") == 0;
    const xpb_collective_args *a = args;
    if (!a->send.buf || !a->recv.buf || !a->send.buf->rank_ptr || !a->recv.buf->rank_ptr)
        return xpb_fail(err, XPB_ERR_USAGE, "cuda: a collective's buffers must be device-group buffers");
    xpb_cuda_group_set_parts(a->recv.buf, a->recv.offset, (size_t)a->recv_count * 4);
    rank_burst b = {op, inplace, ctx, a, count};
    return xpb_cuda_group_each_rank(ctx, rank_launches, &b, err);
}

/* In place: each rank's input copied once into its receive buffer where the op reads it in place,
 * before the validation launch and each round's timing (not timed). Repeated in-place launches
 * feed on their own outputs (sums grow, as in nccl-tests); only the first is validated. */
static xpb_status inplace_prepare(xpb_op op, void *ctx, const void *args, xpb_error *err)
{
    const xpb_collective_args *a = args;
    int first = xpb_cuda_group_first(ctx);
    for (int l = 0; l < xpb_cuda_group_local(ctx); l++) {
        xpb_cuda_ctx *rank = xpb_cuda_group_rank_ctx(ctx, l);
        xpb_status st = xpb_cuda_activate(rank, err);
        if (st)
            return st;
        XPB_CUDA_CHECK(err, cudaMemcpyAsync((void *)inplace_send_ptr(op, a, l, first + l), send_ptr(a, l, first + l),
                                            (size_t)a->send_count * 4, cudaMemcpyDeviceToDevice, rank->stream));
    }
    return XPB_OK;
}

#define COLLECTIVE(name, OP)                                                                     \
    static xpb_status name##_launch(void *ctx, const void *args, void *state, xpb_error *err)   \
    {                                                                                            \
        (void)state;                                                                             \
        return launch(OP, false, ctx, args, err);                                                \
    }                                                                                            \
    const xpb_kernel xpb_cuda_##name = {                                                         \
        .op = OP, .variant = "nccl", .precision = "fp32", .supports = supports,                 \
        .launch = name##_launch};

/* The in-place variant beside it (all_reduce, all_gather, broadcast: the ops whose in-place
 * buffer is the receive buffer the case validates; reduce_scatter's is n times larger). */
#define COLLECTIVE_INPLACE(name, OP)                                                             \
    static xpb_status name##_inplace_prepare(void *ctx, const void *args, void **state, xpb_error *err) \
    {                                                                                            \
        *state = NULL;                                                                           \
        xpb_status st = inplace_prepare(OP, ctx, args, err);                                     \
        return xpb_mpi_agree(st, err);                                                           \
    }                                                                                            \
    static xpb_status name##_inplace_launch(void *ctx, const void *args, void *state, xpb_error *err) \
    {                                                                                            \
        (void)state;                                                                             \
        return launch(OP, true, ctx, args, err);                                                 \
    }                                                                                            \
    const xpb_kernel xpb_cuda_##name##_inplace = {                                               \
        .op = OP, .variant = "nccl-inplace", .precision = "fp32", .supports = supports,         \
        .prepare = name##_inplace_prepare, .launch = name##_inplace_launch};

COLLECTIVE(all_reduce, XPB_OP_ALL_REDUCE)
COLLECTIVE(all_gather, XPB_OP_ALL_GATHER)
COLLECTIVE(reduce_scatter, XPB_OP_REDUCE_SCATTER)
COLLECTIVE(broadcast, XPB_OP_BROADCAST)
COLLECTIVE(all_to_all, XPB_OP_ALL_TO_ALL)
COLLECTIVE(sendrecv, XPB_OP_SENDRECV)
COLLECTIVE_INPLACE(all_reduce, XPB_OP_ALL_REDUCE)
COLLECTIVE_INPLACE(all_gather, XPB_OP_ALL_GATHER)
COLLECTIVE_INPLACE(broadcast, XPB_OP_BROADCAST)
