/* xpb_knob.h - tuning and test knobs read from the environment (XPB_VULKAN_ROW_ONCHIP_CHUNK,
 * XPB_CUDA_REGS_SPIN, ...), each declared once in xpb_knobs.def (its type, values, default, what
 * it tunes, who reads it; docs/knobs.md is generated from that table). A knob that is unset (or
 * empty) takes its default; one that is set to something it does not accept is a usage error
 * naming the knob and what it accepts, never a silent default: an A/B run whose knob was ignored
 * would compare a build with itself. */
#ifndef XPB_KNOB_H
#define XPB_KNOB_H

#include <stdbool.h>
#include <stddef.h>

#include "xpb_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* XPB_KNOB_CUDA_TILED_BK, ...: one id per row of xpb_knobs.def. */
typedef enum xpb_knob_id {
#define XPB_KNOB(id, type, lo, hi, values, def, backend, reader, what) XPB_KNOB_##id,
#include "xpb_knobs.def"
#undef XPB_KNOB
    XPB_KNOB_COUNT
} xpb_knob_id;

typedef enum xpb_knob_type {
    XPB_KNOB_TYPE_INT,  /* an integer in [lo, hi]                                         */
    XPB_KNOB_TYPE_POW2, /* an integer in [lo, hi], a power of two                          */
    XPB_KNOB_TYPE_NUM,  /* a number above lo and below hi                                   */
    XPB_KNOB_TYPE_WORD, /* one of values ("a|b")                                           */
    XPB_KNOB_TYPE_TEXT, /* a configuration of the form `values`, checked by its reader     */
    XPB_KNOB_TYPE_ENV,  /* not a tuning knob: read raw where it is used, declared for the list */
} xpb_knob_type;

/* One row of xpb_knobs.def. */
typedef struct xpb_knob_decl {
    const char *name; /* "XPB_CUDA_TILED_BK" */
    xpb_knob_type type;
    double lo, hi;
    const char *values;  /* WORD: "32|16"; TEXT, ENV: the form; else NULL */
    const char *def;     /* a value, or "(...)" where the reader decides    */
    const char *backend; /* "cuda", "vulkan", "harness"                     */
    const char *reader;  /* the variant or code that reads it               */
    const char *what;
} xpb_knob_decl;

/* The declaration of id (id < XPB_KNOB_COUNT). */
const xpb_knob_decl *xpb_knob_decl_of(xpb_knob_id id);

/* What the knob accepts, as the error messages and the list say it ("an integer in [1, 96]",
 * "32 or 16", the form of a TEXT knob), into buf; returns buf. */
const char *xpb_knob_accepts(const xpb_knob_decl *d, char *buf, size_t n);

/* The value set for id, or NULL when unset or empty. */
const char *xpb_knob_value(xpb_knob_id id);

/* Whether the value set for id (if any) is one it accepts: XPB_ERR_USAGE with err naming the knob
 * and what it accepts if not. TEXT and ENV knobs pass here; their readers check the form. */
xpb_status xpb_knob_check(xpb_knob_id id, xpb_error *err);

/* The readers, by id (INT/POW2, NUM, WORD, TEXT knobs respectively). *out = the value set, else
 * the declared default; XPB_ERR_USAGE with err filled and *out = the default when the value is
 * not accepted. _long_or: the reader's own default `def`, for knobs declared "(...)" (per op,
 * the device's limit). _choice: the index of the word among the declared values. _text: *out =
 * the value or NULL when unset, always XPB_OK (the reader checks the form). */
xpb_status xpb_knob_get_long(xpb_knob_id id, long *out, xpb_error *err);
xpb_status xpb_knob_get_long_or(xpb_knob_id id, long def, long *out, xpb_error *err);
xpb_status xpb_knob_get_double(xpb_knob_id id, double *out, xpb_error *err);
xpb_status xpb_knob_get_choice(xpb_knob_id id, int *out, xpb_error *err);
xpb_status xpb_knob_get_text(xpb_knob_id id, const char **out, xpb_error *err);

/* A WORD knob's index where it cannot fail: the value's index, or the default's when unset or not
 * accepted. For switches read where no status can return (a bool query); the caller checks the
 * knob with xpb_knob_check where one can (the Vulkan device open does for its switches). */
int xpb_knob_choice_or_default(xpb_knob_id id);

/* Every declared knob of `backend` (NULL: all) that is set to a value it does not accept:
 * XPB_ERR_USAGE for the first, as xpb_knob_check. */
xpb_status xpb_knob_check_backend(const char *backend, xpb_error *err);

/* The primitives the readers use, by name (tests use them with their own knobs).
 * *out = the integer in `name`, which must lie in [lo, hi] (and be a power of two if pow2),
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
