/* The rocprofv3 JSON reader (`rocprofv3 --output-format json`,
 * `<pid>_results.json`, plain or gzip): {"rocprofiler-sdk-tool": [one
 * object per process]}, as generateJSON.cpp writes it.  Read once, as a
 * stream (util/ng_gzip.h): the containers member by member, each record
 * (an agent, a kernel symbol, a dispatch) whole in the window, any other
 * value skipped element by element, so a file of any size is read in a
 * window of a record.
 *
 * Of each process it keeps its agents (the GPU ordinal is
 * logical_node_type_id, the model product_name), its kernel symbols (full
 * name formatted_kernel_name, base truncated_kernel_name), the names of
 * the record kinds and operations (strings.buffer_records), the ROCTx
 * messages (strings.marker_api: correlation id -> text) and, from
 * buffer_records, its kernel dispatches, memory copies, HIP API calls
 * (the launches) and ROCTx ranges (MARKER_CORE_RANGE_API records whose
 * end is after their start).  Members may come in any order: the records
 * are tied to their agents and symbols once the process object ends, and
 * handed to the event sink then.  Times are integer nanoseconds, read as
 * integers. */
#include "sources/rocprof/ng_rocprof_json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/ng_source_names.h"
#include "sources/rocprof/ng_rocprof_feed.h"
#include "util/ng_gzip.h"
#include "util/ng_json_scan.h"
#include "util/ng_util.h"

/* Records of one process kept until its object ends, and the containers
 * nested: a bound on what a small file can make the gate hold. */
#define RECORDS_MAX ((size_t)1 << 24)
#define NUMBER_MAX 64

struct agent {
    int64_t handle, ordinal;
    int gpu;
};

/* A timed record of buffer_records, kept until its process ends. */
struct record {
    int64_t at;              /* its byte in the text, for messages */
    int64_t start, end, tid, corr;
    int64_t a, b;            /* dispatch: kernel_id, agent; copy: src, dst agent */
    int64_t kind, op;
};

enum table { DISPATCH, COPY, CALL, MARKER, TABLES };

static const char *const table_keys[TABLES] = {
    "kernel_dispatch", "memory_copy", "hip_api", "marker_api",
};

struct reader {
    const char *shown;
    struct ng_err *err;
    struct ng_gzip_input in;
    struct ng_source_events *ev;
    struct ng_buf key, text;
    int64_t processes;
    /* the process being read */
    int64_t pid;
    int has_records;
    struct agent *agents;
    size_t n_agents;
    struct ng_buf gpus;             /* "\n"-separated GPU models */
    struct ng_idmap symbol_index;   /* kernel_id -> symbol */
    size_t *symbol_full, *symbol_base;   /* into names; SIZE_MAX: none */
    size_t n_symbols;
    struct ng_buf names;            /* NUL-terminated texts */
    struct ng_idmap op_index;       /* (kind, operation) -> its name in names */
    size_t *op_name;
    size_t n_ops;
    struct ng_idmap kind_index;     /* kind -> its name in names */
    size_t *kind_name;
    size_t n_kinds;
    struct ng_idmap message_index;  /* correlation id -> its ROCTx message in names */
    size_t *message;
    size_t n_messages;
    struct record *records[TABLES];
    size_t n_records[TABLES];
};

/* ---- the stream ---- */

static int64_t offset_of(const struct reader *rd, const unsigned char *at)
{
    return rd->in.base + (int64_t)(at - rd->in.buf);
}

static const unsigned char *here(const struct reader *rd)
{
    return rd->in.buf + rd->in.pos;
}

/* A problem at byte `at` of the text, said once. */
static int bad_at(struct reader *rd, int64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad_at(struct reader *rd, int64_t at, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ng_err_set(rd->err, "'%s': byte %" PRId64 ": %s", rd->shown, at, what);
}

static int truncated(struct reader *rd)
{
    return ng_err_set(rd->err, "'%s' ends inside its JSON at byte %" PRId64 " (truncated? "
                      "rocprofv3 writes the file when the process exits)", rd->shown,
                      rd->in.base + (int64_t)rd->in.len);
}

/* More text into the window; the end of the file inside a value is a
 * truncated file. */
static int more(struct reader *rd)
{
    if (rd->in.eof)
        return truncated(rd);
    return ng_gzip_fill(&rd->in, rd->shown, rd->err);
}

/* The next byte past white space, without taking it. */
static int peek(struct reader *rd, unsigned char *ch)
{
    for (;;) {
        const unsigned char *p = ng_json_space_end(here(rd), rd->in.buf + rd->in.len);
        rd->in.pos = (size_t)(p - rd->in.buf);
        if (rd->in.pos < rd->in.len) {
            *ch = *p;
            return 0;
        }
        if (more(rd) < 0)
            return -1;
    }
}

static int expect(struct reader *rd, unsigned char want, const char *what)
{
    unsigned char ch;
    if (peek(rd, &ch) < 0)
        return -1;
    if (ch != want)
        return bad_at(rd, offset_of(rd, here(rd)), "expected %s", what);
    rd->in.pos++;
    return 0;
}

/* The value at the stream's position, whole in the window: [*a, *b),
 * valid until the window moves. */
static int take(struct reader *rd, const unsigned char **a, const unsigned char **b, int depth)
{
    unsigned char ch;
    for (;;) {
        if (peek(rd, &ch) < 0)
            return -1;
        const unsigned char *p = here(rd);
        enum ng_json_skip_result r = ng_json_skip(&p, rd->in.buf + rd->in.len, depth,
                                                  NG_JSON_DEPTH_MAX, NUMBER_MAX, NG_JSON_STRICT);
        if (r == NG_JSON_OK) {
            *a = here(rd);
            *b = p;
            rd->in.pos = (size_t)(p - rd->in.buf);
            return 0;
        }
        if (r == NG_JSON_BAD)
            return bad_at(rd, offset_of(rd, p), "not valid JSON");
        if (more(rd) < 0)
            return -1;
    }
}

/* The start of a container, or the next of its members or elements:
 * 1 there is one, 0 the container ended. */
static int next(struct reader *rd, unsigned char close, int *first)
{
    unsigned char ch;
    if (peek(rd, &ch) < 0)
        return -1;
    if (ch == close) {
        rd->in.pos++;
        return 0;
    }
    if (!*first && expect(rd, ',', close == '}' ? "',' or '}'" : "',' or ']'") < 0)
        return -1;
    *first = 0;
    return 1;
}

/* A member's key into rd->key, and its colon. */
static int key(struct reader *rd)
{
    const unsigned char *a, *b;
    unsigned char ch;
    if (peek(rd, &ch) < 0)
        return -1;
    if (ch != '"')
        return bad_at(rd, offset_of(rd, here(rd)), "expected a member's name");
    if (take(rd, &a, &b, 0) < 0)
        return -1;
    ng_json_text(a + 1, (size_t)(b - a - 2), memchr(a, '\\', (size_t)(b - a)) != NULL,
                 &rd->key);
    return expect(rd, ':', "':'");
}

static int key_is(const struct reader *rd, const char *word)
{
    return strcmp(rd->key.data ? rd->key.data : "", word) == 0;
}

/* A value of any size skipped: containers member by member. */
static int skip(struct reader *rd, int depth)
{
    unsigned char ch;
    const unsigned char *a, *b;
    if (peek(rd, &ch) < 0)
        return -1;
    if (ch != '[' && ch != '{')
        return take(rd, &a, &b, depth);
    if (depth >= NG_JSON_DEPTH_MAX)
        return bad_at(rd, offset_of(rd, here(rd)), "nested deeper than %d", NG_JSON_DEPTH_MAX);
    unsigned char close = ch == '[' ? ']' : '}';
    rd->in.pos++;
    int first = 1, r;
    while ((r = next(rd, close, &first)) > 0)
        if ((close == '}' && key(rd) < 0) || skip(rd, depth + 1) < 0)
            return -1;
    return r;
}

/* Each element of the array at the stream's position, whole, to fn. */
static int each(struct reader *rd, int (*fn)(struct reader *rd, const unsigned char *a,
                                             const unsigned char *b, void *ctx), void *ctx)
{
    if (expect(rd, '[', "an array") < 0)
        return -1;
    int first = 1, r;
    while ((r = next(rd, ']', &first)) > 0) {
        const unsigned char *a, *b;
        if (take(rd, &a, &b, 2) < 0 || fn(rd, a, b, ctx) < 0)
            return -1;
    }
    return r;
}

/* ---- one value read whole ---- */

/* The member `name` of the object [a, b) (checked JSON): its value's
 * span, 0 when it has none (or [a, b) is no object).  A dotted name
 * looks inside nested objects. */
static int member(const unsigned char *a, const unsigned char *b, const char *name,
                  const unsigned char **va, const unsigned char **vb)
{
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    const unsigned char *p = ng_json_space_end(a, b);
    if (p >= b || *p != '{')
        return 0;
    for (p++;;) {
        p = ng_json_space_end(p, b);
        if (p >= b || *p != '"')
            return 0;
        int escaped = 0;
        const unsigned char *k = p + 1, *ke = ng_json_string_end(k, b, &escaped, 0);
        p = ng_json_space_end(ke, b) + 1;   /* past the colon */
        const unsigned char *v = ng_json_space_end(p, b);
        p = v;
        if (ng_json_skip(&p, b, 0, NG_JSON_DEPTH_MAX, NUMBER_MAX, 0) != NG_JSON_OK)
            return 0;
        if ((size_t)(ke - 1 - k) == n && memcmp(k, name, n) == 0)
            return dot ? member(v, p, dot + 1, va, vb) : (*va = v, *vb = p, 1);
        p = ng_json_space_end(p, b);
        if (p >= b || *p != ',')
            return 0;
        p++;
    }
}

/* A member that is a non-negative integer (an id, a time in ns): 1 and
 * *v, 0 when absent, -1 (said) when it is something else. */
static int int_member(struct reader *rd, const unsigned char *a, const unsigned char *b,
                      const char *name, const char *what, int64_t *v)
{
    const unsigned char *va, *vb;
    if (!member(a, b, name, &va, &vb))
        return 0;
    uint64_t x = 0;
    const unsigned char *p = va;
    for (; p < vb && ng_json_is_digit(*p); p++) {
        if (x > (UINT64_MAX - 9) / 10)
            break;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    if (p == va || p != vb || x > INT64_MAX)
        return bad_at(rd, offset_of(rd, va), "%s whose \"%s\" is not an integer from 0 to "
                      "2^63-1", what, name);
    *v = (int64_t)x;
    return 1;
}

static int need_int(struct reader *rd, const unsigned char *a, const unsigned char *b,
                    const char *name, const char *what, int64_t *v)
{
    int r = int_member(rd, a, b, name, what, v);
    if (r == 0)
        return bad_at(rd, offset_of(rd, a), "%s without \"%s\"", what, name);
    return r < 0 ? -1 : 0;
}

/* A string member's value into names: its offset, SIZE_MAX when absent
 * or not a string. */
static size_t text_member(struct reader *rd, const unsigned char *a, const unsigned char *b,
                          const char *name)
{
    const unsigned char *va, *vb;
    if (!member(a, b, name, &va, &vb) || *va != '"')
        return SIZE_MAX;
    ng_json_text(va + 1, (size_t)(vb - va - 2), memchr(va, '\\', (size_t)(vb - va)) != NULL,
                 &rd->text);
    size_t at = rd->names.len;
    ng_buf_add(&rd->names, rd->text.data ? rd->text.data : "", rd->text.len + 1);
    return at;
}

static const char *name_at(const struct reader *rd, size_t at)
{
    return at == SIZE_MAX ? NULL : rd->names.data + at;
}

/* ---- the members of a process ---- */

static int take_agent(struct reader *rd, const unsigned char *a, const unsigned char *b, void *ctx)
{
    struct agent ag = { 0, 0, 0 };
    const unsigned char *va, *vb;
    (void)ctx;
    if (need_int(rd, a, b, "id.handle", "an agent", &ag.handle) < 0)
        return -1;
    if (int_member(rd, a, b, "logical_node_type_id", "an agent", &ag.ordinal) < 0)
        return -1;
    /* type: 2 (ROCPROFILER_AGENT_TYPE_GPU), or its name */
    if (member(a, b, "type", &va, &vb))
        ag.gpu = (vb - va == 1 && *va == '2') || (vb - va == 5 && memcmp(va, "\"GPU\"", 5) == 0);
    if (ag.gpu) {
        size_t model = text_member(rd, a, b, "product_name");
        if (model != SIZE_MAX && rd->names.data[model]) {
            ng_buf_adds(&rd->gpus, rd->names.data + model);
            ng_buf_add(&rd->gpus, "\n", 1);
        }
    }
    rd->agents = ng_xgrow(rd->agents, rd->n_agents, sizeof *rd->agents);
    rd->agents[rd->n_agents++] = ag;
    return 0;
}

static int take_symbol(struct reader *rd, const unsigned char *a, const unsigned char *b, void *ctx)
{
    int64_t id;
    (void)ctx;
    if (need_int(rd, a, b, "kernel_id", "a kernel symbol", &id) < 0)
        return -1;
    size_t full = text_member(rd, a, b, "formatted_kernel_name");
    if (full == SIZE_MAX)
        full = text_member(rd, a, b, "demangled_kernel_name");
    if (full == SIZE_MAX)
        full = text_member(rd, a, b, "kernel_name");
    if (full == SIZE_MAX)
        return bad_at(rd, offset_of(rd, a), "a kernel symbol (kernel_id %" PRId64 ") without "
                      "a name", id);
    size_t base = text_member(rd, a, b, "truncated_kernel_name");
    int added;
    size_t i = ng_idmap_get(&rd->symbol_index, id, 0, rd->n_symbols, &added);
    if (added) {
        rd->symbol_full = ng_xgrow(rd->symbol_full, rd->n_symbols, sizeof *rd->symbol_full);
        rd->symbol_base = ng_xgrow(rd->symbol_base, rd->n_symbols, sizeof *rd->symbol_base);
        rd->n_symbols++;
    }
    rd->symbol_full[i] = full;
    rd->symbol_base[i] = base;
    return 0;
}

/* strings.buffer_records: the kind names and their operations, by index. */
static int take_kind(struct reader *rd, const unsigned char *a, const unsigned char *b, void *ctx)
{
    int64_t kind = (int64_t)rd->n_kinds;
    const unsigned char *va, *vb;
    (void)ctx;
    int added;
    ng_idmap_get(&rd->kind_index, kind, 0, rd->n_kinds, &added);
    rd->kind_name = ng_xgrow(rd->kind_name, rd->n_kinds, sizeof *rd->kind_name);
    rd->kind_name[rd->n_kinds++] = text_member(rd, a, b, "kind");
    if (!member(a, b, "operations", &va, &vb) || *va != '[')
        return 0;
    int64_t op = 0;
    for (const unsigned char *p = va + 1; p < vb; op++) {
        p = ng_json_space_end(p, vb);
        if (*p != '"')
            break;
        int escaped = 0;
        const unsigned char *e = ng_json_string_end(p + 1, vb, &escaped, 0);
        ng_json_text(p + 1, (size_t)(e - p - 2), escaped, &rd->text);
        ng_idmap_get(&rd->op_index, kind, op, rd->n_ops, &added);
        if (added) {
            rd->op_name = ng_xgrow(rd->op_name, rd->n_ops, sizeof *rd->op_name);
            rd->op_name[rd->n_ops++] = rd->names.len;
            ng_buf_add(&rd->names, rd->text.data ? rd->text.data : "", rd->text.len + 1);
        }
        p = ng_json_space_end(e, vb);
        if (*p == ',')
            p++;
    }
    return 0;
}

/* strings.marker_api: {"key": correlation id, "value": message}. */
static int take_message(struct reader *rd, const unsigned char *a, const unsigned char *b,
                        void *ctx)
{
    int64_t corr;
    (void)ctx;
    if (need_int(rd, a, b, "key", "a ROCTx message", &corr) < 0)
        return -1;
    size_t text = text_member(rd, a, b, "value");
    int added;
    size_t i = ng_idmap_get(&rd->message_index, corr, 0, rd->n_messages, &added);
    if (added) {
        rd->message = ng_xgrow(rd->message, rd->n_messages, sizeof *rd->message);
        rd->n_messages++;
    }
    rd->message[i] = text;
    return 0;
}

static const char *const table_what[TABLES] = {
    "a kernel dispatch", "a memory copy", "a HIP API record", "a marker record",
};

/* A record of buffer_records: its times (end before start is refused),
 * thread, internal correlation id and what its table needs. */
static int take_record(struct reader *rd, const unsigned char *a, const unsigned char *b,
                       void *ctx)
{
    enum table t = (enum table)(intptr_t)ctx;
    const char *what = table_what[t];
    struct record r = { offset_of(rd, a), 0, 0, 0, 0, 0, 0, 0, 0 };
    if (rd->n_records[t] >= RECORDS_MAX)
        return bad_at(rd, r.at, "more than %zu records of buffer_records.%s in one process; "
                      "refusing it rather than run out of memory", RECORDS_MAX, table_keys[t]);
    if (need_int(rd, a, b, "start_timestamp", what, &r.start) < 0 ||
        need_int(rd, a, b, "end_timestamp", what, &r.end) < 0 ||
        int_member(rd, a, b, "thread_id", what, &r.tid) < 0 ||
        need_int(rd, a, b, "correlation_id.internal", what, &r.corr) < 0 ||
        int_member(rd, a, b, "kind", what, &r.kind) < 0 ||
        int_member(rd, a, b, "operation", what, &r.op) < 0)
        return -1;
    if (r.end < r.start)
        return bad_at(rd, r.at, "%s that ends before it starts (start_timestamp %" PRId64
                      ", end_timestamp %" PRId64 ")", what, r.start, r.end);
    if (t == DISPATCH && (need_int(rd, a, b, "dispatch_info.kernel_id", what, &r.a) < 0 ||
                          need_int(rd, a, b, "dispatch_info.agent_id.handle", what, &r.b) < 0))
        return -1;
    if (t == COPY && (need_int(rd, a, b, "src_agent_id.handle", what, &r.a) < 0 ||
                      need_int(rd, a, b, "dst_agent_id.handle", what, &r.b) < 0))
        return -1;
    if ((t == CALL || t == MARKER) && !ng_source_events_wants_ranges(rd->ev))
        return 0;   /* total mode: the host's records are checked, not kept */
    rd->records[t] = ng_xgrow(rd->records[t], rd->n_records[t], sizeof *rd->records[t]);
    rd->records[t][rd->n_records[t]++] = r;
    return 0;
}

static int read_buffer_records(struct reader *rd)
{
    if (expect(rd, '{', "buffer_records to be an object") < 0)
        return -1;
    rd->has_records = 1;
    int first = 1, r;
    while ((r = next(rd, '}', &first)) > 0) {
        if (key(rd) < 0)
            return -1;
        size_t t = 0;
        while (t < TABLES && !key_is(rd, table_keys[t]))
            t++;
        if ((t < TABLES ? each(rd, take_record, (void *)(intptr_t)t) : skip(rd, 2)) < 0)
            return -1;
    }
    return r;
}

static int read_strings(struct reader *rd)
{
    if (expect(rd, '{', "strings to be an object") < 0)
        return -1;
    int first = 1, r;
    while ((r = next(rd, '}', &first)) > 0) {
        if (key(rd) < 0)
            return -1;
        int ret = key_is(rd, "buffer_records") ? each(rd, take_kind, NULL)
                  : key_is(rd, "marker_api")   ? each(rd, take_message, NULL)
                                               : skip(rd, 2);
        if (ret < 0)
            return -1;
    }
    return r;
}

static int read_metadata(struct reader *rd)
{
    const unsigned char *a, *b;
    if (take(rd, &a, &b, 1) < 0)
        return -1;
    return int_member(rd, a, b, "pid", "the metadata", &rd->pid) < 0 ? -1 : 0;
}

/* ---- a process handed to the sink ---- */

static const struct agent *agent_of(const struct reader *rd, int64_t handle)
{
    for (size_t i = 0; i < rd->n_agents; i++)
        if (rd->agents[i].handle == handle)
            return &rd->agents[i];
    return NULL;
}

static int feed_dispatches(struct reader *rd, uint32_t proc)
{
    for (size_t i = 0; i < rd->n_records[DISPATCH]; i++) {
        const struct record *r = &rd->records[DISPATCH][i];
        size_t s = ng_idmap_find(&rd->symbol_index, r->a, 0);
        if (s == SIZE_MAX)
            return bad_at(rd, r->at, "a kernel dispatch of kernel_id %" PRId64 ", which "
                          "kernel_symbols does not have", r->a);
        const struct agent *ag = agent_of(rd, r->b);
        if (!ag)
            return bad_at(rd, r->at, "a kernel dispatch on agent %" PRId64 ", which the "
                          "process's agents do not list", r->b);
        if (ng_rocprof_feed_kernel(rd->ev, proc, r->corr, ag->ordinal, r->start, r->end,
                                   name_at(rd, rd->symbol_full[s]),
                                   name_at(rd, rd->symbol_base[s])) < 0)
            return -1;
    }
    return 0;
}

/* A copy's name: its operation's, or its agents' kinds when the strings
 * are missing; its device: the GPU end. */
static int feed_copies(struct reader *rd, uint32_t proc)
{
    for (size_t i = 0; i < rd->n_records[COPY]; i++) {
        const struct record *r = &rd->records[COPY][i];
        const struct agent *src = agent_of(rd, r->a), *dst = agent_of(rd, r->b);
        if (!src || !dst) {
            int64_t h = src ? r->b : r->a;
            return bad_at(rd, r->at, "a memory copy on agent %" PRId64 ", which the "
                          "process's agents do not list", h);
        }
        size_t op = ng_idmap_find(&rd->op_index, r->kind, r->op);
        const char *opname = op == SIZE_MAX ? NULL : rd->names.data + rd->op_name[op];
        static const char *const by_agents[2][2] = {
            { "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE" },
            { "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE" },
        };
        if (!opname)
            opname = by_agents[src->gpu][dst->gpu];
        const char *name = ng_source_names_copy_operation(opname, src->handle != dst->handle);
        int64_t device = dst->gpu ? dst->ordinal : src->ordinal;
        if (ng_rocprof_feed_copy(rd->ev, proc, r->corr, device, r->start, r->end, name) < 0)
            return -1;
    }
    return 0;
}

/* The HIP API calls (the launches) and the ROCTx ranges, for epochs and
 * `ranges`. */
static int feed_host(struct reader *rd, uint32_t proc)
{
    for (size_t i = 0; i < rd->n_records[CALL]; i++) {
        const struct record *r = &rd->records[CALL][i];
        if (ng_source_events_call(rd->ev, proc, r->tid, r->corr, r->start) < 0)
            return -1;
    }
    for (size_t i = 0; i < rd->n_records[MARKER]; i++) {
        const struct record *r = &rd->records[MARKER][i];
        size_t k = ng_idmap_find(&rd->kind_index, r->kind, 0);
        const char *kind = k == SIZE_MAX ? NULL : name_at(rd, rd->kind_name[k]);
        if (!kind || strcmp(kind, "MARKER_CORE_RANGE_API") != 0 || r->end <= r->start)
            continue;   /* marks, and the marker API's own calls */
        size_t m = ng_idmap_find(&rd->message_index, r->corr, 0);
        size_t op = ng_idmap_find(&rd->op_index, r->kind, r->op);
        const char *text = m != SIZE_MAX && rd->message[m] != SIZE_MAX
                               ? name_at(rd, rd->message[m])
                           : op != SIZE_MAX ? rd->names.data + rd->op_name[op] : "";
        if (ng_source_events_range(rd->ev, proc, r->tid, r->start, r->end, text) < 0)
            return -1;
    }
    return 0;
}

static void forget_process(struct reader *rd)
{
    rd->pid = 0;
    rd->has_records = 0;
    rd->n_agents = 0;
    rd->gpus.len = 0;
    ng_idmap_release(&rd->symbol_index);
    ng_idmap_release(&rd->op_index);
    ng_idmap_release(&rd->kind_index);
    ng_idmap_release(&rd->message_index);
    rd->n_symbols = rd->n_ops = rd->n_kinds = rd->n_messages = 0;
    rd->names.len = 0;
    for (int t = 0; t < TABLES; t++)
        rd->n_records[t] = 0;
}

static int end_process(struct reader *rd, int64_t at)
{
    if (!rd->has_records)
        return bad_at(rd, at, "a process (pid %" PRId64 ") without buffer_records: was it "
                      "recorded with rocprofv3 --kernel-trace?", rd->pid);
    uint32_t proc = ng_source_events_process(rd->ev, rd->pid);
    for (char *s = rd->gpus.data, *nl; s && s < rd->gpus.data + rd->gpus.len; s = nl + 1) {
        nl = strchr(s, '\n');
        *nl = '\0';
        ng_source_events_gpu(rd->ev, s);
    }
    int ret = feed_dispatches(rd, proc) < 0 || feed_copies(rd, proc) < 0 ||
              feed_host(rd, proc) < 0 ? -1 : 0;
    forget_process(rd);
    return ret;
}

static int read_process(struct reader *rd)
{
    int64_t at = offset_of(rd, here(rd));
    if (expect(rd, '{', "a process object") < 0)
        return -1;
    int first = 1, r;
    while ((r = next(rd, '}', &first)) > 0) {
        if (key(rd) < 0)
            return -1;
        int ret = key_is(rd, "metadata")         ? read_metadata(rd)
                  : key_is(rd, "agents")         ? each(rd, take_agent, NULL)
                  : key_is(rd, "kernel_symbols") ? each(rd, take_symbol, NULL)
                  : key_is(rd, "strings")        ? read_strings(rd)
                  : key_is(rd, "buffer_records") ? read_buffer_records(rd)
                                                 : skip(rd, 2);
        if (ret < 0)
            return -1;
    }
    rd->processes++;
    return r < 0 ? -1 : end_process(rd, at);
}

static int read_file(struct reader *rd)
{
    int first = 1, r, seen = 0;
    if (expect(rd, '{', "a JSON object") < 0)
        return -1;
    while ((r = next(rd, '}', &first)) > 0) {
        if (key(rd) < 0)
            return -1;
        if (!key_is(rd, "rocprofiler-sdk-tool")) {
            if (skip(rd, 1) < 0)
                return -1;
            continue;
        }
        seen = 1;
        int f = 1, e;
        if (expect(rd, '[', "\"rocprofiler-sdk-tool\" to be an array") < 0)
            return -1;
        while ((e = next(rd, ']', &f)) > 0)
            if (read_process(rd) < 0)
                return -1;
        if (e < 0)
            return -1;
    }
    if (r < 0)
        return -1;
    for (;;) {   /* nothing but white space may follow */
        rd->in.pos = (size_t)(ng_json_space_end(here(rd), rd->in.buf + rd->in.len) - rd->in.buf);
        if (rd->in.pos < rd->in.len)
            return bad_at(rd, offset_of(rd, here(rd)), "text after the JSON object");
        if (rd->in.eof)
            break;
        if (ng_gzip_fill(&rd->in, rd->shown, rd->err) < 0)
            return -1;
    }
    if (!seen || rd->processes == 0)
        return ng_err_set(rd->err, "'%s' has no process in \"rocprofiler-sdk-tool\"",
                          rd->shown);
    return 0;
}

static void reader_release(struct reader *rd)
{
    forget_process(rd);
    ng_gzip_close(&rd->in);
    ng_buf_release(&rd->key);
    ng_buf_release(&rd->text);
    ng_buf_release(&rd->gpus);
    ng_buf_release(&rd->names);
    free(rd->agents);
    free(rd->symbol_full);
    free(rd->symbol_base);
    free(rd->op_name);
    free(rd->kind_name);
    free(rd->message);
    for (int t = 0; t < TABLES; t++)
        free(rd->records[t]);
}

int ng_rocprof_json_load(struct ng_profile *p, const char *path, const struct ng_source_opts *opts,
                         struct ng_err *err)
{
    struct reader rd;
    struct ng_source_events ev;
    memset(&rd, 0, sizeof rd);
    rd.in.fd = -1;
    rd.shown = path;
    rd.err = err;
    rd.ev = &ev;
    int ret = ng_rocprof_feed_init(&ev, p, opts, path, err);
    if (ret == 0)
        ret = ng_gzip_open(&rd.in, path, err);
    if (ret == 0)
        ret = read_file(&rd);
    if (ret == 0)
        ret = ng_source_events_finish(&ev);
    ng_source_events_release(&ev);
    reader_release(&rd);
    return ret;
}
