/* gemm_mutants.c - GEMM and GEMV through OpenBLAS with a k-loop bug (mutants.h): the BLAS call
 * runs over fewer k terms, which is exactly what the buggy loop computes, at BLAS speed (the
 * default preset's 4097^3 would take minutes in a plain loop). Test-only. */

#include "cpu_blas.h"
#include "cpu_gemm.h"
#include "mutants.h"

#define TILE_K 16

static xpb_status gemm_launch(const void *args, mutant_bug bug, xpb_error *err)
{
    xpb_cpu_gemm_view v;
    xpb_status st = xpb_cpu_gemm_begin_inplace(args, &v, err);
    if (st)
        return st;
    int64_t k = v.k; /* the k terms the buggy loop adds; A's row stride stays v.k */
    if (bug == BUG_GEMM_SKIPS_LAST_K)
        k = v.k - 1;
    else if (bug == BUG_GEMM_SKIPS_LAST_K_TILE)
        k = (v.k - 1) / TILE_K * TILE_K;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)v.m, (blasint)v.n, (blasint)k, v.alpha, v.a,
                (blasint)v.k, v.b, (blasint)v.n, v.beta, v.c, (blasint)v.n);
    return XPB_OK;
}

static xpb_status gemv_launch(const void *args, mutant_bug bug, xpb_error *err)
{
    xpb_cpu_gemm_view v;
    xpb_status st = xpb_cpu_gemm_begin_inplace(args, &v, err);
    if (st)
        return st;
    cblas_sgemv(CblasRowMajor, CblasTrans, (blasint)v.k, (blasint)v.n, v.alpha, v.b, (blasint)v.n, v.a, 1, v.beta,
                v.c, 1);
    if (bug == BUG_GEMV_ROW_SHORT) { /* output n-1: its row of B^T read one element short */
        int64_t j = v.n - 1;
        double acc = 0;
        for (int64_t p = 0; p < v.k - 1; p++)
            acc += (double)v.a[p] * v.b[p * v.n + j];
        v.c[j] = (float)(v.alpha * acc + (v.beta != 0 ? (double)v.beta * v.c_in[j] : 0.0));
    }
    return XPB_OK;
}

XPB_MUTANT_KERNEL(gemm_control, XPB_OP_GEMM, gemm_launch, BUG_NONE)
XPB_MUTANT_KERNEL(gemm_skips_last_k, XPB_OP_GEMM, gemm_launch, BUG_GEMM_SKIPS_LAST_K)
XPB_MUTANT_KERNEL(gemm_skips_last_k_tile, XPB_OP_GEMM, gemm_launch, BUG_GEMM_SKIPS_LAST_K_TILE)
XPB_MUTANT_KERNEL(gemv_control, XPB_OP_GEMV, gemv_launch, BUG_NONE)
XPB_MUTANT_KERNEL(gemv_row_short, XPB_OP_GEMV, gemv_launch, BUG_GEMV_ROW_SHORT)
