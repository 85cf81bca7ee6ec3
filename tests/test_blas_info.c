/* test_blas_info.c - the BLAS fingerprint of the CPU backend (backends/cpu/cpu_blas_info.c, issue
 * 10): OpenBLAS's generic fallback cores are recognised and make a warning; the cores of current
 * processors do not; the description this machine's BLAS gives names its core. It reads the BLAS
 * as the machine has it (no OPENBLAS_CORETYPE set here). */
#include <stdio.h>
#include <string.h>

#include "../backends/cpu/cpu_internal.h"

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
    const char *generic[] = {"Prescott", "prescott", "Core2", "Katmai", "armv8", "generic"};
    const char *specific[] = {"Haswell", "SkylakeX", "Cooperlake", "Sapphirerapids", "Zen", "NeoverseN1", "A64FX"};
    for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
        CHECK(xpb_cpu_blas_core_is_generic(generic[i]));
    for (size_t i = 0; i < sizeof specific / sizeof *specific; i++)
        CHECK(!xpb_cpu_blas_core_is_generic(specific[i]));
    char desc[256], warning[256];
    xpb_cpu_blas_describe(desc, sizeof desc, warning, sizeof warning);
    printf("this machine's BLAS: %s\n", desc);
    if (warning[0])
        printf("warning: %s\n", warning);
#ifdef OPENBLAS_VERSION
    const char *core = strstr(desc, ", core ");
    CHECK(core != NULL);
    if (core) { /* the warning is there exactly when the core is generic */
        char name[64];
        sscanf(core + 7, "%63[^,]", name);
        CHECK((warning[0] != '\0') == xpb_cpu_blas_core_is_generic(name));
        CHECK(!warning[0] || strstr(warning, name));
    }
#endif
    printf("%s\n", fails ? "FAILED" : "ok");
    return fails != 0;
}
