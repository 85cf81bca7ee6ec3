/* gemm_args.c - argument checks shared by the GEMM and GEMV kernels (vk_ops.h): tiled.c,
 * coopmat.c, gemv.c.
 *
 * The shaders index with 32-bit unsigned integers, so each matrix must have fewer than 2^32
 * elements; each is bound as one descriptor, so each must fit in maxStorageBufferRange (128 MiB
 * on lavapipe: larger cases are unsupported there, with the reason). */
#include "vk_ops.h"

xpb_status vkb_gemm_check(vkb_ctx *c, const xpb_gemm_args *a, xpb_error *why)
{
    if (a->m < 0 || a->n < 0 || a->k < 0 || a->m > UINT32_MAX || a->n > UINT32_MAX || a->k > UINT32_MAX)
        return xpb_fail(why, XPB_ERR_USAGE, "bad gemm size m=%lld n=%lld k=%lld", (long long)a->m,
                        (long long)a->n, (long long)a->k);
    if (a->m > 0 && a->n > 0 && a->k == 0)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "k = 0 (an empty product) is not handled by the Vulkan gemm kernels");
    uint64_t m = (uint64_t)a->m, n = (uint64_t)a->n, k = (uint64_t)a->k;
    xpb_status st;
    if ((st = vkb_check_range(c, "matrix A", m * k * sizeof(float), why)) ||
        (st = vkb_check_range(c, "matrix B", k * n * sizeof(float), why)) ||
        (st = vkb_check_range(c, "matrix C", m * n * sizeof(float), why)))
        return st;
    return XPB_OK;
}

xpb_status vkb_gemm_bindings(const xpb_gemm_args *a, vkb_binding out[4], xpb_error *err)
{
    if (a->beta != 0 && !a->c_in.buf)
        return xpb_fail(err, XPB_ERR_USAGE, "gemm: beta = %g but no c_in buffer", (double)a->beta);
    VkDeviceSize m = (VkDeviceSize)a->m, n = (VkDeviceSize)a->n, k = (VkDeviceSize)a->k;
    VkDeviceSize c_bytes = m * n * sizeof(float);
    out[0] = (vkb_binding){a->a.buf, a->a.offset, m * k * sizeof(float)};
    out[1] = (vkb_binding){a->b.buf, a->b.offset, k * n * sizeof(float)};
    /* c_in is read only when beta != 0; otherwise c stands in (never read through binding 2). */
    if (a->beta != 0)
        out[2] = (vkb_binding){a->c_in.buf, a->c_in.offset, c_bytes};
    else
        out[2] = (vkb_binding){a->c.buf, a->c.offset, c_bytes};
    out[3] = (vkb_binding){a->c.buf, a->c.offset, c_bytes};
    return XPB_OK;
}
