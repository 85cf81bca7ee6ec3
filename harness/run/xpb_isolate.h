/* xpb_isolate.h - crash isolation (run --isolate, --case-timeout; docs/plugins.md, "Isolation"):
 * a case runs in a process of its own, so that a kernel that crashes, hangs or leaves its device
 * in a sticky error ends that case, not the run.
 *
 * The process is this binary again (fork, then exec): `xpubench run` with the run's own arguments,
 * the device, variant, preset and timing settings pinned, and the case named by id
 * (--isolated-case, cmd_run_isolated.c). It starts afresh: it opens its own device context (a
 * CUDA or Vulkan context cannot be used across a fork, and the parent already holds one), makes
 * the case's inputs, validates and times it exactly as a run without isolation, every round back
 * to back, and sends its result back through a socket (xpb_isolate_record.h). */
#ifndef XPB_ISOLATE_H
#define XPB_ISOLATE_H

#include <stdbool.h>

#include "xpb_result_record.h"
#include "xpb_run_config.h"

/* "off", "plugins", "all": the run's setting as the results name it. */
const char *xpb_isolate_name(int mode);

/* Whether kernel k on case c of dev runs isolated under cfg->isolate: every case under
 * XPB_ISOLATE_ALL, a plugin kernel's (one not among its backend's own) under
 * XPB_ISOLATE_PLUGINS. Never a stateful workload's case (its result owns arrays that do not cross
 * a pipe) nor a device group's (its ranks run in one process, or under MPI). */
bool xpb_isolate_applies(const xpb_run_config *cfg, const xpb_device *dev, const xpb_kernel *k, const xpb_case *c);

/* Runs kernel k on case c of dev in a process of its own and takes its result into r, which
 * keeps its case, device, variant and kernel; r->isolated is set. A process that is killed by a
 * signal, exits without a whole result, or runs past cfg->case_timeout seconds (it is sent
 * SIGTERM, then SIGKILL after XPB_ISOLATE_GRACE_S) makes r an error whose message says so:
 * "killed by SIGSEGV", "timed out after 5 s". */
void xpb_isolate_run(const xpb_device *dev, const xpb_kernel *k, const xpb_case *c, const xpb_run_config *cfg,
                     xpb_result *r);

/* Seconds between SIGTERM and SIGKILL for a case past its time. */
#define XPB_ISOLATE_GRACE_S 2.0

#endif
