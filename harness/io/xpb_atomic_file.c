/* xpb_atomic_file.c - write-to-temporary-then-rename (xpb_atomic_file.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xpb_atomic_file.h"

FILE *xpb_file_begin(const char *path, char *tmp, size_t tmp_len, xpb_error *err)
{
    snprintf(tmp, tmp_len, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        xpb_fail(err, XPB_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return f;
}

xpb_status xpb_file_commit(FILE *f, const char *tmp, const char *path, xpb_error *err)
{
    int bad = ferror(f) != 0;
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return xpb_fail(err, XPB_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    return XPB_OK;
}
