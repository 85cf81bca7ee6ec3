/* test_spirv.c - the SPIR-V reader (harness/plugin/xpb_spirv.c) on modules assembled here, word by
 * word, in the forms compilers emit (storage buffers as StorageBuffer or as Uniform + BufferBlock;
 * the workgroup size as LocalSize, LocalSizeId or a WorkgroupSize constant), on malformed ones
 * (each a one-line usage error), and, given the folder of the example SPIR-V plugin as argv[1]
 * (builds with Vulkan), on glslc's own output. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_spirv.h"
#include "xpb_test.h"

enum { BOUND = 64 };
/* ids */
enum { MAIN = 1, MAIN2, UINT, FLOAT, RTARR, XSTRUCT, XPTR, XVAR, OVAR, PSTRUCT, PPTR, PVAR, V3, C64, C1, WG, C4, ARR,
       VOID, FN };

typedef struct opts {
    uint32_t sc;         /* storage class of the buffers: 12 StorageBuffer, 2 Uniform */
    uint32_t block;      /* decoration of the buffers' struct: 2 Block, 3 BufferBlock */
    bool wg_builtin;     /* a WorkgroupSize constant (64 x 1 x 1) */
    bool local_size_id;  /* LocalSizeId 64 1 1 instead of LocalSize 256 1 1 */
    bool two_entries;
    bool array_push;     /* the push block's last member a float[4] (ArrayStride 4) */
    bool no_binding;     /* out without Binding */
} opts;

typedef struct module {
    uint32_t w[512];
    size_t n;
} module;

static void emit(module *m, uint32_t op, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    m->w[m->n++] = ((uint32_t)(count + 1) << 16) | op;
    for (int i = 0; i < count; i++)
        m->w[m->n++] = va_arg(ap, uint32_t);
    va_end(ap);
}

#define U(x) ((uint32_t)(x))
static const uint32_t MAIN_NAME = 0x6e69616du; /* "main" */
static const uint32_t ALT_NAME = 0x00746c61u;  /* "alt\0" */

/* A softmax-shaped compute module: x at binding 0, out at binding 1, push {uint, uint, uint, float}. */
static void build(const opts *o, module *m)
{
    m->n = 0;
    uint32_t head[5] = {XPB_SPIRV_MAGIC, 0x00010500u, 0, BOUND, 0};
    memcpy(m->w, head, sizeof head);
    m->n = 5;
    emit(m, 17, 1, U(1));                                   /* OpCapability Shader */
    emit(m, 14, 2, U(0), U(1));                             /* OpMemoryModel Logical GLSL450 */
    emit(m, 15, 4, U(5), U(MAIN), MAIN_NAME, U(0));         /* OpEntryPoint GLCompute %main "main" */
    if (o->two_entries)
        emit(m, 15, 3, U(5), U(MAIN2), ALT_NAME);           /* OpEntryPoint GLCompute %main2 "alt" */
    if (o->local_size_id)
        emit(m, 331, 5, U(MAIN), U(38), U(C64), U(C1), U(C1)); /* OpExecutionModeId LocalSizeId */
    else
        emit(m, 16, 5, U(MAIN), U(17), U(256), U(1), U(1)); /* OpExecutionMode LocalSize 256 1 1 */
    emit(m, 71, 2, U(XSTRUCT), o->block);                   /* OpDecorate */
    emit(m, 72, 4, U(XSTRUCT), U(0), U(35), U(0));          /* OpMemberDecorate Offset 0 */
    emit(m, 71, 3, U(XVAR), U(34), U(0));                   /* DescriptorSet 0 */
    emit(m, 71, 3, U(XVAR), U(33), U(0));                   /* Binding 0 */
    emit(m, 71, 3, U(OVAR), U(34), U(0));
    if (!o->no_binding)
        emit(m, 71, 3, U(OVAR), U(33), U(1));
    emit(m, 71, 2, U(PSTRUCT), U(2));
    for (uint32_t i = 0; i < 4; i++)
        emit(m, 72, 4, U(PSTRUCT), i, U(35), 4 * i);
    if (o->wg_builtin)
        emit(m, 71, 3, U(WG), U(11), U(25));                /* BuiltIn WorkgroupSize */
    if (o->array_push)
        emit(m, 71, 3, U(ARR), U(6), U(4));                 /* ArrayStride 4 */
    emit(m, 19, 1, U(VOID));                                /* OpTypeVoid */
    emit(m, 21, 3, U(UINT), U(32), U(0));                   /* OpTypeInt 32 unsigned */
    emit(m, 22, 2, U(FLOAT), U(32));                        /* OpTypeFloat 32 */
    emit(m, 29, 2, U(RTARR), U(FLOAT));                     /* OpTypeRuntimeArray */
    emit(m, 30, 2, U(XSTRUCT), U(RTARR));                   /* OpTypeStruct */
    emit(m, 32, 3, U(XPTR), o->sc, U(XSTRUCT));             /* OpTypePointer */
    emit(m, 23, 3, U(V3), U(UINT), U(3));                   /* OpTypeVector uint 3 */
    emit(m, 50, 3, U(UINT), U(C64), U(64));                 /* OpSpecConstant 64 */
    emit(m, 43, 3, U(UINT), U(C1), U(1));                   /* OpConstant 1 */
    emit(m, 43, 3, U(UINT), U(C4), U(4));
    if (o->wg_builtin)
        emit(m, 51, 5, U(V3), U(WG), U(C64), U(C1), U(C1)); /* OpSpecConstantComposite */
    if (o->array_push)
        emit(m, 28, 3, U(ARR), U(FLOAT), U(C4));            /* OpTypeArray float 4 */
    emit(m, 30, 5, U(PSTRUCT), U(UINT), U(UINT), U(UINT), o->array_push ? U(ARR) : U(FLOAT));
    emit(m, 32, 3, U(PPTR), U(9), U(PSTRUCT));              /* PushConstant */
    emit(m, 59, 3, U(XPTR), U(XVAR), o->sc);                /* OpVariable */
    emit(m, 59, 3, U(XPTR), U(OVAR), o->sc);
    emit(m, 59, 3, U(PPTR), U(PVAR), U(9));
    emit(m, 33, 2, U(FN), U(VOID));                         /* OpTypeFunction: not read */
}

static xpb_status read(const module *m, xpb_spirv_info *info, xpb_error *err)
{
    memset(err, 0, sizeof *err);
    return xpb_spirv_read(m->w, m->n, info, err);
}

static void test_storage_buffer(void)
{
    module m;
    xpb_spirv_info info;
    xpb_error err;
    build(&(opts){.sc = 12, .block = 2}, &m);
    CHECK(read(&m, &info, &err) == XPB_OK);
    CHECK(info.version == 0x00010500u);
    CHECK(info.n_entries == 1 && strcmp(info.entries[0].name, "main") == 0);
    CHECK(info.entries[0].model == XPB_SPIRV_MODEL_GLCOMPUTE);
    CHECK(info.entries[0].local_size[0] == 256 && info.entries[0].local_size[1] == 1);
    CHECK(xpb_spirv_compute_entry(&info, NULL) == &info.entries[0]);
    CHECK(xpb_spirv_compute_entry(&info, "main") == &info.entries[0]);
    CHECK(xpb_spirv_compute_entry(&info, "other") == NULL);
    CHECK(info.n_resources == 2);
    CHECK(info.resources[0].set == 0 && info.resources[0].binding == 0);
    CHECK(info.resources[1].set == 0 && info.resources[1].binding == 1);
    CHECK(info.resources[0].kind == XPB_SPIRV_STORAGE_BUFFER && info.resources[1].kind == XPB_SPIRV_STORAGE_BUFFER);
    CHECK(info.has_push && info.push_bytes == 16 && info.n_push_members == 4);
    CHECK(info.push[0].type == XPB_SPIRV_UINT32 && info.push[3].type == XPB_SPIRV_FLOAT32);
    CHECK(info.push[2].offset == 8 && info.push[3].offset == 12 && info.push[3].size == 4);
}

static void test_forms(void)
{
    module m;
    xpb_spirv_info info;
    xpb_error err;
    /* SPIR-V 1.0's storage buffer: Uniform + BufferBlock; Uniform + Block is a uniform buffer */
    build(&(opts){.sc = 2, .block = 3}, &m);
    CHECK(read(&m, &info, &err) == XPB_OK && info.resources[0].kind == XPB_SPIRV_STORAGE_BUFFER);
    build(&(opts){.sc = 2, .block = 2}, &m);
    CHECK(read(&m, &info, &err) == XPB_OK && info.resources[1].kind == XPB_SPIRV_UNIFORM_BUFFER);
    /* the workgroup size from a WorkgroupSize constant (over LocalSize), or from LocalSizeId */
    build(&(opts){.sc = 12, .block = 2, .wg_builtin = true}, &m);
    CHECK(read(&m, &info, &err) == XPB_OK && info.entries[0].local_size[0] == 64);
    build(&(opts){.sc = 12, .block = 2, .local_size_id = true}, &m);
    CHECK(read(&m, &info, &err) == XPB_OK && info.entries[0].local_size[0] == 64 &&
          info.entries[0].local_size[2] == 1);
    /* two entry points: the unnamed lookup refuses to guess */
    build(&(opts){.sc = 12, .block = 2, .two_entries = true}, &m);
    CHECK(read(&m, &info, &err) == XPB_OK && info.n_entries == 2);
    CHECK(xpb_spirv_compute_entry(&info, NULL) == NULL);
    CHECK(xpb_spirv_compute_entry(&info, "alt") == &info.entries[1]);
    /* an array member: sized by its stride, not a scalar */
    build(&(opts){.sc = 12, .block = 2, .array_push = true}, &m);
    CHECK(read(&m, &info, &err) == XPB_OK && info.push_bytes == 28 && info.push[3].type == XPB_SPIRV_OTHER_TYPE &&
          info.push[3].size == 16);
    /* a resource without Binding */
    build(&(opts){.sc = 12, .block = 2, .no_binding = true}, &m);
    CHECK(read(&m, &info, &err) == XPB_OK && info.resources[1].binding == XPB_SPIRV_NONE);
}

/* Each malformed module: XPB_ERR_USAGE with a one-line message containing `want`. */
static void expect_error(const module *m, const char *want)
{
    xpb_spirv_info info;
    xpb_error err;
    xpb_status st = read(m, &info, &err);
    CHECK(st == XPB_ERR_USAGE);
    CHECK(strstr(err.msg, want) != NULL && strchr(err.msg, '\n') == NULL);
    if (!strstr(err.msg, want))
        fprintf(stderr, "  message: %s (expected '%s')\n", err.msg, want);
}

static void test_malformed(void)
{
    module m;
    build(&(opts){.sc = 12, .block = 2}, &m);
    module bad = m;
    bad.w[0] = 0x464c457fu; /* an ELF file */
    expect_error(&bad, "not a SPIR-V module");
    bad.w[0] = 0x03022307u;
    expect_error(&bad, "other byte order");
    bad = m;
    bad.n = 3;
    expect_error(&bad, "header");
    bad = m;
    bad.n--; /* the last instruction cut short */
    expect_error(&bad, "runs past the end");
    bad = m;
    bad.w[5] = 17; /* OpCapability with a word count of 0 */
    expect_error(&bad, "word count of 0");
    bad = m;
    bad.w[3] = 0;
    expect_error(&bad, "bound");
    bad = m;
    bad.w[3] = PVAR; /* the push-constant variable's id is beyond the bound */
    expect_error(&bad, "outside the module's bound");
    /* an entry point name without its NUL */
    module s;
    build(&(opts){.sc = 12, .block = 2}, &s);
    for (size_t i = 5; i < s.n; i += s.w[i] >> 16)
        if ((s.w[i] & 0xffffu) == 15) {
            s.w[i + 4] = 0x41414141u; /* "AAAA" where the NUL word was */
            break;
        }
    expect_error(&s, "not NUL-terminated");
}

/* glslc's output for the example (examples/plugins/vulkan_softmax): the good module and the one
 * whose out is at binding 2. */
static void test_glslc(const char *dir)
{
    const char *names[] = {"softmax.spv", "softmax_bad_binding.spv"};
    for (int k = 0; k < 2; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        FILE *f = fopen(path, "rb");
        CHECK(f != NULL);
        if (!f)
            continue;
        static uint32_t w[1 << 16];
        size_t n = fread(w, 4, sizeof w / 4, f);
        fclose(f);
        xpb_spirv_info info;
        xpb_error err = {{0}};
        CHECK(xpb_spirv_read(w, n, &info, &err) == XPB_OK);
        const xpb_spirv_entry *e = xpb_spirv_compute_entry(&info, NULL);
        CHECK(e && strcmp(e->name, "main") == 0 && e->local_size[0] == 256);
        CHECK(info.n_resources == 2 && info.resources[0].kind == XPB_SPIRV_STORAGE_BUFFER);
        uint32_t b = info.resources[0].binding + info.resources[1].binding; /* 0 + 1, or 0 + 2 */
        CHECK(b == (k == 0 ? 1u : 2u));
        CHECK(info.has_push && info.push_bytes == 16 && info.n_push_members == 4);
        CHECK(info.push[1].type == XPB_SPIRV_UINT32 && info.push[3].type == XPB_SPIRV_FLOAT32);
    }
}

int main(int argc, char **argv)
{
    test_storage_buffer();
    test_forms();
    test_malformed();
    if (argc > 1)
        test_glslc(argv[1]);
    XPB_TEST_END();
}
