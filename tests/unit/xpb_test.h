/* xpb_test.h - a minimal unit-test kit: CHECK records a failure and goes on; each test program
 * ends with XPB_TEST_END, which prints "N passed, N failed" and sets the exit code. */
#ifndef XPB_TEST_H
#define XPB_TEST_H

#include <math.h>
#include <stdio.h>

static int xpb_test_passed, xpb_test_failed;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (cond) {                                                                          \
            xpb_test_passed++;                                                               \
        } else {                                                                             \
            xpb_test_failed++;                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
        }                                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol) CHECK(fabs((double)(a) - (double)(b)) <= (tol))

#define XPB_TEST_END()                                                                       \
    do {                                                                                     \
        printf("%d passed, %d failed\n", xpb_test_passed, xpb_test_failed);                  \
        return xpb_test_failed ? 1 : 0;                                                      \
    } while (0)

#endif
