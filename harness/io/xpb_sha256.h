/* xpb_sha256.h - SHA-256 (FIPS 180-4), for fingerprinting the plugin libraries a run loaded
 * (docs/plugins.md). Small and self-contained: xpubench links no crypto library. */
#ifndef XPB_SHA256_H
#define XPB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "xpb_status.h"

typedef struct xpb_sha256 {
    uint32_t h[8];
    uint64_t bytes;        /* message length so far */
    unsigned char buf[64]; /* the partial block      */
    size_t used;
} xpb_sha256;

void xpb_sha256_init(xpb_sha256 *s);
void xpb_sha256_update(xpb_sha256 *s, const void *data, size_t n);
/* Writes the 32-byte digest; s must be initialized again before reuse. */
void xpb_sha256_final(xpb_sha256 *s, unsigned char digest[32]);
/* The digest of data as 64 lowercase hex digits and a NUL. */
void xpb_sha256_hex(const void *data, size_t n, char hex[65]);
/* The digest of the file at path as hex; XPB_ERR_IO with the reason when it cannot be read. */
xpb_status xpb_sha256_file(const char *path, char hex[65], xpb_error *err);

#endif
