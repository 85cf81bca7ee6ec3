/* xpb_tuning_find.c - where tuning files live (xpb_tuning.h): the user's cache, keyed by the whole
 * device fingerprint, and the shipped folder of the source tree, matched by device name. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_sha256.h"
#include "xpb_source.h"
#include "xpb_tuning.h"

bool xpb_tuning_cache_dir(char *dst, size_t n)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') /* the XDG spec: a relative path is to be ignored */
        snprintf(dst, n, "%s/xpubench/tuning", xdg);
    else if (home && *home)
        snprintf(dst, n, "%s/.cache/xpubench/tuning", home);
    else
        return false;
    return true;
}

bool xpb_tuning_cache_path(const xpb_tuning_fingerprint *fp, char *dst, size_t n)
{
    char dir[900], text[700], hex[65], slug[48];
    if (!xpb_tuning_cache_dir(dir, sizeof dir))
        return false;
    xpb_tuning_fingerprint_text(fp, text, sizeof text);
    xpb_sha256_hex(text, strlen(text), hex);
    size_t k = 0; /* the name, readable in a file name: "nvidia-h100-80gb-hbm3" */
    for (const char *c = fp->name; *c && k < sizeof slug - 1; c++)
        if (isalnum((unsigned char)*c))
            slug[k++] = (char)tolower((unsigned char)*c);
        else if (k && slug[k - 1] != '-')
            slug[k++] = '-';
    while (k && slug[k - 1] == '-')
        k--;
    slug[k] = '\0';
    snprintf(dst, n, "%s/%s-%s-%.12s.json", dir, fp->backend, slug, hex);
    return true;
}

bool xpb_tuning_shipped_dir(char *dst, size_t n)
{
    const char *env = getenv("XPB_TUNING_DIR");
    if (env && *env) {
        snprintf(dst, n, "%s", env);
        return true;
    }
    return xpb_source_path("tuning", dst, n);
}
