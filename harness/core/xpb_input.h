/* xpb_input.h - input classes: which kind of data a case feeds its kernel.
 *
 * Random inputs (uniform in [-1, 1)) measure speed and check the general error bound, but no
 * per-element bound on them can see a kernel that drops one element of a long reduction or
 * divides by n - 1: those errors are smaller than honest rounding at large sizes, or need values
 * the random inputs never reach. The other classes make an op's semantics observable
 * (docs/validation.md, "What the checker catches"):
 *
 *   exact   values on a coarse grid, so that every reduction is exact in fp32 in any order and
 *           the bound is a handful of roundings, independent of the size
 *   large   softmax rows far above 88 (exp overflows without the max subtraction)
 *   peak    softmax rows with one dominant element (+100) at a random place
 *   tiny    norm rows whose mean square / variance is near eps
 *   const   norm rows with one value (a zero variance)
 *   offset  norm rows with a large common offset (1000 + U[-1, 1): one-pass variance cancels)
 *
 * A case carries its class as the param "input" (absent = random), so ids read
 * ".../rows=4096,cols=32768,input=exact/fp32" and the random cases keep their ids. */
#ifndef XPB_INPUT_H
#define XPB_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum xpb_input_class {
    XPB_INPUT_RANDOM = 0,
    XPB_INPUT_EXACT,
    XPB_INPUT_LARGE,
    XPB_INPUT_PEAK,
    XPB_INPUT_TINY,
    XPB_INPUT_CONST,
    XPB_INPUT_OFFSET,
    XPB_INPUT_LEAD,
    XPB_INPUT_COUNT
} xpb_input_class;

#define XPB_INPUT_KEY "input"

/* "random", "exact", ... */
const char *xpb_input_name(xpb_input_class k);
/* Returns XPB_INPUT_COUNT when name is no class. */
xpb_input_class xpb_input_from_name(const char *name);

/* One case parameter as it appears in ids, --size and rerun commands: "cols=4096", and for the
 * input class "input=exact". */
struct xpb_param;
int xpb_param_format(const struct xpb_param *p, char *buf, size_t n);

#endif
