/* xpb_tuning.h - tuning files: the knob values `xpubench tune` chose for one device, which a plain
 * `run` on that device then uses (docs/tuning.md).
 *
 * A tuning file (JSON, schema "xpubench-tuning" version 1) holds entries, each for one backend
 * device: its fingerprint (backend, name, compute units, datasheet memory bandwidth, driver) and
 * the values of tunable knobs (xpb_knobs.def, XPB_KNOB_TUNE rows) that differ from the defaults,
 * plus what the sweep measured. A file is found for a device in the user's cache by its whole
 * fingerprint, in the shipped tuning/ folder by its name, or named with run --tuning FILE; its
 * values go into the knobs' tuned layer (xpb_knob.h), which the environment overrides. */
#ifndef XPB_TUNING_H
#define XPB_TUNING_H

#include <stdbool.h>
#include <stddef.h>

#include "xpb_backend.h"
#include "xpb_knob.h"
#include "xpb_result_record.h"

#define XPB_TUNING_SCHEMA "xpubench-tuning"
#define XPB_TUNING_SCHEMA_VERSION 1

struct cJSON;

/* What a tuning is keyed by: the same name, compute units, memory and driver is the same device
 * as far as the kernels' best settings go. */
typedef struct xpb_tuning_fingerprint {
    char backend[16];
    char name[256];
    int compute_units;
    long peak_gbps;    /* datasheet bandwidth (memory clock x bus width), GB/s rounded; 0 unknown */
    char driver[128];
} xpb_tuning_fingerprint;

/* The fingerprint of a device of backend `backend` described by info. */
void xpb_tuning_fingerprint_of(const char *backend, const xpb_device_info *info, xpb_tuning_fingerprint *fp);
/* The fingerprint as one line, "vulkan 'NVIDIA H200' 132 CUs, peak bandwidth not reported, driver '...'". */
const char *xpb_tuning_fingerprint_text(const xpb_tuning_fingerprint *fp, char *buf, size_t n);

typedef struct xpb_tuning_value {
    xpb_knob_id id;
    char value[XPB_KNOB_VALUE_LEN];
} xpb_tuning_value;

typedef struct xpb_tuning_entry {
    xpb_tuning_fingerprint device;
    int n_values;
    xpb_tuning_value values[XPB_KNOB_COUNT];
} xpb_tuning_entry;

typedef struct xpb_tuning_file {
    char path[1024];
    char sha256[65]; /* of the file's bytes */
    int n_entries;
    xpb_tuning_entry *entries; /* owned */
} xpb_tuning_file;

/* Reads and checks path. XPB_ERR_IO when it cannot be read (err says why; missing: ENOENT in
 * *missing when not NULL), XPB_ERR_USAGE when it is not a valid tuning file (not JSON, another
 * schema or version, a field of the wrong type, a knob that is not declared, not tunable, of
 * another backend than its entry, or a value the knob does not accept): err is one line naming
 * the file and what is wrong, and *out is left empty. Free with xpb_tuning_file_free. */
xpb_status xpb_tuning_load(const char *path, xpb_tuning_file *out, bool *missing, xpb_error *err);
void xpb_tuning_file_free(xpb_tuning_file *f);

typedef enum xpb_tuning_match {
    XPB_TUNING_MATCH_NONE,
    XPB_TUNING_MATCH_NAME,        /* same backend and device name (a shipped tuning)     */
    XPB_TUNING_MATCH_FINGERPRINT, /* the whole fingerprint (the device it was tuned on)  */
} xpb_tuning_match;

/* The entry of f for fp: the first whose whole fingerprint matches, else the first of the same
 * backend and name (*how says which), else NULL. *same_backend: f has an entry of fp's backend. */
const xpb_tuning_entry *xpb_tuning_entry_for(const xpb_tuning_file *f, const xpb_tuning_fingerprint *fp,
                                             xpb_tuning_match *how, bool *same_backend);

/* A new entry object for fp with `values` (its "knobs"), for the tuner to add its record to. */
struct cJSON *xpb_tuning_entry_json(const xpb_tuning_fingerprint *fp, const xpb_tuning_value *values, int n);

/* Writes entry (taken over) into the tuning file at path, replacing an entry of the same whole
 * fingerprint and keeping the others; creates the file (and its folders) when missing. A file
 * that exists and is not a valid tuning file is XPB_ERR_USAGE (never overwritten); XPB_ERR_IO
 * when it cannot be written. Written through a temporary file renamed over path. */
xpb_status xpb_tuning_save_entry(const char *path, struct cJSON *entry, const xpb_tuning_fingerprint *fp,
                                 xpb_error *err);

/* ---- where tuning files are (xpb_tuning_find.c) ---- */

/* The user's tuning folder: $XDG_CACHE_HOME/xpubench/tuning, else $HOME/.cache/xpubench/tuning.
 * false when neither variable is set. */
bool xpb_tuning_cache_dir(char *dst, size_t n);
/* The cache file of fp: <cache>/<backend>-<name>-<12 hex digits of the fingerprint's SHA-256>.json. */
bool xpb_tuning_cache_path(const xpb_tuning_fingerprint *fp, char *dst, size_t n);
/* The folder of the shipped tunings: XPB_TUNING_DIR, else tuning/ of the source tree. */
bool xpb_tuning_shipped_dir(char *dst, size_t n);

/* ---- a run's tuning (xpb_tuning_apply.c) ---- */

#define XPB_TUNING_MAX_DEVICES 16
#define XPB_TUNING_MAX_WARNINGS 8

/* The tuning one device of a run got. */
typedef struct xpb_tuning_used {
    char device[64];    /* "vulkan:0" */
    char file[1024];
    char sha256[65];
    const char *origin; /* "option" (--tuning FILE), "cache", "shipped" */
    xpb_tuning_match match;
    xpb_tuning_entry entry;                 /* the values set into the tuned layer */
    char env[XPB_KNOB_COUNT][XPB_KNOB_VALUE_LEN]; /* by value index: the environment's value that
                                                   * overrides it, "" when none */
} xpb_tuning_used;

/* What a run did about tuning, for its results ("tuning", docs/results-schema.md). */
typedef struct xpb_tuning_state {
    const char *mode;   /* "auto" (found per device), "file" (--tuning FILE), "off" (--no-tuning) */
    char requested[1024]; /* --tuning FILE */
    int n_used;
    xpb_tuning_used used[XPB_TUNING_MAX_DEVICES];
    int n_warnings;
    char warnings[XPB_TUNING_MAX_WARNINGS][400];
} xpb_tuning_state;

/* Finds the tuning of each of devices[0..n) (path: --tuning FILE, else NULL; off: --no-tuning)
 * and sets its values into the knobs' tuned layer, filling *st. Prints one line per device tuned
 * and per environment override, and one warning line for each tuning found and not used (a
 * corrupt file, one of another device, two devices of a backend tuned differently): those run with
 * the defaults. XPB_ERR_USAGE only for a --tuning FILE that cannot be read or is not a valid
 * tuning file (err names it). */
xpb_status xpb_tuning_apply(xpb_tuning_state *st, const xpb_device *devices, size_t n, const char *path, bool off,
                            xpb_error *err);

/* Adds st as the object "tuning" of a results file's root. */
void xpb_tuning_json(struct cJSON *root, const xpb_tuning_state *st);

#endif
