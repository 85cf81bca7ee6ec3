/* test_nccl_transport.c - what a results file says of a device group's NCCL (xpb_results_json.c):
 * its version, the transport environment that is set, and the transport expected from that
 * environment and the links (NCCL reports no choice); and a case's `phases_s`. A group device is
 * faked here (no GPU needed): only its label, layout and library line are read. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_results_write.h"
#include "xpb_runner.h"
#include "xpb_test.h"

/* Writes a run of dev and one result to JSON; returns system.devices[0].nccl's field key ("" when
 * absent), and the result's phases_s.setup in *setup. */
static char *nccl_field(xpb_device *dev, const char *key, double *setup)
{
    xpb_result r;
    memset(&r, 0, sizeof r);
    r.c.workload = xpb_workload_find("collectives");
    r.c.op = XPB_OP_ALL_REDUCE;
    xpb_case_set_param(&r.c, "bytes", 16);
    xpb_case_set_param(&r.c, "gpus", dev->n_group);
    xpb_case_make_id(&r.c);
    r.device = dev;
    r.status = XPB_CASE_UNSUPPORTED;
    r.phase = (xpb_phase_times){.setup_s = 0.25, .total_s = 0.5};
    snprintf(r.variant, sizeof r.variant, "nccl");
    xpb_run run = {.run_id = "t", .created_utc = "2026-11-26T00:00:00Z", .results = &r, .count = 1,
                   .devices = dev, .n_devices = 1};
    xpb_run_config cfg = {.preset = "quick", .seed = 1, .repetitions = 1, .min_time = 0.01};
    xpb_run_meta meta = {.cfg = &cfg, .command_line = "xpubench run"};
    char path[] = "/tmp/xpb_test_nccl_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    xpb_error err;
    char *out = strdup("");
    if (xpb_results_write_json(path, &run, &meta, &err) == XPB_OK) {
        static char text[1 << 20]; /* a one-result file is a few KiB */
        FILE *f = fopen(path, "rb");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[n] = '\0';
        cJSON *root = cJSON_Parse(text);
        cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "system"), "devices"), 0);
        cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(d0, "nccl"), key);
        if (cJSON_IsString(v)) {
            free(out);
            out = strdup(v->valuestring);
        } else if (cJSON_IsObject(v)) {
            free(out);
            out = cJSON_PrintUnformatted(v);
        }
        cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "cases"), 0);
        *setup = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "phases_s"), "setup"));
        cJSON_Delete(root);
    }
    unlink(path);
    return out;
}

static void expect(xpb_device *dev, const char *key, const char *want)
{
    double setup = 0;
    char *got = nccl_field(dev, key, &setup);
    CHECK(strcmp(got, want) == 0);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "  %s: got '%s', want '%s'\n", key, got, want);
    CHECK(setup == 0.25);
    free(got);
}

int main(void)
{
    /* every variable the results record (xpb_results_json.c): a GPU machine may set some, e.g.
     * NCCL_NVLS_ENABLE=0 where NVLink multicast stays off */
    static const char *const vars[] = {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL",     "NCCL_SHM_DISABLE", "NCCL_NET",
                                       "NCCL_IB_DISABLE",  "NCCL_NET_PLUGIN",    "NCCL_SOCKET_IFNAME", "NCCL_IB_HCA",
                                       "NCCL_NVLS_ENABLE", "NCCL_CUMEM_ENABLE", "NCCL_ALGO",          "NCCL_PROTO"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    xpb_device dev;
    memset(&dev, 0, sizeof dev);
    dev.backend = xpb_backend_find("cpu"); /* stands in: only its name is written */
    snprintf(dev.label, sizeof dev.label, "cuda:0,1");
    snprintf(dev.info.library, sizeof dev.info.library, "NCCL 2.28.9, one process, 2 ranks");
    dev.n_group = 2;
    dev.layout.n = 2;
    dev.layout.link[0][1] = dev.layout.link[1][0] = XPB_LINK_NVLINK;
    expect(&dev, "version", "2.28.9");
    expect(&dev, "transport_expected", "P2P/NVLink");
    expect(&dev, "env", "{}");
    setenv("NCCL_P2P_DISABLE", "1", 1);
    expect(&dev, "transport_expected", "SHM");
    setenv("NCCL_SHM_DISABLE", "1", 1);
    expect(&dev, "transport_expected", "NET (IB where an InfiniBand/RoCE device is found, else Socket)");
    setenv("NCCL_NET", "Socket", 1);
    expect(&dev, "transport_expected", "NET/Socket");
    expect(&dev, "env", "{\"NCCL_P2P_DISABLE\":\"1\",\"NCCL_SHM_DISABLE\":\"1\",\"NCCL_NET\":\"Socket\"}");
    setenv("NCCL_P2P_DISABLE", "0", 1); /* 0 is not disabled */
    expect(&dev, "transport_expected", "P2P/NVLink");
    dev.layout.link[0][1] = dev.layout.link[1][0] = XPB_LINK_PCIE_SWITCH;
    expect(&dev, "transport_expected", "P2P over PCIe, or SHM (per NCCL_P2P_LEVEL and the PCIe path)");
    dev.layout.link[0][1] = dev.layout.link[1][0] = XPB_LINK_NETWORK; /* two hosts */
    expect(&dev, "transport_expected", "NET/Socket");
    dev.n_group = dev.layout.n = 1;
    expect(&dev, "transport_expected", "none (one rank)");
    XPB_TEST_END();
}
