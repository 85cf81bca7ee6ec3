/* xpb_plugin_internal.h - what xpb_plugin.c (loading, the registry) and xpb_plugin_adapter.c (the
 * xpb_kernel each plugin kernel runs as) share. Not used elsewhere. */
#ifndef XPB_PLUGIN_INTERNAL_H
#define XPB_PLUGIN_INTERNAL_H

#include "xpb_plugin.h"
#include "xpubench/xpubench_plugin.h"

/* One registered plugin kernel. `k` is what the harness runs: its functions are the adapter's
 * entry points for this slot (they find the slot by its index), its op, variant and precision
 * the plugin's. */
typedef struct xpb_plugin_slot {
    xpb_kernel k;
    const xpb_plugin_kernel *pk;
    const xpb_backend_i *backend;
    xpb_plugin_backend kind;
    int lib; /* index of its library */
} xpb_plugin_slot;

/* The registered kernels, indexed like the adapter's entry points. */
extern xpb_plugin_slot xpb_plugin_slots[XPB_PLUGIN_MAX_KERNELS];

/* Fills slot i's k with the adapter's entry points for slot i (op, variant, precision untouched). */
void xpb_plugin_adapter_bind(int i);

/* Whether the public op is a row op (xpb_plugin_rowop_args) rather than elementwise. */
bool xpb_plugin_op_is_rowop(xpb_plugin_op op);

#endif
