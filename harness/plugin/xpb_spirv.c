/* xpb_spirv.c - the SPIR-V reader (xpb_spirv.h).
 *
 * One pass over the instructions records, per result id, the instruction that defines it and the
 * decorations the checks need; a second step resolves the entry points' workgroup sizes, the
 * descriptor resources and the push-constant block from those records. Opcodes and enumerants
 * are the SPIR-V specification's (unified, section 3). */
#include <stdlib.h>
#include <string.h>

#include "xpb_spirv.h"

/* Opcodes */
enum {
    OP_ENTRY_POINT = 15,
    OP_EXECUTION_MODE = 16,
    OP_TYPE_INT = 21,
    OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23,
    OP_TYPE_ARRAY = 28,
    OP_TYPE_STRUCT = 30,
    OP_TYPE_POINTER = 32,
    OP_CONSTANT = 43,
    OP_CONSTANT_COMPOSITE = 44,
    OP_SPEC_CONSTANT = 50,
    OP_SPEC_CONSTANT_COMPOSITE = 51,
    OP_VARIABLE = 59,
    OP_DECORATE = 71,
    OP_MEMBER_DECORATE = 72,
    OP_EXECUTION_MODE_ID = 331,
};
/* Decorations, execution modes, built-ins and storage classes */
enum { DEC_BLOCK = 2, DEC_BUFFER_BLOCK = 3, DEC_ARRAY_STRIDE = 6, DEC_BUILTIN = 11, DEC_BINDING = 33,
       DEC_DESCRIPTOR_SET = 34, DEC_OFFSET = 35 };
enum { MODE_LOCAL_SIZE = 17, MODE_LOCAL_SIZE_ID = 38 };
enum { BUILTIN_WORKGROUP_SIZE = 25 };
enum { SC_UNIFORM_CONSTANT = 0, SC_UNIFORM = 2, SC_PUSH_CONSTANT = 9, SC_STORAGE_BUFFER = 12 };

#define MAX_BOUND (1u << 20) /* ids; real shaders have thousands */
#define MAX_TYPE_DEPTH 8

typedef struct id_rec {
    uint32_t at; /* word index of the defining instruction, 0 = none */
    uint32_t set, binding, array_stride;
    bool block, buffer_block, workgroup_size;
} id_rec;

typedef struct reader {
    const uint32_t *w;
    size_t n;
    uint32_t bound;
    id_rec *ids;
    uint32_t local_size_id[XPB_SPIRV_MAX_ENTRIES][3]; /* LocalSizeId operands, resolved last */
    xpb_error *err;
} reader;

static uint16_t opcode_at(const reader *r, uint32_t at) { return (uint16_t)(r->w[at] & 0xffffu); }
static uint32_t words_at(const reader *r, uint32_t at) { return r->w[at] >> 16; }

/* The record of id, or NULL (with the error) when it lies beyond the bound. */
static id_rec *rec(reader *r, uint32_t id)
{
    if (id == 0 || id >= r->bound) {
        xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V id %u is outside the module's bound %u", id, r->bound);
        return NULL;
    }
    return &r->ids[id];
}

/* The defining instruction of id when it has opcode op, else 0. */
static uint32_t def_of(const reader *r, uint32_t id, uint16_t op)
{
    if (id == 0 || id >= r->bound || !r->ids[id].at)
        return 0;
    return opcode_at(r, r->ids[id].at) == op ? r->ids[id].at : 0;
}

/* The 32-bit value of a (spec) constant id: its default for a spec constant. */
static bool constant_value(const reader *r, uint32_t id, uint32_t *v)
{
    uint32_t at = def_of(r, id, OP_CONSTANT);
    if (!at)
        at = def_of(r, id, OP_SPEC_CONSTANT);
    if (!at || words_at(r, at) < 4)
        return false;
    *v = r->w[at + 3];
    return true;
}

/* A literal string of the instruction at `at` from word `from`: UTF-8, four bytes a word, the
 * first byte in the lowest bits, NUL-terminated within the instruction. */
static xpb_status literal_string(reader *r, uint32_t at, uint32_t from, char *out, size_t cap)
{
    size_t len = 0;
    for (uint32_t i = from; i < words_at(r, at); i++)
        for (int b = 0; b < 4; b++) {
            char ch = (char)((r->w[at + i] >> (8 * b)) & 0xffu);
            if (ch == '\0') {
                out[len] = '\0';
                return XPB_OK;
            }
            if (len + 1 >= cap)
                return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V entry point name longer than %zu bytes", cap - 1);
            out[len++] = ch;
        }
    return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V string at word %u is not NUL-terminated", at);
}

static xpb_status on_entry_point(reader *r, uint32_t at, xpb_spirv_info *out)
{
    if (words_at(r, at) < 4)
        return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V OpEntryPoint at word %u is too short", at);
    if (out->n_entries == XPB_SPIRV_MAX_ENTRIES)
        return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V module with more than %d entry points",
                        XPB_SPIRV_MAX_ENTRIES);
    xpb_spirv_entry *e = &out->entries[out->n_entries++];
    e->model = r->w[at + 1];
    e->id = r->w[at + 2];
    return literal_string(r, at, 3, e->name, sizeof e->name);
}

static xpb_spirv_entry *entry_by_id(xpb_spirv_info *out, uint32_t id, int *index)
{
    for (int i = 0; i < out->n_entries; i++)
        if (out->entries[i].id == id) {
            *index = i;
            return &out->entries[i];
        }
    return NULL;
}

/* LocalSize (literals) or LocalSizeId (ids, resolved once the constants are known). Entry points
 * precede execution modes in a valid module. */
static void on_execution_mode(reader *r, uint32_t at, bool ids, xpb_spirv_info *out)
{
    int i;
    xpb_spirv_entry *e = words_at(r, at) >= 3 ? entry_by_id(out, r->w[at + 1], &i) : NULL;
    uint32_t mode = words_at(r, at) >= 3 ? r->w[at + 2] : 0;
    if (!e || words_at(r, at) < 6 || mode != (ids ? MODE_LOCAL_SIZE_ID : MODE_LOCAL_SIZE))
        return;
    for (int k = 0; k < 3; k++) {
        if (ids)
            r->local_size_id[i][k] = r->w[at + 3 + k];
        else
            e->local_size[k] = r->w[at + 3 + k];
    }
}

static xpb_status on_decorate(reader *r, uint32_t at)
{
    if (words_at(r, at) < 3)
        return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V OpDecorate at word %u is too short", at);
    id_rec *d = rec(r, r->w[at + 1]);
    if (!d)
        return XPB_ERR_USAGE;
    uint32_t dec = r->w[at + 2], lit = words_at(r, at) >= 4 ? r->w[at + 3] : 0;
    switch (dec) {
    case DEC_BLOCK: d->block = true; break;
    case DEC_BUFFER_BLOCK: d->buffer_block = true; break;
    case DEC_ARRAY_STRIDE: d->array_stride = lit; break;
    case DEC_BINDING: d->binding = lit; break;
    case DEC_DESCRIPTOR_SET: d->set = lit; break;
    case DEC_BUILTIN: d->workgroup_size |= lit == BUILTIN_WORKGROUP_SIZE; break;
    default: break;
    }
    return XPB_OK;
}

/* The pass over the instructions: each result id's defining instruction, decorations, entry
 * points and execution modes. */
static xpb_status scan(reader *r, xpb_spirv_info *out)
{
    xpb_status st = XPB_OK;
    for (size_t at = 5; at < r->n && !st;) {
        uint32_t count = words_at(r, (uint32_t)at);
        uint16_t op = opcode_at(r, (uint32_t)at);
        if (count == 0 || count > r->n - at)
            return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V instruction at word %zu (opcode %u, %u words) %s", at,
                            op, count, count == 0 ? "has a word count of 0" : "runs past the end of the module");
        uint32_t result = 0, need = 1; /* where the result id is, and the fewest words, by the layout */
        switch (op) {
        case OP_ENTRY_POINT: st = on_entry_point(r, (uint32_t)at, out); break;
        case OP_EXECUTION_MODE: on_execution_mode(r, (uint32_t)at, false, out); break;
        case OP_EXECUTION_MODE_ID: on_execution_mode(r, (uint32_t)at, true, out); break;
        case OP_DECORATE: st = on_decorate(r, (uint32_t)at); break;
        case OP_TYPE_STRUCT: result = 1, need = 2; break;
        case OP_TYPE_FLOAT: result = 1, need = 3; break;
        case OP_TYPE_INT: case OP_TYPE_VECTOR: case OP_TYPE_ARRAY: case OP_TYPE_POINTER: result = 1, need = 4; break;
        case OP_CONSTANT_COMPOSITE: case OP_SPEC_CONSTANT_COMPOSITE: result = 2, need = 3; break;
        case OP_CONSTANT: case OP_SPEC_CONSTANT: case OP_VARIABLE: result = 2, need = 4; break;
        default: break;
        }
        if (count < need)
            return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V instruction at word %zu (opcode %u) is too short", at, op);
        if (result) {
            id_rec *d = rec(r, r->w[at + result]);
            if (!d)
                return XPB_ERR_USAGE;
            d->at = (uint32_t)at;
        }
        at += count;
    }
    return st;
}

/* The Offset of member m of struct s (OpMemberDecorate), or XPB_SPIRV_NONE. */
static uint32_t member_offset(const reader *r, uint32_t s, uint32_t m)
{
    for (size_t at = 5; at < r->n; at += words_at(r, (uint32_t)at))
        if (opcode_at(r, (uint32_t)at) == OP_MEMBER_DECORATE && words_at(r, (uint32_t)at) >= 5 &&
            r->w[at + 1] == s && r->w[at + 2] == m && r->w[at + 3] == DEC_OFFSET)
            return r->w[at + 4];
    return XPB_SPIRV_NONE;
}

static xpb_status type_size(reader *r, uint32_t type, int depth, uint32_t *size);

static xpb_status struct_size(reader *r, uint32_t at, int depth, uint32_t *size)
{
    uint32_t s = r->w[at + 1], end = 0;
    for (uint32_t m = 0; m + 2 < words_at(r, at); m++) {
        uint32_t off = member_offset(r, s, m), msize;
        xpb_status st = type_size(r, r->w[at + 2 + m], depth + 1, &msize);
        if (st)
            return st;
        if (off == XPB_SPIRV_NONE)
            return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V push-constant block: member %u has no Offset", m);
        if ((uint64_t)off + msize > end)
            end = off + msize;
    }
    *size = end;
    return XPB_OK;
}

/* Bytes a value of `type` takes in the push-constant block (explicit layout: Offset, ArrayStride). */
static xpb_status type_size(reader *r, uint32_t type, int depth, uint32_t *size)
{
    uint32_t at = type && type < r->bound ? r->ids[type].at : 0, n;
    if (depth > MAX_TYPE_DEPTH || !at)
        return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V push-constant block: type %u is undefined or nested too deep",
                        type);
    xpb_status st;
    switch (opcode_at(r, at)) {
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT: *size = r->w[at + 2] / 8; return XPB_OK;
    case OP_TYPE_VECTOR:
        if ((st = type_size(r, r->w[at + 2], depth + 1, size)))
            return st;
        *size *= r->w[at + 3];
        return XPB_OK;
    case OP_TYPE_ARRAY:
        if (!constant_value(r, r->w[at + 3], &n) || !r->ids[type].array_stride)
            return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V push-constant block: array %u has no constant length "
                            "or no ArrayStride", type);
        *size = n * r->ids[type].array_stride;
        return XPB_OK;
    case OP_TYPE_STRUCT: return struct_size(r, at, depth, size);
    default:
        return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V push-constant block: a member of a type this reader cannot "
                        "size (opcode %u)", opcode_at(r, at));
    }
}

static xpb_spirv_scalar scalar_of(const reader *r, uint32_t type)
{
    uint32_t at;
    if ((at = def_of(r, type, OP_TYPE_INT)) && r->w[at + 2] == 32)
        return r->w[at + 3] ? XPB_SPIRV_INT32 : XPB_SPIRV_UINT32;
    if ((at = def_of(r, type, OP_TYPE_FLOAT)) && r->w[at + 2] == 32)
        return XPB_SPIRV_FLOAT32;
    return XPB_SPIRV_OTHER_TYPE;
}

/* The block behind a PushConstant variable: its members and size. */
static xpb_status push_block(reader *r, uint32_t ptr_type, xpb_spirv_info *out)
{
    uint32_t pat = def_of(r, ptr_type, OP_TYPE_POINTER);
    uint32_t sat = pat ? def_of(r, r->w[pat + 3], OP_TYPE_STRUCT) : 0;
    if (out->has_push)
        return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V module with more than one push-constant block");
    if (!sat)
        return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V push-constant variable that is not a pointer to a struct");
    out->has_push = true;
    uint32_t n = words_at(r, sat) - 2;
    if (n > XPB_SPIRV_MAX_MEMBERS)
        return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V push-constant block of %u members (at most %d)", n,
                        XPB_SPIRV_MAX_MEMBERS);
    for (uint32_t m = 0; m < n; m++) {
        xpb_spirv_member *pm = &out->push[out->n_push_members++];
        xpb_status st = type_size(r, r->w[sat + 2 + m], 1, &pm->size);
        if (st)
            return st;
        pm->offset = member_offset(r, r->w[sat + 1], m);
        pm->type = scalar_of(r, r->w[sat + 2 + m]);
    }
    return struct_size(r, sat, 0, &out->push_bytes);
}

/* Every variable: descriptor resources and the push-constant block. */
static xpb_status variables(reader *r, xpb_spirv_info *out)
{
    for (uint32_t id = 1; id < r->bound; id++) {
        uint32_t at = def_of(r, id, OP_VARIABLE);
        if (!at || words_at(r, at) < 4)
            continue;
        uint32_t sc = r->w[at + 3];
        if (sc == SC_PUSH_CONSTANT) {
            xpb_status st = push_block(r, r->w[at + 1], out);
            if (st)
                return st;
            continue;
        }
        if (sc != SC_UNIFORM_CONSTANT && sc != SC_UNIFORM && sc != SC_STORAGE_BUFFER)
            continue;
        if (out->n_resources == XPB_SPIRV_MAX_RESOURCES)
            return xpb_fail(r->err, XPB_ERR_USAGE, "SPIR-V module with more than %d descriptor resources",
                            XPB_SPIRV_MAX_RESOURCES);
        xpb_spirv_resource *res = &out->resources[out->n_resources++];
        res->set = r->ids[id].set;
        res->binding = r->ids[id].binding;
        /* the block's struct (through arrays of blocks too) says buffer or uniform */
        uint32_t pat = def_of(r, r->w[at + 1], OP_TYPE_POINTER), t = pat ? r->w[pat + 3] : 0, arr;
        while ((arr = def_of(r, t, OP_TYPE_ARRAY)))
            t = r->w[arr + 2];
        bool buffer_block = t && t < r->bound && r->ids[t].buffer_block;
        res->kind = sc == SC_STORAGE_BUFFER || (sc == SC_UNIFORM && buffer_block) ? XPB_SPIRV_STORAGE_BUFFER
                    : sc == SC_UNIFORM                                            ? XPB_SPIRV_UNIFORM_BUFFER
                                                                                  : XPB_SPIRV_OTHER_RESOURCE;
    }
    return XPB_OK;
}

/* The workgroup size of each entry point: a WorkgroupSize constant wins over the modes. */
static void workgroup_sizes(reader *r, xpb_spirv_info *out)
{
    uint32_t wg[3], at = 0;
    bool have_wg = false;
    for (uint32_t id = 1; id < r->bound && !have_wg; id++)
        if (r->ids[id].workgroup_size && ((at = def_of(r, id, OP_CONSTANT_COMPOSITE)) ||
                                          (at = def_of(r, id, OP_SPEC_CONSTANT_COMPOSITE))))
            have_wg = words_at(r, at) == 6 && constant_value(r, r->w[at + 3], &wg[0]) &&
                      constant_value(r, r->w[at + 4], &wg[1]) && constant_value(r, r->w[at + 5], &wg[2]);
    for (int i = 0; i < out->n_entries; i++)
        for (int k = 0; k < 3; k++) {
            uint32_t v;
            if (have_wg)
                out->entries[i].local_size[k] = wg[k];
            else if (r->local_size_id[i][k] && constant_value(r, r->local_size_id[i][k], &v))
                out->entries[i].local_size[k] = v;
        }
}

xpb_status xpb_spirv_read(const uint32_t *words, size_t n_words, xpb_spirv_info *out, xpb_error *err)
{
    memset(out, 0, sizeof *out);
    if (n_words < 5 || words[0] != XPB_SPIRV_MAGIC) {
        uint32_t m = n_words ? words[0] : 0;
        if (m == 0x03022307u)
            return xpb_fail(err, XPB_ERR_USAGE, "SPIR-V in the other byte order (swap it to this machine's)");
        return xpb_fail(err, XPB_ERR_USAGE, "not a SPIR-V module (%s)",
                        n_words < 5 ? "shorter than its 5-word header" : "no SPIR-V magic number 0x07230203");
    }
    reader r = {.w = words, .n = n_words, .bound = words[3], .err = err};
    if (r.bound == 0 || r.bound > MAX_BOUND)
        return xpb_fail(err, XPB_ERR_USAGE, "SPIR-V id bound %u is outside 1..%u", r.bound, MAX_BOUND);
    out->version = words[1];
    r.ids = calloc(r.bound, sizeof *r.ids);
    if (!r.ids)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory reading SPIR-V");
    for (uint32_t i = 0; i < r.bound; i++)
        r.ids[i].set = r.ids[i].binding = XPB_SPIRV_NONE;
    xpb_status st = scan(&r, out);
    if (!st)
        st = variables(&r, out);
    if (!st)
        workgroup_sizes(&r, out);
    free(r.ids);
    return st;
}

const xpb_spirv_entry *xpb_spirv_compute_entry(const xpb_spirv_info *info, const char *name)
{
    const xpb_spirv_entry *found = NULL;
    int n = 0;
    for (int i = 0; i < info->n_entries; i++) {
        const xpb_spirv_entry *e = &info->entries[i];
        if (e->model != XPB_SPIRV_MODEL_GLCOMPUTE || (name && strcmp(e->name, name) != 0))
            continue;
        found = e;
        n++;
    }
    return n == 1 ? found : NULL; /* unnamed and several: the caller must name one */
}
