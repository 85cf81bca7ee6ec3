/* test_dump.c DIR - writes the --dump files of real elementwise cases (add n=1000, softmax
 * rows=3,cols=7, rope) into DIR with xpb_dump_case, and checks the files, .npy headers and
 * sidecars. tests/reports/report_npy_check.py then loads them with numpy. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_dump.h"
#include "xpb_test.h"
#include "xpb_workload.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[*len] = '\0';
    return buf;
}

/* The 'shape': (...) text of an .npy file's header. */
static bool npy_has_shape(const char *path, const char *shape)
{
    size_t len;
    char *buf = slurp(path, &len);
    bool ok = buf && len > 10 && memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0 && strstr(buf + 10, shape);
    if (!ok)
        fprintf(stderr, "  %s: no header with %s\n", path, shape);
    free(buf);
    return ok;
}

static void dump_one(const char *dir, const xpb_case *c, const char *shape_out)
{
    xpb_case_data d;
    xpb_error err = {{0}};
    CHECK(c->workload->make_data(c, 7, &d, &err) == XPB_OK);
    /* the "output": the reference rounded to fp32, as a correct kernel would produce */
    size_t unit = c->workload->unit_elements(c), n = d.out_elements;
    double *ref = malloc((n + 1) * sizeof *ref), *tol = malloc((n + 1) * sizeof *tol);
    float *out = malloc((n + 1) * sizeof *out);
    c->workload->reference(c, &d, "fp32", 0, n / unit, ref, tol);
    for (size_t i = 0; i < n; i++)
        out[i] = (float)ref[i];
    CHECK(xpb_dump_case(dir, c, &d, "fp32", out, n, 7, "cpu:0", "default", &err) == XPB_OK);
    out[0] += 1.0f; /* a second variant with one wrong value */
    CHECK(xpb_dump_case(dir, c, &d, "fp32", out, n, 7, "cuda:0", "tiled", &err) == XPB_OK);
    if (err.msg[0])
        fprintf(stderr, "  dump: %s\n", err.msg);

    char stem[512], path[1024];
    xpb_dump_stem(c->id, stem, sizeof stem);
    snprintf(path, sizeof path, "%s/%s.reference.npy", dir, stem);
    CHECK(npy_has_shape(path, shape_out) && npy_has_shape(path, "'descr': '<f8'"));
    snprintf(path, sizeof path, "%s/%s.tolerance.fp32.npy", dir, stem);
    CHECK(npy_has_shape(path, shape_out));
    snprintf(path, sizeof path, "%s/%s.out.cuda_0__tiled.npy", dir, stem);
    CHECK(npy_has_shape(path, shape_out) && npy_has_shape(path, "'descr': '<f4'"));
    snprintf(path, sizeof path, "%s/%s.in.%s.npy", dir, stem, d.in_name[0]);
    CHECK(npy_has_shape(path, "'shape': ("));

    snprintf(path, sizeof path, "%s/%s.json", dir, stem);
    size_t len;
    char *text = slurp(path, &len);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    CHECK(j != NULL);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "case_id")), c->id));
    CHECK(cJSON_GetObjectItem(j, "seed")->valuedouble == 7);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(j, "outputs")) == 2); /* both variants, merged */
    const char *rerun = cJSON_GetStringValue(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "outputs"), "cuda:0/tiled"), "rerun"));
    CHECK(rerun && rerun[0] == '/' && strstr(rerun, " run --backend cuda:0 ") && strstr(rerun, "--seed 7")); /* this binary by its absolute path */
    cJSON_Delete(j);
    free(text);
    free(ref);
    free(tol);
    free(out);
    xpb_case_data_free(&d);
}

static const xpb_case *find(const xpb_case_list *l, const char *id)
{
    for (size_t i = 0; i < l->count; i++)
        if (!strcmp(l->items[i].id, id))
            return &l->items[i];
    fprintf(stderr, "  no case %s\n", id);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "dump-test";
    const xpb_workload_i *w = xpb_workload_find("elementwise");
    CHECK(w != NULL);
    if (!w)
        XPB_TEST_END();
    xpb_sizes sizes = {.count = 7,
                       .kv = {{"n", 1000}, {"rows", 3}, {"cols", 7}, {"batch", 1}, {"heads", 2}, {"seq", 3},
                              {"head_dim", 4}}};
    xpb_case_list list = {0};
    xpb_error err = {{0}};
    CHECK(w->add_cases("quick", &sizes, &list, &err) == XPB_OK);
    const xpb_case *add = find(&list, "elementwise/add/n=1000/fp32");
    const xpb_case *softmax = find(&list, "elementwise/softmax/rows=3,cols=7/fp32");
    const xpb_case *rope = find(&list, "elementwise/rope/batch=1,heads=2,seq=3,head_dim=4/fp32");
    if (add)
        dump_one(dir, add, "'shape': (1000,)");
    if (softmax)
        dump_one(dir, softmax, "'shape': (3, 7)");
    if (rope)
        dump_one(dir, rope, "'shape': (1, 2, 3, 4)");
    CHECK(add && softmax && rope);
    xpb_case_list_free(&list);
    XPB_TEST_END();
}
