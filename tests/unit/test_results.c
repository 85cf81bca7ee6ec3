/* test_results.c - the results writer: JSON round trip through cJSON against the documented
 * schema (docs/results-schema.md), CSV/Markdown from the same rows, and no file left behind on
 * a failed write. */
#define _DEFAULT_SOURCE /* mkstemp */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_cli.h"
#include "xpb_results_write.h"
#include "xpb_test.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The JSON results file of run, parsed (*root, for cJSON_Delete), and its first case. */
static cJSON *written_case(const char *path, const xpb_run *run, const xpb_run_meta *meta, cJSON **root)
{
    xpb_error err;
    CHECK(xpb_results_write_json(path, run, meta, &err) == XPB_OK);
    char *text = slurp(path);
    *root = cJSON_Parse(text);
    free(text);
    return cJSON_GetArrayItem(cJSON_GetObjectItem(*root, "cases"), 0);
}

/* run's table as xpubench run prints it (owned). */
static char *printed_table(const char *path, const xpb_run *run)
{
    FILE *f = fopen(path, "w");
    xpb_results_print_table(f, run);
    fclose(f);
    return slurp(path);
}

int main(void)
{
    xpb_device dev = {.backend = xpb_backend_find("cpu"), .index = 0, .label = "cpu:0"};
    snprintf(dev.info.name, sizeof dev.info.name, "Test CPU");
    snprintf(dev.info.timer, sizeof dev.info.timer, "host-clock");
    xpb_result res[2];
    memset(res, 0, sizeof res);
    const xpb_workload_i *ew = xpb_workload_find("elementwise");
    CHECK(ew != NULL);
    for (int i = 0; i < 2; i++) {
        res[i].c.workload = ew;
        res[i].c.op = XPB_OP_ADD;
        xpb_case_set_param(&res[i].c, "n", 1000 + i);
        xpb_case_make_id(&res[i].c);
        res[i].c.bytes_read = 8000;
        res[i].c.bytes_written = 4000;
        res[i].device = &dev;
        snprintf(res[i].variant, sizeof res[i].variant, "default");
        snprintf(res[i].precision, sizeof res[i].precision, "fp32");
        res[i].validated = true;
    }
    CHECK(strcmp(res[0].c.id, "elementwise/add/n=1000/fp32") == 0);
    res[0].validation.passed = true;
    res[0].timed = true;
    for (int i = 1; i <= 5; i++)
        xpb_samples_push(&res[0].kernel_samples, i * 1e-6);
    res[0].kernel = xpb_stats_compute(res[0].kernel_samples.v, res[0].kernel_samples.n);
    res[1].status = XPB_CASE_FAILED_VALIDATION;
    snprintf(res[1].message, sizeof res[1].message, "1 of 1001 elements out of tolerance, \"quoted\"");
    xpb_run run = {.run_id = "test-run", .created_utc = "2026-11-22T00:00:00Z", .results = res,
                   .count = 2, .devices = &dev, .n_devices = 1};
    xpb_runner_derive(&run);
    CHECK_NEAR(res[0].gbps, 12000 / 3e-6 * 1e-9, 1e-9); /* bytes / median */
    CHECK(res[0].implausible[0] == 0); /* no datasheet figures: nothing to hold it to */
    /* faster than the hardware: 4 GB/s moving 12000 bytes, 12x a 1000-byte cache, on a 1 GB/s device */
    dev.info.peak_gbps = 1.0, dev.info.cache_bytes = 1000;
    xpb_runner_derive(&run);
    CHECK(strstr(res[0].implausible, "past 1.1x the hardware's 1 GB/s") != NULL);
    dev.info.cache_bytes = 1000000; /* the same data fits the cache: it may beat DRAM */
    xpb_runner_derive(&run);
    CHECK(res[0].implausible[0] == 0);
    res[0].c.flops = 12000, dev.info.peak_gflops_fp32 = 1.0; /* 4 GFLOP/s of fp32 on a 1 GFLOP/s device */
    xpb_runner_derive(&run);
    CHECK(strstr(res[0].implausible, "fp32 peak of 1") != NULL);
    snprintf(res[0].precision, sizeof res[0].precision, "tf32"); /* tensor cores: not held to the fp32 peak */
    xpb_runner_derive(&run);
    CHECK(res[0].implausible[0] == 0);
    snprintf(res[0].precision, sizeof res[0].precision, "fp32");
    res[0].c.flops = 0, dev.info.peak_gflops_fp32 = 0, dev.info.peak_gbps = 0, dev.info.cache_bytes = 0;
    xpb_runner_derive(&run);

    xpb_run_config cfg = {.preset = "quick", .seed = 7, .repetitions = 1, .min_time = 0.01};
    xpb_run_meta meta = {.cfg = &cfg, .command_line = "xpubench run"};
    xpb_sysinfo_read(&meta.sys);
    meta.n_backends = xpb_backends_survey(meta.backends);
    char path[] = "/tmp/xpb_test_results_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    xpb_error err;
    CHECK(xpb_results_write_json(path, &run, &meta, &err) == XPB_OK);

    char *text = slurp(path);
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL);
    CHECK(strcmp(str(root, "schema"), XPB_RESULTS_SCHEMA) == 0);
    CHECK(cJSON_GetObjectItem(root, "schema_version")->valueint == XPB_RESULTS_SCHEMA_VERSION);
    CHECK(strcmp(str(root, "run_id"), "test-run") == 0);
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(root, "xpubench")));
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(root, "system")));
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "config"), "seed")->valueint == 7);
    cJSON *cases = cJSON_GetObjectItem(root, "cases");
    CHECK(cJSON_GetArraySize(cases) == 2);
    cJSON *c0 = cJSON_GetArrayItem(cases, 0), *c1 = cJSON_GetArrayItem(cases, 1);
    CHECK(strcmp(str(c0, "id"), "elementwise/add/n=1000/fp32") == 0);
    CHECK(strcmp(str(c0, "status"), "ok") == 0);
    CHECK(strcmp(str(c0, "backend"), "cpu") == 0);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "params"), "n")->valueint == 1000);
    cJSON *kernel = cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "timing"), "kernel");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(kernel, "samples_s")) == 5);
    CHECK_NEAR(cJSON_GetObjectItem(kernel, "median_s")->valuedouble, 3e-6, 1e-15);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "validation"), "passed")));
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "throughput"), "gbps")));
    /* a failed case carries no timing and no throughput */
    CHECK(strcmp(str(c1, "status"), "failed-validation") == 0);
    CHECK(cJSON_GetObjectItem(c1, "timing") == NULL && cJSON_GetObjectItem(c1, "throughput") == NULL);
    CHECK(strstr(str(c1, "message"), "\"quoted\"") != NULL);
    cJSON_Delete(root);
    free(text);

    CHECK(xpb_results_write_csv(path, &run, &err) == XPB_OK);
    text = slurp(path);
    int lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK(lines == 3);
    CHECK(strstr(text, "\"1 of 1001 elements out of tolerance, \"\"quoted\"\"\"") != NULL);
    free(text);
    CHECK(xpb_results_write_markdown(path, &run, &err) == XPB_OK);
    unlink(path);

    /* a stateful case: run.ops[] carries each op's time in every breakdown run (per_run) */
    xpb_result st = res[0];
    memset(&st.kernel_samples, 0, sizeof st.kernel_samples);
    st.c.workload = xpb_workload_find("anneal");
    st.c.op = XPB_OP_ANNEAL_COMPRESS;
    st.run.present = true;
    st.run.iterations = 4;
    st.run.op_runs = 3;
    double op_samples[3 * XPB_OP_COUNT] = {0};
    for (int i = 0; i < 3; i++) {
        op_samples[i * XPB_OP_COUNT + XPB_OP_ANNEAL_INIT] = (i + 1) * 1e-3;
        op_samples[i * XPB_OP_COUNT + XPB_OP_ANNEAL_ASSIGN] = (i + 1) * 3e-3;
    }
    st.run.op_samples = op_samples;
    st.run.op_seconds[XPB_OP_ANNEAL_INIT] = 2e-3, st.run.op_launches[XPB_OP_ANNEAL_INIT] = 1;
    st.run.op_seconds[XPB_OP_ANNEAL_ASSIGN] = 6e-3, st.run.op_launches[XPB_OP_ANNEAL_ASSIGN] = 4;
    xpb_run srun = {.run_id = "test-run", .results = &st, .count = 1, .devices = &dev, .n_devices = 1};
    cJSON *rj = cJSON_GetObjectItem(written_case(path, &srun, &meta, &root), "run");
    CHECK(cJSON_GetObjectItem(rj, "breakdown_runs")->valueint == 3);
    cJSON *ops = cJSON_GetObjectItem(rj, "ops"), *assign = cJSON_GetArrayItem(ops, 1);
    CHECK(cJSON_GetArraySize(ops) == 2 && strcmp(str(assign, "op"), "assign") == 0);
    CHECK_NEAR(cJSON_GetObjectItem(assign, "share")->valuedouble, 0.75, 1e-12);
    cJSON *per_run = cJSON_GetObjectItem(assign, "per_run");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(per_run, "samples_s")) == 3);
    CHECK_NEAR(cJSON_GetObjectItem(per_run, "median_s")->valuedouble, 6e-3, 1e-15);
    CHECK_NEAR(cJSON_GetArrayItem(cJSON_GetObjectItem(per_run, "samples_s"), 2)->valuedouble, 9e-3, 1e-15);
    cJSON_Delete(root);

    /* a GPU's clocks around the rounds (NVML): the lowest and the highest in the JSON, and a
     * case whose SM clock fell under 80% of its highest is named after the run's counts */
    xpb_result ck = res[0];
    ck.has_conditions = true;
    ck.cond_before = (xpb_conditions){.sm_mhz = 1980, .sm_max_mhz = 1980};
    ck.cond_after = (xpb_conditions){.sm_mhz = 375, .sm_max_mhz = 1980};
    ck.sm_low_mhz = 375;
    CHECK(xpb_result_clock_low(&ck));
    xpb_run crun = {.run_id = "test-run", .results = &ck, .count = 1, .devices = &dev, .n_devices = 1};
    cJSON *cond = cJSON_GetObjectItem(written_case(path, &crun, &meta, &root), "conditions");
    CHECK(cJSON_GetObjectItem(cond, "sm_mhz_lowest")->valuedouble == 375);
    CHECK(cJSON_GetObjectItem(cond, "sm_mhz_max")->valuedouble == 1980);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cond, "clock_low")));
    CHECK(!cJSON_GetObjectItem(cond, "warmup_clock_s")); /* none added: absent */
    cJSON_Delete(root);
    ck.warmup_clock_s = 0.25; /* XPB_WARMUP_CLOCK_S added a quarter second over the rounds */
    cond = cJSON_GetObjectItem(written_case(path, &crun, &meta, &root), "conditions");
    CHECK(cJSON_GetObjectItem(cond, "warmup_clock_s") && cJSON_GetObjectItem(cond, "warmup_clock_s")->valuedouble == 0.25);
    cJSON_Delete(root);
    ck.warmup_clock_s = 0;
    text = printed_table(path, &crun);
    CHECK(strstr(text, "clocks: 1 timed result ran with the SM clock under 80% of its highest (the lowest: cpu:0 "
                       "elementwise/add/n=1000/fp32, 375 of 1980 MHz): their times hold that clock (results: "
                       "conditions; a GPU that idled between rounds: XPB_WARMUP_CLOCK_S, docs/reports.md)") != NULL);
    free(text);
    ck.sm_low_mhz = 1700; /* 86% of the highest: nothing to say */
    CHECK(!xpb_result_clock_low(&ck));
    ck.cond_before.sm_max_mhz = ck.cond_after.sm_max_mhz = 0; /* no highest known: nothing either */
    ck.sm_low_mhz = 375;
    CHECK(!xpb_result_clock_low(&ck));
    text = printed_table(path, &crun);
    CHECK(strstr(text, "clocks:") == NULL);
    free(text);

    /* rounds that move one way (a clock stepped down between them) are said to drift */
    xpb_result dr = res[0];
    memset(&dr.units, 0, sizeof dr.units);
    const double rising[5] = {1.63e-3, 1.63e-3, 2.04e-3, 2.39e-3, 2.73e-3}, steady[5] = {1.63e-3, 1.7e-3, 1.6e-3, 1.65e-3, 1.64e-3};
    for (int i = 0; i < 5; i++)
        xpb_samples_push(&dr.units, rising[i]);
    CHECK_NEAR(xpb_result_round_drift(&dr), 2.73 / 1.63, 1e-12);
    xpb_run drun = {.run_id = "test-run", .results = &dr, .count = 1, .devices = &dev, .n_devices = 1};
    text = printed_table(path, &drun);
    CHECK(strstr(text, "drift: the rounds of 1 timed result moved one way, round after round, by more than 20% from "
                       "the first to the last (the most: cpu:0 elementwise/add/n=1000/fp32, 1.67x)") != NULL);
    free(text);
    cJSON *units = cJSON_GetObjectItem(cJSON_GetObjectItem(written_case(path, &drun, &meta, &root), "timing"), "units");
    CHECK_NEAR(cJSON_GetObjectItem(units, "drift")->valuedouble, 2.73 / 1.63, 1e-12);
    cJSON_Delete(root);
    dr.units.n = 0;
    for (int i = 0; i < 5; i++)
        xpb_samples_push(&dr.units, steady[i]);
    CHECK(xpb_result_round_drift(&dr) == 1.0);
    dr.units.v[4] = 2.5e-3; /* one slow last round, the ones between not on the way: no drift */
    dr.units.v[2] = 1.2e-3;
    CHECK(xpb_result_round_drift(&dr) == 1.0);
    const double noisy[5] = {82.5, 58.0, 65.0, 66.1, 60.3}, back[5] = {5750, 5771, 5261, 4183, 3960};
    memcpy(dr.units.v, noisy, sizeof noisy); /* 0.73x first to last, but up and down on the way */
    CHECK(xpb_result_round_drift(&dr) == 1.0);
    const double odd_first[5] = {2065.8, 1351.4, 1374.0, 1328.1, 1342.3}, odd_last[5] = {2003.9, 1970.1, 2019.2, 2013.2, 2863.3};
    memcpy(dr.units.v, odd_first, sizeof odd_first); /* one odd round, the rest flat: not a drift */
    CHECK(xpb_result_round_drift(&dr) == 1.0);
    memcpy(dr.units.v, odd_last, sizeof odd_last);
    CHECK(xpb_result_round_drift(&dr) == 1.0);
    memcpy(dr.units.v, back, sizeof back); /* down round after round (one step back 0.4%): 0.69x */
    CHECK_NEAR(xpb_result_round_drift(&dr), 3960.0 / 5750.0, 1e-12);
    dr.units.n = 3; /* three rounds fall in order one time in three: never called a drift */
    CHECK(xpb_result_round_drift(&dr) == 1.0);
    xpb_samples_free(&dr.units);

    /* a write that cannot happen is an error and leaves nothing behind */
    CHECK(xpb_results_write_json("/nonexistent-dir/x.json", &run, &meta, &err) == XPB_ERR_IO);
    CHECK(access("/nonexistent-dir/x.json", F_OK) != 0);
    xpb_samples_free(&res[0].kernel_samples);
    XPB_TEST_END();
}
