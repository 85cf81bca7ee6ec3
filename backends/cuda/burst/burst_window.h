/* burst_window.h - the sharded burst's gathered bits on an NCCL symmetric window
 * (XPB_CUDA_SHARDED_EXCHANGE, docs/multi-gpu.md): each rank's bits array allocated by ncclMemAlloc
 * and registered on its communicator with NCCL_WIN_COLL_SYMMETRIC (NCCL 2.27+), whose all_gather
 * kernels are made for small messages over NVLink. Kept per communicator until the group closes. */
#ifndef XPB_BURST_WINDOW_H
#define XPB_BURST_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_backend.h"

/* Every local rank l of g gets bits[l], a symmetric buffer of at least `bytes` on its device: the
 * ones kept from an earlier call, or new ones (a collective call: every rank of the group calls
 * it with the same bytes); *renewed says the latter: what was captured with the old ones (graphs)
 * must not run again. XPB_ERR_UNSUPPORTED naming NCCL's reason where it cannot. */
xpb_status xpb_burst_window_bits(const xpb_cuda_ctx *g, size_t bytes, uint32_t **bits, bool *renewed,
                                 xpb_error *err);

/* Deregisters and frees g's windows (a collective call, at the group's close, before its
 * communicators go). */
void xpb_burst_window_forget(const xpb_cuda_ctx *g);

#endif
