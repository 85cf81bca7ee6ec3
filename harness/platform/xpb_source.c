/* xpb_source.c - absolute paths for printed commands (xpb_source.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "xpb_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_build_info.h"

#define PATH_LEN 4096

bool xpb_self_path(char *dst, size_t n)
{
    char exe[PATH_LEN];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0 || (size_t)len >= n) {
        snprintf(dst, n, "xpubench");
        return false;
    }
    exe[len] = '\0';
    snprintf(dst, n, "%s", exe);
    return true;
}

/* dst = dir/rel when that exists and fits. */
static bool try_path(const char *dir, const char *rel, char *dst, size_t n)
{
    return snprintf(dst, n, "%s/%s", dir, rel) < (int)n && access(dst, F_OK) == 0;
}

bool xpb_source_path(const char *rel, char *dst, size_t n)
{
    if (try_path(XPB_SOURCE_DIR, rel, dst, n))
        return true;
    /* build/xpubench, build/sub/xpubench: the repository is one or two levels above the binary */
    char exe[PATH_LEN];
    if (xpb_self_path(exe, sizeof exe)) {
        static const char *const up[] = {"/..", "/../.."};
        char *slash = strrchr(exe, '/');
        for (size_t i = 0; slash && i < sizeof up / sizeof up[0]; i++) {
            char dir[PATH_LEN];
            snprintf(dir, sizeof dir, "%.*s%s", (int)(slash - exe), exe, up[i]);
            char *real = realpath(dir, NULL);
            bool found = real && try_path(real, rel, dst, n);
            free(real);
            if (found)
                return true;
        }
    }
    snprintf(dst, n, "%s", rel);
    return false;
}

void xpb_shell_word(char *dst, size_t n, size_t *o, const char *src)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%";
    if (*o >= n)
        return;
    if (*src && strspn(src, safe) == strlen(src)) {
        *o += (size_t)snprintf(dst + *o, n - *o, "%s", src);
        return;
    }
    *o += (size_t)snprintf(dst + *o, n - *o, "'");
    for (; *src && *o + 6 < n; src++) {
        if (*src == '\'')
            *o += (size_t)snprintf(dst + *o, n - *o, "'\\''"); /* end quote, literal ', reopen */
        else
            dst[(*o)++] = *src;
    }
    if (*o < n)
        *o += (size_t)snprintf(dst + *o, n - *o, "'");
}
