/* xpb_dump.h - `xpubench run --dump DIR` and the automatic dump of a case that failed validation:
 * the case's inputs, an output, the fp64 reference and its per-element tolerance as .npy files,
 * plus a JSON sidecar (case id, seed, params, files with dtype and shape, and the command that
 * reruns just that case); for a stateful case, what its workload's dump_run writes (inputs,
 * configuration, each run's state and trajectory; sidecar version 2; workloads/anneal/dump.c).
 * Layout in docs/reports.md. Files of one case share a stem:
 *   DIR/<stem>.json                    sidecar (schema "xpubench-dump", version 1; 2 for stateful cases)
 *   DIR/<stem>.in.<name>.npy           each input (x, y, w, ...), in the case's dtype
 *   DIR/<stem>.reference.npy           fp64 reference of output 0
 *   DIR/<stem>.tolerance.<precision>.npy   fp64 allowed |error| per element, per precision
 *   DIR/<stem>.out.<device>.<variant>.npy   output 0 as one device/variant computed it (fp32) */
#ifndef XPB_DUMP_H
#define XPB_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xpb_status.h"
#include "xpb_workload.h"

/* Writes the dump of case c with data d (the inputs generated with seed) into dir (created,
 * with parents, when missing). out holds out_elements fp32 values of output 0 as device/variant
 * (e.g. "cuda:0", "default") of `precision` (xpb_kernel.precision, e.g. "tf32"; NULL = "fp32")
 * produced them; out may be NULL to dump inputs and reference only, and device/variant may be
 * NULL. Inputs and reference are written once per case and seed, the tolerance once per
 * precision; later calls for other devices or variants add their output and merge it into the
 * sidecar. The reference is computed here (c->workload->reference over every unit, in chunks,
 * so memory stays bounded). Every file is written to a temporary name and renamed. Returns
 * XPB_OK, or XPB_ERR_IO / XPB_ERR_OUT_OF_MEMORY with err filled (the run should report it and
 * go on: a dump never changes a case's result). */
xpb_status xpb_dump_case(const char *dir, const xpb_case *c, const xpb_case_data *d, const char *precision,
                         const float *out, size_t out_elements, uint64_t seed, const char *device,
                         const char *variant, xpb_error *err);

#define XPB_DUMP_AUTO_MAX 8                        /* automatic dumps (failures) per run */
#define XPB_DUMP_AUTO_MAX_BYTES ((size_t)256 << 20) /* largest output dumped automatically */

/* The runner's hook, called once per kernel variant after its output was validated.
 * With dump_dir (--dump DIR), every case is dumped there. Otherwise a case that failed
 * validation is dumped into fail_dir (NULL: no automatic dump), at most XPB_DUMP_AUTO_MAX per run
 * (*auto_dumps counts them: start it at 0; NULL = no limit) and only when output 0 is at most
 * XPB_DUMP_AUTO_MAX_BYTES. Writes into note (note_len bytes, "" when there is nothing to say)
 * the lines to print after the case's progress line; for a failed case:
 *   "  rerun: xpubench run --backend cuda:0 ... --seed 1\n  dump: DIR/<stem>.json (...)\n"
 * A dump that cannot be written is reported in note; it never changes the case's result. */
void xpb_dump_after_validation(char *note, size_t note_len, const char *dump_dir, const char *fail_dir,
                               bool failed, const xpb_case *c, const xpb_case_data *d, const char *precision,
                               const float *out, uint64_t seed, const char *device, const char *variant,
                               int *auto_dumps);

/* The same for one run of a stateful workload (xpb_workload_i.run), with the outcome o the
 * validated run kept: the dump is the workload's own (xpb_workload_i.dump_run; when it has none,
 * note says that it is not written). The automatic dump of a failed case follows the rules above,
 * the size limit applying to its inputs; note names the sidecar. */
void xpb_dump_run_after_validation(char *note, size_t note_len, const char *dump_dir, const char *fail_dir,
                                   bool failed, const xpb_case *c, const xpb_case_data *d,
                                   const xpb_run_outcome *o, const char *precision, uint64_t seed,
                                   const char *device, const char *variant, int *auto_dumps);

/* ---- the pieces, for a workload's own dump (xpb_workload_i.dump_run) ----------------------- */

struct cJSON;

/* Opens the sidecar DIR/<stem>.json of case c and seed to add to it, creating dir (with parents)
 * when missing: *root = the one there when it describes this case and seed, has the object
 * `section` ("outputs", "runs") and every file its "arrays" names exists; else a new one of
 * schema_version with empty "arrays" and `section`. The caller frees *root (cJSON_Delete) after
 * xpb_dump_sidecar_commit. XPB_ERR_IO / XPB_ERR_OUT_OF_MEMORY with err filled (*root NULL). */
xpb_status xpb_dump_sidecar_open(const char *dir, const char *stem, const xpb_case *c, uint64_t seed,
                                 int schema_version, const char *section, struct cJSON **root, xpb_error *err);
/* Writes data as DIR/file, an .npy of `descr` (elem_size bytes an element) and shape[0..nd),
 * and records it as into[key] = {file, dtype, shape}, replacing an entry of that key. */
xpb_status xpb_dump_array(const char *dir, const char *file, const char *descr, size_t elem_size,
                          const size_t *shape, int nd, const void *data, struct cJSON *into, const char *key,
                          xpb_error *err);
/* Writes root as DIR/<stem>.json through a temporary file renamed over it. */
xpb_status xpb_dump_sidecar_commit(const char *dir, const char *stem, const struct cJSON *root, xpb_error *err);

/* The file stem of a case id: '/' -> "__", '=' -> '-', every other character outside
 * [A-Za-z0-9._-] -> '_'. e.g. "elementwise__softmax__rows-4096_cols-4096__fp32". */
void xpb_dump_stem(const char *case_id, char *buf, size_t n);

/* The shell command that reruns exactly case c on device (e.g. "cuda:0") with seed, its first
 * word this binary's absolute path (xpb_self_path: it works as printed, xpubench on PATH or not):
 *   /home/u/xpubench/build/xpubench run --backend cuda:0 --workload elementwise --size rows=4096,cols=4096
 *                --filter '^elementwise/softmax/rows=4096,cols=4096/fp32$' --seed 1
 * (one line; the id is regex-escaped and shell-quoted). A case whose data come from a file
 * (c->input) gets --input FILE, and --size only the params that are size keys. */
void xpb_dump_rerun_command(const xpb_case *c, const char *device, uint64_t seed, char *buf, size_t n);

/* The shape of array `name` (an input name, or "out") of case c holding `elements` elements,
 * from the case's params: (rows, cols) for row ops, (batch, heads, seq, head_dim) for rope,
 * (M, K) / (K, N) / (M, N) for gemm A / B / C, (cols,) for a per-column weight; else 1-D.
 * Returns the number of dimensions (1..4). */
int xpb_dump_shape(const xpb_case *c, const char *name, size_t elements, size_t shape[4]);

#endif
