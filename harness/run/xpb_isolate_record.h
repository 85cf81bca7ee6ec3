/* xpb_isolate_record.h - what crosses between the run and an isolated case's process
 * (xpb_isolate.h), through a socket: the device's description there, the case's result back.
 *
 * Both ends are the same binary, so the record is the xpb_result's own bytes, followed by its
 * owned sample arrays: a field added to xpb_result crosses without a line here, unless it owns
 * memory. Pointers in those bytes (the case's workload, the device, the kernel) mean nothing in
 * the receiving process: it keeps its own. Not the results JSON: the results reader keeps only
 * what compare and plot need (xpb_results_loaded.h), and the record must come back whole, to be
 * derived, printed and written by the run like any other. */
#ifndef XPB_ISOLATE_RECORD_H
#define XPB_ISOLATE_RECORD_H

#include <stddef.h>

#include "xpb_result_record.h"

/* Writes r (a one-shot case's result: r->run is not sent) to fd. XPB_ERR_IO when the write
 * fails (the reading end is gone). */
xpb_status xpb_isolate_record_write(int fd, const xpb_result *r, xpb_error *err);

/* Reads the record in buf[0..len) into r, keeping r's case, device and kernel; r's sample arrays
 * are replaced (r holds none before). XPB_ERR_IO, r untouched, when buf is not one whole record
 * of this binary. */
xpb_status xpb_isolate_record_read(const void *buf, size_t len, xpb_result *r, xpb_error *err);

/* The device's description (xpb_device_info), sent to the case's process when it starts, so that
 * it neither queries nor measures it again (the cpu's measured peak alone takes 0.1 s) and
 * describes the device as the run does. XPB_ERR_IO when it cannot be sent or read whole. */
xpb_status xpb_isolate_info_write(int fd, const xpb_device_info *info, xpb_error *err);
xpb_status xpb_isolate_info_read(int fd, xpb_device_info *info, xpb_error *err);

#endif
