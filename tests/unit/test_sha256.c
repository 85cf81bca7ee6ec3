/* test_sha256.c - xpb_sha256 against FIPS 180-4's test vectors (one block, two blocks, a million
 * 'a' fed in uneven pieces so that every buffering path runs) and a file read back. */
#include <stdio.h>
#include <string.h>

#include "xpb_sha256.h"
#include "xpb_test.h"

static void check_hex(const char *msg, const char *want)
{
    char hex[65];
    xpb_sha256_hex(msg, strlen(msg), hex);
    CHECK(strcmp(hex, want) == 0);
    if (strcmp(hex, want) != 0)
        fprintf(stderr, "sha256(\"%.20s...\") = %s, want %s\n", msg, hex, want);
}

int main(int argc, char **argv)
{
    check_hex("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_hex("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* 55 and 56 bytes (sha256sum): the padding's length fits the last block, then just does not */
    check_hex("0123456789012345678901234567890123456789012345678901234",
              "f34d5a0f80c0cbf84c8c0b90218c22637abd199965249da736a20143c8c9c9d9");
    check_hex("01234567890123456789012345678901234567890123456789012345",
              "83aa034bda83e458a0dc9cbce0d4e354716aa0ff770ed37ac0ed2b292052e4af");

    static char a[1000000];
    memset(a, 'a', sizeof a);
    xpb_sha256 s;
    unsigned char d[32];
    char hex[65];
    xpb_sha256_init(&s);
    for (size_t off = 0, step = 1; off < sizeof a; off += step, step = step % 97 + 13)
        xpb_sha256_update(&s, a + off, off + step <= sizeof a ? step : sizeof a - off);
    xpb_sha256_final(&s, d);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);

    /* a file: the same digest as its bytes; a missing one is XPB_ERR_IO naming it */
    char path[4096];
    snprintf(path, sizeof path, "%s/sha256_abc.txt", argc > 1 ? argv[1] : ".");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs("abc", f);
        fclose(f);
        xpb_error err = {{0}};
        CHECK(xpb_sha256_file(path, hex, &err) == XPB_OK);
        CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
        remove(path);
        CHECK(xpb_sha256_file(path, hex, &err) == XPB_ERR_IO);
        CHECK(strstr(err.msg, "sha256_abc.txt") != NULL);
    }
    XPB_TEST_END();
}
