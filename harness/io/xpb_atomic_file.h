/* xpb_atomic_file.h - every file xpubench writes (results, comparisons, dumps, .npy) goes to a
 * temporary sibling that is renamed over the target, so a killed run never leaves a
 * half-written file. */
#ifndef XPB_ATOMIC_FILE_H
#define XPB_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "xpb_status.h"

/* Opens path's temporary sibling for writing; xpb_file_commit renames it over path. */
FILE *xpb_file_begin(const char *path, char *tmp, size_t tmp_len, xpb_error *err);
xpb_status xpb_file_commit(FILE *f, const char *tmp, const char *path, xpb_error *err);

#endif
