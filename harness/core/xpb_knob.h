/* xpb_knob.h - tuning and test knobs read from the environment (XPB_VULKAN_ROW_ONCHIP_CHUNK,
 * XPB_CUDA_REGS_SPIN, ...). A knob that is unset (or empty) takes its default; one that is set
 * to something outside its range is a usage error naming the knob and what it accepts, never a
 * silent default: an A/B run whose knob was ignored would compare a build with itself. */
#ifndef XPB_KNOB_H
#define XPB_KNOB_H

#include <stdbool.h>

#include "xpb_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *out = the integer in `name`, which must lie in [lo, hi] (and be a power of two if pow2),
 * else def when unset. XPB_ERR_USAGE with err filled (and *out = def) when set but invalid. */
xpb_status xpb_knob_long(const char *name, long lo, long hi, bool pow2, long def, long *out, xpb_error *err);

/* *out = the number in `name`, which must lie in (lo, hi), else def when unset. XPB_ERR_USAGE
 * as above. */
xpb_status xpb_knob_double(const char *name, double lo, double hi, double def, double *out, xpb_error *err);

/* *out = the index of the word in `name` among choices[0..n), else def when unset (e.g.
 * XPB_CUDA_ROW_EXP: {"fast", "expf"}). XPB_ERR_USAGE as above, listing the choices. */
xpb_status xpb_knob_choice(const char *name, const char *const *choices, int n, int def, int *out, xpb_error *err);

#ifdef __cplusplus
}
#endif

#endif
