/* cpu_blas.h - the one door from the CPU backend to the BLAS that CMake chose (XPB_BLAS, issue 10).
 * Every file that calls BLAS includes this header, never <cblas.h> itself, and calls the usual
 * CBLAS names (cblas_sgemm, cblas_sgemv, with blasint sizes); here they are mapped onto the
 * library that was built in, so there is one code path whatever the choice:
 *
 *   XPB_BLAS_SCIPY_OPENBLAS  OpenBLAS from the scipy-openblas32 wheel: its symbols carry a scipy_
 *                            prefix (scipy_cblas_sgemm, scipy_openblas_get_corename, ...), declared
 *                            so by the wheel's cblas.h; the names below are mapped onto them.
 *   XPB_BLAS_OPENBLAS        a distribution's OpenBLAS (Debian: libopenblas-dev), plain names.
 *   XPB_BLAS_BLIS            BLIS (Debian: libblis-dev) through its CBLAS layer (blis.h).
 *
 * CMake defines exactly one of them (and XPB_BLAS_NAME, the XPB_BLAS value) on every target that
 * links the CPU backend. Besides CBLAS, the header gives what the kernels need of the library's
 * own threads, for every choice:
 *   xpb_blas_get_num_threads()   the threads one BLAS call uses (0: the library's default)
 *   xpb_blas_set_num_threads(n)  set them (1 around calls made from inside an OpenMP team) */
#ifndef XPB_CPU_BLAS_H
#define XPB_CPU_BLAS_H

#if defined(XPB_BLAS_SCIPY_OPENBLAS)
#include <cblas.h> /* the wheel's: declares only the scipy_ names */
#define cblas_sgemm scipy_cblas_sgemm
#define cblas_sgemv scipy_cblas_sgemv
#define openblas_get_num_threads scipy_openblas_get_num_threads
#define openblas_set_num_threads scipy_openblas_set_num_threads
#define openblas_get_config scipy_openblas_get_config
#define openblas_get_corename scipy_openblas_get_corename
#define openblas_get_parallel scipy_openblas_get_parallel
#define XPB_BLAS_IS_OPENBLAS 1
#elif defined(XPB_BLAS_BLIS)
#include <blis.h> /* BLIS proper (bli_*) and, in it, its CBLAS */
typedef f77_int blasint;
#elif defined(XPB_BLAS_OPENBLAS)
#include <cblas.h>
#define XPB_BLAS_IS_OPENBLAS 1
#else
#error "cpu_blas.h: no BLAS chosen (CMake defines XPB_BLAS_SCIPY_OPENBLAS, XPB_BLAS_OPENBLAS or XPB_BLAS_BLIS)"
#endif

#ifndef XPB_BLAS_NAME
#define XPB_BLAS_NAME "?"
#endif

static inline int xpb_blas_get_num_threads(void)
{
#if defined(XPB_BLAS_IS_OPENBLAS)
    return openblas_get_num_threads();
#else
    dim_t n = bli_thread_get_num_threads(); /* -1: not set (BLIS then runs on one thread) */
    return n > 0 ? (int)n : 0;
#endif
}

static inline void xpb_blas_set_num_threads(int n)
{
#if defined(XPB_BLAS_IS_OPENBLAS)
    if (n > 0)
        openblas_set_num_threads(n);
#else
    bli_thread_set_num_threads(n > 0 ? (dim_t)n : -1);
#endif
}

#endif
