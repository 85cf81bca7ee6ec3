/* xpb_knob.h - tuning and test knobs read from the environment (XPB_VULKAN_ROW_ONCHIP_CHUNK,
 * XPB_CUDA_REGS_SPIN, ...) or from a tuning file (the tuned layer below), each declared once in
 * xpb_knobs.def (its type, values, default, what it tunes, who reads it, what `xpubench tune`
 * sweeps; docs/knobs.md is generated from that table). A knob that is unset (or
 * empty) takes its default; one that is set to something it does not accept is a usage error
 * naming the knob and what it accepts, never a silent default: an A/B run whose knob was ignored
 * would compare a build with itself. */
#ifndef XPB_KNOB_H
#define XPB_KNOB_H

#include <stdbool.h>
#include <stddef.h>

#include "xpb_op_item.h" /* xpb_op_item_next: a per-op value's items */
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

/* The value in effect for id: the environment's, else the tuned one (below), else NULL (unset). */
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

/* Per-op integers: a TEXT knob declared with the form "N or OP:N[,OP:N...]" and the range
 * [lo, hi] of N (pow2: a power of two too). *out = the value for `op` ("softmax"): N for every op,
 * or the item that names op, else def (unset, or op not named), so that a tuning may change one
 * op's value alone (docs/tuning.md). XPB_ERR_USAGE naming the knob (and *out = def) when an item
 * lacks its ':' or its number, names an op not among `ops` ("softmax|rmsnorm|layernorm"), or
 * holds a number the range refuses. */
xpb_status xpb_knob_get_long_for_op(xpb_knob_id id, const char *ops, const char *op, bool pow2, long def, long *out,
                                    xpb_error *err);

/* The index-th word of a WORD knob's declared values (the inverse of _get_choice) into buf, "?"
 * when there is none; returns buf. For a kernel's description of the form it chose. */
const char *xpb_knob_word(xpb_knob_id id, int index, char *buf, size_t n);

/* A WORD knob's index where it cannot fail: the value's index, or the default's when unset or not
 * accepted. For switches read where no status can return (a bool query); the caller checks the
 * knob with xpb_knob_check where one can (the Vulkan device open does for its switches). */
int xpb_knob_choice_or_default(xpb_knob_id id);

/* Every declared knob of `backend` (NULL: all) that is set to a value it does not accept:
 * XPB_ERR_USAGE for the first, as xpb_knob_check. */
xpb_status xpb_knob_check_backend(const char *backend, xpb_error *err);

/* The primitives the readers use, by name (tests use them with their own knobs); `name` is looked
 * up in the environment, then among the tuned values of declared knobs.
 * *out = the integer in `name`, which must lie in [lo, hi] (and be a power of two if pow2),
 * else def when unset. XPB_ERR_USAGE with err filled (and *out = def) when set but invalid. */
xpb_status xpb_knob_long(const char *name, long lo, long hi, bool pow2, long def, long *out, xpb_error *err);

/* *out = the number in `name`, which must lie in (lo, hi), else def when unset. XPB_ERR_USAGE
 * as above. */
xpb_status xpb_knob_double(const char *name, double lo, double hi, double def, double *out, xpb_error *err);

/* *out = the index of the word in `name` among choices[0..n), else def when unset (e.g.
 * XPB_CUDA_ROW_EXP: {"fast", "expf"}). XPB_ERR_USAGE as above, listing the choices. */
xpb_status xpb_knob_choice(const char *name, const char *const *choices, int n, int def, int *out, xpb_error *err);

/* ---- what `xpubench tune` sweeps (the XPB_KNOB_TUNE rows of xpb_knobs.def) ---- */

typedef struct xpb_knob_tune {
    xpb_knob_id id;
    const char *ops;        /* the ops it applies to, "softmax|rmsnorm|layernorm" */
    const char *variants;   /* in these kernel variants, "l2" or "coopmat|coopmat-khr" */
    const char *candidates; /* "1024|2048|8192", or "*": every word / every power of two in range */
} xpb_knob_tune;

#define XPB_KNOB_MAX_CANDIDATES 16
#define XPB_KNOB_VALUE_LEN 64

/* The tune row of id, or NULL: the tuner does not sweep it and no tuning file may set it. */
const xpb_knob_tune *xpb_knob_tune_of(xpb_knob_id id);

/* The candidate values of t into out[0..), at most XPB_KNOB_MAX_CANDIDATES; returns the count. */
int xpb_knob_candidates(const xpb_knob_tune *t, char out[XPB_KNOB_MAX_CANDIDATES][XPB_KNOB_VALUE_LEN]);

/* The declared knob named `name` ("XPB_VULKAN_ROW_L2_CHUNK", or without "XPB_"), XPB_KNOB_COUNT
 * when none is. */
xpb_knob_id xpb_knob_find(const char *name);

/* Whether id accepts `value` as its declaration says (TEXT: any non-empty form, which its reader
 * checks against the device): XPB_ERR_USAGE naming the knob, the value and what it accepts. */
xpb_status xpb_knob_check_value(xpb_knob_id id, const char *value, xpb_error *err);

/* ---- the tuned layer: values a tuning file gives (docs/tuning.md) ----
 * Between the environment and the declared default: a knob set in the environment reads the
 * environment's value, else the tuned value, else its default. The readers above and
 * xpb_knob_value see the result; the layer is per process and set before any case runs. */

/* Sets the tuned value of a tunable id (copied; NULL clears it): XPB_ERR_USAGE when id has no
 * tune row or the value is not one it accepts (xpb_knob_check_value). */
xpb_status xpb_knob_set_tuned(xpb_knob_id id, const char *value, xpb_error *err);
/* Clears every tuned value. */
void xpb_knob_clear_tuned(void);
/* The tuned value of id, NULL when none. */
const char *xpb_knob_tuned(xpb_knob_id id);
/* The environment's value of id, NULL when unset or empty (whatever the tuning says). */
const char *xpb_knob_env(xpb_knob_id id);

#ifdef __cplusplus
}
#endif

#endif
