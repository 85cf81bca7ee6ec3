/* test_blas_info.c - the BLAS fingerprint of the CPU backend
 * (backends/cpu/runtime/cpu_blas_info.c, issue 10): OpenBLAS's and BLIS's generic fallback cores
 * are recognised and make a warning, and so does an AVX2 core on an Intel processor with AVX-512;
 * the cores of current processors do not; the description this machine's BLAS gives, whichever
 * XPB_BLAS was built in, leads with that choice and names its core and threads (all cores, not
 * BLIS's default of one). It reads the BLAS as the machine has it (no OPENBLAS_CORETYPE,
 * OPENBLAS_L2_SIZE or BLIS_ARCH_TYPE set here). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/cpu/runtime/cpu_internal.h"

static int fails;
#define CHECK(c)                                                                                    \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                  \
            fails++;                                                                                \
        }                                                                                           \
    } while (0)

int main(void)
{
    /* what a fallback build reports, and what current processors get */
    /* what a fallback build reports, and what current processors get */
    const char *generic[] = {"Prescott", "prescott", "Core2", "Katmai", "armv8", "generic"};
    const char *specific[] = {"Haswell", "SkylakeX", "Cooperlake", "Sapphirerapids", "Zen", "NeoverseN1", "A64FX",
                              "skx", "zen3", "haswell", "thunderx2"};
    for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
        CHECK(xpb_cpu_blas_core_is_generic(generic[i]));
    for (size_t i = 0; i < sizeof specific / sizeof *specific; i++)
        CHECK(!xpb_cpu_blas_core_is_generic(specific[i]));
    /* AVX2 cores are narrow on an Intel processor with AVX-512 only; AVX-512 cores never */
    const char *avx2[] = {"Haswell", "haswell", "Zen", "zen3", "Sandybridge"};
    const char *avx512[] = {"SkylakeX", "Cooperlake", "Sapphirerapids", "skx", "knl"};
    for (size_t i = 0; i < sizeof avx2 / sizeof *avx2; i++)
        CHECK(xpb_cpu_blas_core_is_narrow(avx2[i], true) && !xpb_cpu_blas_core_is_narrow(avx2[i], false));
    for (size_t i = 0; i < sizeof avx512 / sizeof *avx512; i++)
        CHECK(!xpb_cpu_blas_core_is_narrow(avx512[i], true));

    char desc[256], warning[256];
    xpb_cpu_blas_describe(desc, sizeof desc, warning, sizeof warning);
    printf("this machine's BLAS: %s\n", desc);
    if (warning[0])
        printf("warning: %s\n", warning);
    /* "<XPB_BLAS>: <library and configuration>, core <name>, <N> threads (<kind>)" */
    CHECK(strncmp(desc, XPB_BLAS_NAME ": ", strlen(XPB_BLAS_NAME) + 2) == 0);
    const char *core = strstr(desc, ", core ");
    CHECK(core != NULL);
    if (core) { /* the warning is there exactly when the core is generic or narrow */
        char name[64] = "";
        sscanf(core + 7, "%63[^,]", name);
        CHECK(strcmp(name, "?") != 0);
        bool intel_avx512 = false;
#if defined(__x86_64__)
        __builtin_cpu_init();
        intel_avx512 = __builtin_cpu_is("intel") && __builtin_cpu_supports("avx512f");
#endif
        CHECK((warning[0] != '\0') ==
              (xpb_cpu_blas_core_is_generic(name) || xpb_cpu_blas_core_is_narrow(name, intel_avx512)));
        CHECK(!warning[0] || strstr(warning, name));
        int threads = 0;
        const char *t = strchr(core + 7, ',');
        CHECK(t && (sscanf(t, ", %d threads", &threads) == 1 || strstr(t, "threads from BLIS_")));
        /* every core, unless the environment sets the BLAS's threads */
        if (!getenv("OMP_NUM_THREADS") && !getenv("OPENBLAS_NUM_THREADS") && !getenv("BLIS_NUM_THREADS") &&
            !getenv("GOTO_NUM_THREADS") && omp_get_max_threads() > 1)
            CHECK(threads > 1);
    }
    printf("%s\n", fails ? "FAILED" : "ok");
    return fails != 0;
}
