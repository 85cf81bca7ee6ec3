/* cpu_blas_info.c - the BLAS that cpu/blas calls, as it describes itself (issue 10): which XPB_BLAS
 * choice it is, its name, version and configuration, the core (kernel set) it selected for this
 * processor, its threads and their kind; and whether that core is a generic fallback. OpenBLAS
 * 0.3.21 picks "Prescott" (SSE3) on an x86-64 processor it does not recognise, and "armv8" on
 * arm64; BLIS picks "generic": its GEMM then runs 6-8x below the machine, and every figure of the
 * CPU, and every speedup over it, is off by that much. That is a warning, never silent. So is an
 * AVX2 core on an Intel processor with AVX-512 (BLIS 0.9 picks "haswell" on a Xeon whose model
 * name it cannot read): about half the fp32 peak.
 *
 * Threads: OpenBLAS sizes its pool itself (all cores; OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS).
 * BLIS runs on one thread unless told (BLIS_NUM_THREADS, OMP_NUM_THREADS, BLIS_*_NT): when none of
 * those is set, it is given the OpenMP team's size once, at load, so cpu/blas uses every core
 * whichever library was built in. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpu_blas.h"
#include "cpu_internal.h"

/* Fallback cores: OpenBLAS's SSE-era x86 cores it uses for processors it does not know and its
 * generic Arm core; BLIS's reference configuration. */
static const char *const generic_cores[] = {"Prescott", "Katmai", "Coppermine", "Northwood", "Banias",
                                            "Core2",    "Penryn", "Atom",       "generic",   "armv8",
                                            "unknown"};
/* x86 cores without AVX-512 kernels (OpenBLAS's and BLIS's names). */
static const char *const pre_avx512_cores[] = {"Haswell", "Zen",      "Zen2",      "Zen3",       "Sandybridge",
                                               "Nehalem", "Dunnington", "Barcelona", "Bulldozer", "Piledriver",
                                               "Steamroller", "Excavator"};

static bool in_list(const char *core, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(core, list[i]) == 0)
            return true;
    return false;
}

bool xpb_cpu_blas_core_is_generic(const char *core)
{
    return in_list(core, generic_cores, sizeof generic_cores / sizeof generic_cores[0]);
}

bool xpb_cpu_blas_core_is_narrow(const char *core, bool intel_avx512)
{
    return intel_avx512 && in_list(core, pre_avx512_cores, sizeof pre_avx512_cores / sizeof pre_avx512_cores[0]);
}

/* An Intel processor whose AVX-512 state the OS enables: there, AVX-512 doubles the fp32 rate of
 * AVX2 (two 512-bit FMA units); AMD's Zen 4 runs AVX-512 at the AVX2 rate, so no warning there. */
static bool intel_avx512(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    return __builtin_cpu_is("intel") && __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

static void core_warning(const char *lib, const char *core, const char *override, char *warning, size_t wn)
{
    if (xpb_cpu_blas_core_is_generic(core))
        snprintf(warning, wn, "%s selected its generic core '%s' for this processor: cpu/blas figures "
                              "understate the CPU (docs/performance.md; %s)", lib, core, override);
    else if (xpb_cpu_blas_core_is_narrow(core, intel_avx512()))
        snprintf(warning, wn, "%s selected the AVX2 core '%s' on a processor with AVX-512: cpu/blas figures "
                              "understate the CPU by up to 2x (docs/performance.md; %s)", lib, core, override);
}

#if defined(XPB_BLAS_BLIS)
/* BLIS's default is one thread: give it the OpenMP team unless the environment says otherwise. */
__attribute__((constructor)) static void blis_threads_default(void)
{
    static const char *const vars[] = {"BLIS_NUM_THREADS", "OMP_NUM_THREADS", "BLIS_JC_NT", "BLIS_PC_NT",
                                       "BLIS_IC_NT",       "BLIS_JR_NT",      "BLIS_IR_NT"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return;
    bli_thread_set_num_threads((dim_t)omp_get_max_threads());
}
#endif

void xpb_cpu_blas_describe(char *out, size_t n, char *warning, size_t wn)
{
    warning[0] = '\0';
#if defined(XPB_BLAS_IS_OPENBLAS)
    const char *core = openblas_get_corename();
    int par = openblas_get_parallel(); /* 0 sequential, 1 pthreads, 2 OpenMP */
    const char *kind = par == 2 ? "OpenMP" : par == 1 ? "pthreads" : "sequential";
    /* openblas_get_config() begins with a space in some builds */
    const char *cfg = openblas_get_config();
    while (cfg && *cfg == ' ')
        cfg++;
    snprintf(out, n, "%s: %s, core %s, %d threads (%s)", XPB_BLAS_NAME, cfg ? cfg : "OpenBLAS",
             core ? core : "?", openblas_get_num_threads(), kind);
    if (core)
        core_warning("OpenBLAS", core, "OPENBLAS_CORETYPE overrides it; XPB_BLAS chooses the library", warning, wn);
#elif defined(XPB_BLAS_BLIS)
    const char *core = bli_arch_string(bli_arch_query_id());
    const char *kind = bli_info_get_enable_openmp() ? "OpenMP" : bli_info_get_enable_pthreads() ? "pthreads"
                                                                                                : "sequential";
    dim_t nt = bli_thread_get_num_threads();
    char threads[48];
    if (nt > 0)
        snprintf(threads, sizeof threads, "%ld threads", (long)nt);
    else
        snprintf(threads, sizeof threads, "threads from BLIS_*_NT");
    snprintf(out, n, "%s: BLIS %s, core %s, %s (%s)", XPB_BLAS_NAME, bli_info_get_version_str(),
             core ? core : "?", threads, kind);
    if (core)
        core_warning("BLIS", core, "BLIS_ARCH_TYPE overrides it; XPB_BLAS chooses the library", warning, wn);
#else
    snprintf(out, n, "%s: a CBLAS without self-description (core unknown)", XPB_BLAS_NAME);
#endif
}
