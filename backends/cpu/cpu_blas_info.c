/* cpu_blas_info.c - the BLAS that cpu/blas calls, as it describes itself (issue 10): its name and
 * configuration, the core (kernel set) it selected for this processor, its threads; and whether
 * that core is a generic fallback. OpenBLAS picks "Prescott" (SSE3) on an x86-64 processor it does
 * not recognise, and "armv8" on arm64: its GEMM then runs 6-8x below the machine, and every figure
 * of the CPU, and every speedup over it, is off by that much. That is a warning, never silent. */
#include <cblas.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cpu_internal.h"

/* OpenBLAS's fallback cores: SSE-era x86 cores it uses for processors it does not know, and the
 * generic Arm core. */
static const char *const generic_cores[] = {"Prescott", "Katmai", "Coppermine", "Northwood", "Banias",
                                            "Core2",    "Penryn", "Atom",       "generic",   "armv8",
                                            "unknown"};

bool xpb_cpu_blas_core_is_generic(const char *core)
{
    for (size_t i = 0; i < sizeof generic_cores / sizeof generic_cores[0]; i++)
        if (strcasecmp(core, generic_cores[i]) == 0)
            return true;
    return false;
}

void xpb_cpu_blas_describe(char *out, size_t n, char *warning, size_t wn)
{
    warning[0] = '\0';
#ifdef OPENBLAS_VERSION
    const char *core = openblas_get_corename();
    snprintf(out, n, "%s, core %s, %d threads", openblas_get_config(), core ? core : "?",
             openblas_get_num_threads());
    if (core && xpb_cpu_blas_core_is_generic(core))
        snprintf(warning, wn, "OpenBLAS selected its generic core '%s' for this processor: cpu/blas figures "
                              "understate the CPU (docs/performance.md; OPENBLAS_CORETYPE overrides it)", core);
#else
    snprintf(out, n, "a CBLAS without OpenBLAS's self-description (core unknown)");
#endif
}
