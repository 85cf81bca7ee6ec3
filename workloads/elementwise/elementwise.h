/* elementwise.h - shared between the elementwise workload's case list and its fp64 reference. */
#ifndef XPB_ELEMENTWISE_H
#define XPB_ELEMENTWISE_H

#include "xpb_input.h"
#include "xpb_workload.h"

/* Which argument struct an op takes. */
typedef enum ew_family { EW_POINTWISE, EW_ROWS, EW_ROPE } ew_family;

extern const xpb_workload_i xpb_workload_elementwise;

ew_family ew_family_of(xpb_op op);

/* Input arrays by position in xpb_case_data.in[]. */
enum { EW_IN_X = 0, EW_IN_Y = 1, EW_IN_W = 1, EW_IN_B = 2 };

/* The input classes an op is checked with, random first; returns the count (row_inputs.c). */
int ew_input_classes(xpb_op op, const xpb_input_class **out);
/* Writes x (rows x cols) of a row op for input class k (row_inputs.c). */
void ew_fill_row_input(xpb_input_class k, xpb_op op, float *x, int64_t rows, int64_t cols, uint64_t seed);
/* The case's input class (XPB_INPUT_RANDOM when it has none). */
xpb_input_class ew_input_of(const xpb_case *c);

size_t ew_unit_elements(const xpb_case *c);
/* The bounds assume an fp32 implementation; precision is recorded but every variant of these
 * ops computes in fp32. */
void ew_reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0,
                  size_t u1, double *ref, double *tol);
const char *ew_tolerance_text(const xpb_case *c, const char *precision);

#endif
