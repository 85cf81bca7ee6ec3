/* xpb_ops.c - names of the ops (xpb_ops.h). */
#include "xpb_ops.h"

#include <string.h>

static const xpb_op_info ops[XPB_OP_COUNT] = {
    [XPB_OP_COPY] = {XPB_OP_COPY, "copy", "elementwise"},
    [XPB_OP_ADD] = {XPB_OP_ADD, "add", "elementwise"},
    [XPB_OP_MUL] = {XPB_OP_MUL, "mul", "elementwise"},
    [XPB_OP_SCALE] = {XPB_OP_SCALE, "scale", "elementwise"},
    [XPB_OP_RELU] = {XPB_OP_RELU, "relu", "elementwise"},
    [XPB_OP_SIGMOID] = {XPB_OP_SIGMOID, "sigmoid", "elementwise"},
    [XPB_OP_SILU] = {XPB_OP_SILU, "silu", "elementwise"},
    [XPB_OP_SOFTMAX] = {XPB_OP_SOFTMAX, "softmax", "elementwise"},
    [XPB_OP_RMSNORM] = {XPB_OP_RMSNORM, "rmsnorm", "elementwise"},
    [XPB_OP_LAYERNORM] = {XPB_OP_LAYERNORM, "layernorm", "elementwise"},
    [XPB_OP_ROPE] = {XPB_OP_ROPE, "rope", "elementwise"},
    [XPB_OP_GEMM] = {XPB_OP_GEMM, "gemm", "gemm"},
    [XPB_OP_GEMV] = {XPB_OP_GEMV, "gemv", "gemm"},
    [XPB_OP_ANNEAL_COMPRESS] = {XPB_OP_ANNEAL_COMPRESS, "compress", "anneal"},
    [XPB_OP_ANNEAL_INIT] = {XPB_OP_ANNEAL_INIT, "init", "anneal"},
    [XPB_OP_ANNEAL_ASSIGN] = {XPB_OP_ANNEAL_ASSIGN, "assign", "anneal"},
    [XPB_OP_ANNEAL_STATS] = {XPB_OP_ANNEAL_STATS, "stats", "anneal"},
    [XPB_OP_ANNEAL_UPDATE] = {XPB_OP_ANNEAL_UPDATE, "update", "anneal"},
    [XPB_OP_ANNEAL_CHANGES] = {XPB_OP_ANNEAL_CHANGES, "changes", "anneal"},
    [XPB_OP_ANNEAL_SEARCH] = {XPB_OP_ANNEAL_SEARCH, "search", "anneal"},
    [XPB_OP_BURST_RUN] = {XPB_OP_BURST_RUN, "run", "burst"},
    [XPB_OP_BURST_PROPAGATE] = {XPB_OP_BURST_PROPAGATE, "propagate", "burst"},
    [XPB_OP_BURST_DYNAMICS] = {XPB_OP_BURST_DYNAMICS, "dynamics", "burst"},
    [XPB_OP_BURST_COMPACT] = {XPB_OP_BURST_COMPACT, "compact", "burst"},
    [XPB_OP_BURST_BATCH] = {XPB_OP_BURST_BATCH, "batch", "burst"},
    [XPB_OP_ALL_REDUCE] = {XPB_OP_ALL_REDUCE, "all_reduce", "collectives", true},
    [XPB_OP_ALL_GATHER] = {XPB_OP_ALL_GATHER, "all_gather", "collectives", true},
    [XPB_OP_REDUCE_SCATTER] = {XPB_OP_REDUCE_SCATTER, "reduce_scatter", "collectives", true},
    [XPB_OP_BROADCAST] = {XPB_OP_BROADCAST, "broadcast", "collectives", true},
    [XPB_OP_ALL_TO_ALL] = {XPB_OP_ALL_TO_ALL, "all_to_all", "collectives", true},
    [XPB_OP_SENDRECV] = {XPB_OP_SENDRECV, "sendrecv", "collectives", true},
    [XPB_OP_GEMM_SHARDED] = {XPB_OP_GEMM_SHARDED, "gemm_sharded", "sharded", true},
    [XPB_OP_BURST_SHARD] = {XPB_OP_BURST_SHARD, "shard", "burst", true},
    [XPB_OP_BURST_SHARDED] = {XPB_OP_BURST_SHARDED, "sharded", "burst", true},
    [XPB_OP_ANNEAL_ASSIGN_SHARDED] = {XPB_OP_ANNEAL_ASSIGN_SHARDED, "anneal_assign_sharded", "sharded", true},
    [XPB_OP_ANNEAL_SHARDED] = {XPB_OP_ANNEAL_SHARDED, "sharded", "anneal", true},
};

const xpb_op_info *xpb_op_get(xpb_op op)
{
    return (op >= 0 && op < XPB_OP_COUNT) ? &ops[op] : NULL;
}

xpb_op xpb_op_from_name(const char *name)
{
    for (int i = 0; i < XPB_OP_COUNT; i++)
        if (strcmp(ops[i].name, name) == 0)
            return (xpb_op)i;
    return XPB_OP_COUNT;
}
