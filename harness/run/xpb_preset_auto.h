/* xpb_preset_auto.h - `run --preset auto` (run's default): each device gets the preset it can
 * finish in reasonable time. A hardware GPU, and the CPU of a machine that has one, run `default`
 * (the suite the figures in docs/performance.md come from); a software device (lavapipe,
 * llvmpipe, SwiftShader: a CPU emulating a GPU API, where one 4096^3 GEMM launch takes minutes)
 * and the CPU of a machine without a hardware GPU run `quick`, which shows every workload on
 * every backend in minutes. What was shortened is said in one line and kept in the results. */
#ifndef XPB_PRESET_AUTO_H
#define XPB_PRESET_AUTO_H

#include <stdbool.h>

#include "xpb_result_record.h"

#define XPB_PRESET_AUTO "auto"
#define XPB_PRESET_FULL_SUITE "default" /* what a hardware GPU gets, and what the note offers */
#define XPB_PRESET_SHORT "quick"        /* what a software device gets */

/* Whether this machine has a GPU that is not a software device, on any backend compiled in. */
bool xpb_machine_has_hardware_gpu(void);

/* Sets devices[i].preset of every opened device and run->preset_note ("" when every device runs
 * the full suite). hardware_gpu: xpb_machine_has_hardware_gpu(), passed in for the tests. */
void xpb_preset_auto_assign(xpb_run *run, bool hardware_gpu);

#endif
