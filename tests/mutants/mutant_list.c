/* mutant_list.c - every mutant of the mutation test, with the bug in words, where no input can
 * show it, and the input classes that do (mutants.h). Adding one: a kernel in the op's
 * *_mutants.c and a line here; the mutants of an op stay together, its control first. */
#include "mutants.h"

#define K(name) extern const xpb_kernel xpb_mutant_##name;
K(softmax_control) K(softmax_sum_skips_last) K(softmax_no_max)
K(rmsnorm_control) K(rmsnorm_mean_n_minus_1) K(rmsnorm_no_eps)
K(layernorm_control) K(layernorm_sample_var) K(layernorm_eps_outside_sqrt) K(layernorm_one_pass_fp32) K(layernorm_shifted_fp32)
K(gemm_control) K(gemm_skips_last_k) K(gemm_skips_last_k_tile)
K(gemv_control) K(gemv_row_short)
K(rope_control) K(rope_position_plus_1)
K(anneal_stats_control) K(anneal_stats_trim_top_extra) K(anneal_stats_order_by_index) K(anneal_stats_var_over_c)
#undef K

/* With one column, x - mean is 0 in every row: the output is b whatever rstd is. */
static bool one_column(const xpb_case *c, const char **why)
{
    *why = "cols = 1: x - mean is 0, so the output is b whatever the variance and rstd";
    return xpb_case_param(c, "cols", 0) == 1;
}

/* Sums around the row's first value x0 lose the variance by (x0 - mean)^2 / var, at most n - 1
 * (the row's first value is at most sqrt(n - 1) standard deviations from its mean): on a few
 * columns that stays inside the bound in fp32 too (err/tol 0.56 at 7 columns, 28 at 4097). */
static bool few_columns(const xpb_case *c, const char **why)
{
    *why = "cols < 64: the first value is within 8 standard deviations of the mean, so fp32's sums around it "
           "lose too little of the variance to leave the bound";
    return xpb_case_param(c, "cols", 0) < 64;
}

/* Anneal: with fewer than 10 points no anchor has t = floor(0.1 c) > 0, so the order of the
 * points does not matter; with one point there is nothing to drop and the variance is 0. */
static bool no_trim(const xpb_case *c, const char **why)
{
    *why = "n < 10: no anchor has 10 points, so t = floor(0.1 c) = 0 and nothing is trimmed";
    return xpb_case_param(c, "n", 0) < 10;
}

static bool one_point(const xpb_case *c, const char **why)
{
    *why = "n = 1: the only anchor has one point: nothing to drop, and its variance is 0 whatever the divisor";
    return xpb_case_param(c, "n", 0) < 2;
}

/* M(name, bug in words, the classes that show it); M_IF: and where no input can show it. */
#define M(name, bug, by) static const xpb_mutant m_##name = {#name, bug, &xpb_mutant_##name, false, NULL, by};
#define M_IF(name, bug, unc, by) static const xpb_mutant m_##name = {#name, bug, &xpb_mutant_##name, false, unc, by};
#define CONTROL(name) static const xpb_mutant m_##name = {#name, "none (control)", &xpb_mutant_##name, true, NULL, NULL};

CONTROL(softmax_control)
M(softmax_sum_skips_last, "the row sum leaves out the last element", "exact")
M(softmax_no_max, "no max subtraction: exp overflows for x > 88", "large")
CONTROL(rmsnorm_control)
M(rmsnorm_mean_n_minus_1, "mean of squares over n - 1", "exact")
M(rmsnorm_no_eps, "eps left out", "exact")
CONTROL(layernorm_control)
M(layernorm_sample_var, "sample variance (divide by n - 1)", "exact")
M_IF(layernorm_eps_outside_sqrt, "eps added outside the square root", one_column, "exact")
M_IF(layernorm_one_pass_fp32, "one-pass variance E[x^2] - E[x]^2 in fp32", one_column, "const,offset")
M_IF(layernorm_shifted_fp32, "sums of x - x0 and (x - x0)^2 around the row's first value x0 in fp32", few_columns,
     "lead")
CONTROL(gemm_control)
M(gemm_skips_last_k, "every dot product leaves out its last k term", "exact")
M(gemm_skips_last_k_tile, "the k loop in tiles of 16 drops the last tile", "exact")
CONTROL(gemv_control)
M(gemv_row_short, "one row of A (B^T) read one element short: the last output misses a term", "exact")
CONTROL(rope_control)
M(rope_position_plus_1, "the position is off by one (p + 1)", "random")
CONTROL(anneal_stats_control)
M_IF(anneal_stats_trim_top_extra, "the trimmed mean drops one point too many at the top", one_point, "random")
M_IF(anneal_stats_order_by_index, "the points are trimmed in index order, not by distance", no_trim, "random")
M_IF(anneal_stats_var_over_c, "the variance is divided by c, not c - 1", one_point, "random")

const xpb_mutant *const xpb_mutants[] = {
    &m_softmax_control,   &m_softmax_sum_skips_last, &m_softmax_no_max,
    &m_rmsnorm_control,   &m_rmsnorm_mean_n_minus_1, &m_rmsnorm_no_eps,
    &m_layernorm_control, &m_layernorm_sample_var,   &m_layernorm_eps_outside_sqrt, &m_layernorm_one_pass_fp32,
    &m_layernorm_shifted_fp32,
    &m_gemm_control,      &m_gemm_skips_last_k,      &m_gemm_skips_last_k_tile,
    &m_gemv_control,      &m_gemv_row_short,
    &m_rope_control,      &m_rope_position_plus_1,
    &m_anneal_stats_control, &m_anneal_stats_trim_top_extra, &m_anneal_stats_order_by_index, &m_anneal_stats_var_over_c,
    NULL,
};
