#include "sources/sqlite/ng_btree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/ng_util.h"

#define HEADER_SIZE 100
#define MAX_DEPTH 20            /* pages on a path from the root: SQLite's cursors' limit
                                   (BTCURSOR_MAX_DEPTH), past which it says corrupt */
#define RUN_BYTES (1 << 20)     /* side-by-side leaves read at once */
#define MAX_HEADER 98307        /* the longest record header SQLite reads (OP_Column) */
#define MAX_FIELDS 256          /* the widest record field a query may ask for, + 1 */
#define PAGE_INTERIOR 0x05
#define PAGE_LEAF 0x0d
#define PAGE_INDEX_INTERIOR 0x02
#define PAGE_INDEX_LEAF 0x0a

#define RUN_PAGES 256            /* children a run holds at most */
/* Zero bytes after every buffer a record is decoded from (a run of pages,
 * the root, a spilled payload): a record's header and integers are read
 * with whole 8-byte loads, which may run up to 7 bytes past its end. */
#define PAD 16

/* One page on the way down: a leaf and the next cell, or an interior page,
 * the next child not yet read, and the run of children read at once. */
struct frame {
    const uint8_t *page;
    uint32_t pgno;
    size_t hdr;
    uint32_t n_cells;
    int leaf;
    uint32_t cell;              /* leaf: the next cell; interior: the next child to read */
    uint32_t run_pg[RUN_PAGES];
    uint32_t run_n, run_k;      /* children in the run buffer, the next to descend into */
};

struct ng_btree_cursor {
    int fd;
    uint32_t page_size, usable;
    uint64_t n_pages;
    uint8_t *visited;           /* a bit a page */
    struct ng_btree_query q;
    int8_t want[MAX_FIELDS];    /* record field -> cell index, -1 */
    int max_field;              /* the last field asked for, -1: none */
    int twice;                  /* some field is asked for by two cells */
    size_t n_fixed;             /* cells that are no field: the rowid, constants */
    int need_rowid;             /* a cell is the rowid (else its varint is only skipped) */
    size_t fixed[NG_BTREE_COLS];
    size_t n_wanted;            /* the distinct fields asked for, ascending */
    int wanted_field[NG_BTREE_COLS];
    int wanted_cell[NG_BTREE_COLS];   /* the cell of wanted_field[k] (its first) */
    uint8_t small_size[128];    /* a one-byte serial type's field size */
    /* the field offsets of the last record laid out by its header (fields
     * 0..max_field, every serial type one byte): most rows of a table have
     * the same header, so most records reuse them */
    int head_ok;
    uint8_t head[MAX_FIELDS + 8];
    uint32_t pos[MAX_FIELDS];
    uint64_t head_need;         /* the bytes of data those fields take */
    /* the wanted fields of that layout as cells, when each is an integer,
     * a constant 0 or 1, or NULL (nearly every work row): a cell is one
     * load, shift, mask and add, with no test of its type */
    int plan_ok;
    struct field_plan {
        uint32_t off;
        uint8_t shift;
        enum ng_btree_type type;
        uint64_t mask;
        int64_t add;
    } plan[NG_BTREE_COLS];
    struct ng_btree_cell fixed_cell[NG_BTREE_COLS];   /* the constants of fixed[] */
    uint8_t *root;
    struct frame frame[MAX_DEPTH];
    uint8_t *run[MAX_DEPTH];    /* per depth: the children read at once */
    int depth;                  /* frames in use; 0: done */
    int shape_only;             /* ng_btree_check: interior pages only, no record read */
    uint8_t kind_leaf, kind_interior;   /* the page types of this tree */
    uint8_t *payload;           /* a record that spills onto overflow pages */
    size_t payload_cap;
    uint8_t *overflow;          /* one overflow page */
    struct ng_err *err;
};

int ng_btree_real_int(double d, int64_t *v)
{
    /* [-2^63, 2^63): every double in it converts; the round trip says exact */
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return 0;
    int64_t i = (int64_t)d;
    if ((double)i != d)
        return 0;
    *v = i;
    return 1;
}

static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* 8 bytes at p as stored, and as a big-endian number. */
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t load_be64(const uint8_t *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap64(load64(p));
#else
    return load64(p);
#endif
}

/* A varint at p (at most end - p bytes); its length, 0 if it runs past end. */
static size_t varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < 8; i++) {
        if (p + i >= end)
            return 0;
        x = x << 7 | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    if (p + 8 >= end)
        return 0;
    *v = x << 8 | p[8];
    return 9;
}

/* The length of a varint at p, without its value; 0 if it runs past end. */
static inline size_t varint_len(const uint8_t *p, const uint8_t *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p >= 9) {   /* the first byte without its high bit, 8 at a time */
        uint64_t stops = ~load64(p) & 0x8080808080808080ull;
        return stops ? (size_t)__builtin_ctzll(stops) / 8 + 1 : 9;
    }
#endif
    for (size_t i = 0; i < 9 && p + i < end; i++)
        if (i == 8 || !(p[i] & 0x80))
            return i + 1;
    return 0;
}

/* Most varints of a table are one byte (serial types, small sizes). */
static inline size_t varint1(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    if (p < end && p[0] < 0x80) {
        *v = p[0];
        return 1;
    }
    return varint(p, end, v);
}

static int malformed(struct ng_btree_cursor *s, uint32_t pgno, const char *what)
{
    return ng_err_set(s->err, "database disk image is malformed (page %u of the table: %s)",
                      pgno, what);
}

/* Marks pgno visited; -1 if it is no page of the file or was seen. */
static int visit_once(struct ng_btree_cursor *s, uint32_t pgno)
{
    if (pgno == 0 || pgno > s->n_pages)
        return malformed(s, pgno, "a page number past the last page of the database");
    uint8_t bit = (uint8_t)(1u << (pgno & 7));
    if (s->visited[pgno >> 3] & bit)
        return malformed(s, pgno, "a page reached twice");
    s->visited[pgno >> 3] |= bit;
    return 0;
}

static int read_pages(struct ng_btree_cursor *s, uint32_t first, uint32_t count, uint8_t *buf)
{
    size_t want = (size_t)count * s->page_size;
    off_t at = (off_t)(first - 1) * s->page_size;
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(s->fd, buf + got, want - got, at + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return ng_err_set(s->err, "read error: %s", strerror(errno));
        if (r == 0)
            return malformed(s, first + (uint32_t)(got / s->page_size), "the file ends early");
        got += (size_t)r;
    }
    return 0;
}

/* The part of a payload of size p stored in its cell (the format's rule). */
static uint64_t local_size(const struct ng_btree_cursor *s, uint64_t p)
{
    uint64_t u = s->usable, x = u - 35;
    if (p <= x)
        return p;
    uint64_t m = ((u - 12) * 32 / 255) - 23;
    uint64_t k = m + ((p - m) % (u - 4));
    return k <= x ? k : m;
}

/* The whole payload of a cell that spills: its local part, then the
 * overflow chain, into s->payload. */
static const uint8_t *spilled(struct ng_btree_cursor *s, uint32_t pgno, const uint8_t *local,
                              uint64_t n_local, uint64_t size, uint32_t next)
{
    if (s->payload_cap < size) {
        free(s->payload);
        s->payload_cap = size;
        s->payload = ng_xcalloc(size + PAD, 1);
    }
    memcpy(s->payload, local, n_local);
    uint64_t have = n_local;
    uint8_t *page = s->overflow;
    while (have < size) {
        if (visit_once(s, next) < 0 || read_pages(s, next, 1, page) < 0)
            return NULL;
        uint64_t n = size - have < s->usable - 4 ? size - have : s->usable - 4;
        memcpy(s->payload + have, page + 4, n);
        have += n;
        next = get32(page);
        if (have < size && next == 0) {
            malformed(s, pgno, "an overflow chain that ends early");
            return NULL;
        }
    }
    return s->payload;
}

/* A big-endian two's-complement integer of serial type 1..6 (1, 2, 3, 4,
 * 6 or 8 bytes): one 8-byte load shifted down, with its sign, since every
 * row has a few of them (the bytes after the field are padding or the
 * record's own; the casts are two's complement, as gcc and clang define). */
static const uint8_t int_shift[7] = { 0, 56, 48, 40, 32, 16, 0 };   /* by serial type */

static inline int64_t be_int(const uint8_t *d, uint64_t type)
{
    return (int64_t)load_be64(d) >> int_shift[type];
}

/* One field's value from its serial type at data (end: the payload's end). */
static inline int field(struct ng_btree_cursor *s, uint32_t pgno, uint64_t type, const uint8_t *data,
                 const uint8_t *end, struct ng_btree_cell *c)
{
    static const uint8_t int_bytes[7] = { 0, 1, 2, 3, 4, 6, 8 };
    if (type == 0) {
        c->type = NG_BTREE_NULL;
        return 0;
    }
    if (type <= 6) {
        size_t n = int_bytes[type];
        if (data + n > end)
            return malformed(s, pgno, "a field past its record");
        c->type = NG_BTREE_INT;
        c->i = be_int(data, type);
        return 0;
    }
    if (type == 8 || type == 9) {
        c->type = NG_BTREE_INT;
        c->i = (int64_t)(type - 8);
        return 0;
    }
    if (type == 10 || type == 11)
        return malformed(s, pgno, "a reserved serial type");
    if (type == 7) {   /* a float: an integer when its value is one, as SQL reads it */
        double d;
        uint64_t bits;
        if (data + 8 > end)
            return malformed(s, pgno, "a field past its record");
        bits = load_be64(data);
        memcpy(&d, &bits, sizeof d);
        c->type = ng_btree_real_int(d, &c->i) ? NG_BTREE_INT : NG_BTREE_OTHER;
        return 0;
    }
    c->type = NG_BTREE_OTHER;   /* a text, a blob */
    return 0;
}

static inline uint64_t field_size(uint64_t type)
{
    static const uint8_t sizes[12] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0 };
    return type < 12 ? sizes[type] : (type - 12) / 2;
}

/* A field asked for by two cells: the later ones get the first one's value. */
static void copy_twice(const struct ng_btree_cursor *s, int f, struct ng_btree_cell *cells)
{
    for (size_t k = (size_t)s->want[f] + 1; k < s->q.n; k++)
        if (s->q.col[k] == f)
            cells[k] = cells[s->want[f]];
}

/* A wanted field into its cell, and into any other cell that asks for it. */
static inline int wanted(struct ng_btree_cursor *s, uint32_t pgno, int f, uint64_t type,
                         const uint8_t *data, const uint8_t *end, struct ng_btree_cell *cells)
{
    if (field(s, pgno, type, data, end, &cells[s->want[f]]) < 0)
        return -1;
    if (s->twice)
        copy_twice(s, f, cells);
    return 0;
}

/* Whether header bytes h[0..n) are the laid-out record's, 8 at a time. */
static inline int same_head(const struct ng_btree_cursor *s, const uint8_t *h, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        if (load64(h + i) != load64(s->head + i))
            return 0;
    return i == n || (load_be64(h + i) ^ load_be64(s->head + i)) >> (8 * (8 - (n - i))) == 0;
}

/* The wanted fields of header h as plan rows, if every one is an integer
 * of 1 to 8 bytes, a constant 0 or 1 (types 8, 9) or NULL. */
static void make_plan(struct ng_btree_cursor *s, const uint8_t *h)
{
    s->plan_ok = 1;
    for (size_t k = 0; k < s->n_wanted; k++) {
        int f = s->wanted_field[k];
        uint8_t t = h[f];
        struct field_plan *p = &s->plan[k];
        if (t >= 1 && t <= 6)
            *p = (struct field_plan){ s->pos[f], int_shift[t], NG_BTREE_INT, ~(uint64_t)0, 0 };
        else if (t == 8 || t == 9)
            *p = (struct field_plan){ 0, 0, NG_BTREE_INT, 0, t - 8 };
        else if (t == 0)
            *p = (struct field_plan){ 0, 0, NG_BTREE_NULL, 0, 0 };
        else
            s->plan_ok = 0;
    }
}

/* The offsets of fields 0..n-1 from a header whose serial types are one
 * byte each, in one branch-free pass, kept for the records after it; 0
 * when a type is longer than a byte. */
static int lay_out(struct ng_btree_cursor *s, const uint8_t *h, size_t n)
{
    uint8_t any = 0;
    uint64_t off = 0;
    for (size_t f = 0; f < n; f++) {
        any |= h[f];
        s->pos[f] = (uint32_t)off;
        off += s->small_size[h[f] & 0x7f];
    }
    s->head_ok = !(any & 0x80);
    if (!s->head_ok)
        return 0;
    memcpy(s->head, h, n);
    s->head_need = off;
    make_plan(s, h);
    return 1;
}

/* The wanted fields by the layout's plan (a load past a field stays
 * inside the buffer's padding). */
static inline void fields_by_plan(const struct ng_btree_cursor *s, const uint8_t *data,
                                  struct ng_btree_cell *cells)
{
    for (size_t k = 0; k < s->n_wanted; k++) {
        const struct field_plan *p = &s->plan[k];
        struct ng_btree_cell *c = &cells[s->wanted_cell[k]];
        c->type = p->type;
        c->i = (int64_t)(((uint64_t)((int64_t)load_be64(data + p->off) >> p->shift) & p->mask) +
                         (uint64_t)p->add);
    }
}

/* The wanted fields by their serial types: integers decoded here, the
 * rest as field() does. */
static int fields_by_type(struct ng_btree_cursor *s, uint32_t pgno, const uint8_t *h,
                          const uint8_t *data, const uint8_t *end, struct ng_btree_cell *cells)
{
    for (size_t k = 0; k < s->n_wanted; k++) {
        int f = s->wanted_field[k];
        uint8_t t = h[f];
        struct ng_btree_cell *c = &cells[s->wanted_cell[k]];
        if (t >= 1 && t <= 6) {
            c->type = NG_BTREE_INT;
            c->i = be_int(data + s->pos[f], t);
        } else if (field(s, pgno, t, data + s->pos[f], end, c) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The common record: every serial type up to the last wanted field is one
 * byte (integers, NULLs, short texts), so the header is a byte array and
 * a field's offset comes from the last record with the same header bytes,
 * or from lay_out().  1 done, 0 not such a record (or one whose fields
 * overrun it: the general walk says where), -1 malformed. */
static int record_small(struct ng_btree_cursor *s, uint32_t pgno, const uint8_t *h,
                        const uint8_t *hend, const uint8_t *data, const uint8_t *end,
                        struct ng_btree_cell *cells)
{
    if (s->max_field < 0)
        return 1;
    size_t n = (size_t)s->max_field + 1;
    if ((size_t)(hend - h) < n)
        return 0;
    if ((!s->head_ok || !same_head(s, h, n)) && !lay_out(s, h, n))
        return 0;
    if (s->head_need > (uint64_t)(end - data) ||
        ((size_t)(hend - h) == n && s->head_need != (uint64_t)(end - data)))
        return 0;   /* the general walk says what is wrong */
    /* then only the wanted fields, all inside the record */
    if (s->plan_ok)
        fields_by_plan(s, data, cells);
    else if (fields_by_type(s, pgno, h, data, end, cells) < 0)
        return -1;
    if (s->twice)
        for (size_t k = 0; k < s->n_wanted; k++)
            copy_twice(s, s->wanted_field[k], cells);
    return 1;
}

/* Cell k before any field is read: the rowid, or its constant (the
 * column's default for a record without the field, or a column the table
 * lacks). */
static inline struct ng_btree_cell cell_default(const struct ng_btree_query *q, size_t k,
                                                int64_t rowid)
{
    return q->col[k] == NG_BTREE_ROWID ? (struct ng_btree_cell){ NG_BTREE_INT, rowid }
                                       : q->konst[k];
}

/* One record (payload of size bytes at p) and its rowid into the query's cells. */
static int record(struct ng_btree_cursor *s, uint32_t pgno, const uint8_t *p, uint64_t size,
                  int64_t rowid, struct ng_btree_cell *cells)
{
    const struct ng_btree_query *q = &s->q;
    const uint8_t *end = p + size;
    uint64_t hsize, type;
    size_t n = varint1(p, end, &hsize);

    if (!n || hsize > size || hsize < n || hsize > MAX_HEADER)
        return malformed(s, pgno, "a record header past its record");
    /* the fast path sets every cell of a field; the rowid and constants here */
    for (size_t j = 0; j < s->n_fixed; j++)
        cells[s->fixed[j]] = s->fixed_cell[j];
    if (s->need_rowid)
        for (size_t j = 0; j < s->n_fixed; j++)
            if (q->col[s->fixed[j]] == NG_BTREE_ROWID)
                cells[s->fixed[j]].i = rowid;
    const uint8_t *h = p + n, *hend = p + hsize, *data = p + hsize;
    int fast = record_small(s, pgno, h, hend, data, end, cells);
    if (fast != 0)
        return fast < 0 ? -1 : 0;
    for (size_t k = 0; k < q->n; k++)   /* the general walk starts afresh */
        cells[k] = cell_default(q, k, rowid);
    for (int f = 0; f <= s->max_field && h < hend; f++) {
        size_t m = varint1(h, hend, &type);
        if (!m)
            return malformed(s, pgno, "a record header past its record");
        h += m;
        if (s->want[f] >= 0 && wanted(s, pgno, f, type, data, end, cells) < 0)
            return -1;
        uint64_t sz = field_size(type);
        if (sz > (uint64_t)(end - data))
            return malformed(s, pgno, "a field past its record");
        data += sz;
    }
    /* SQLite's rule once it has read the whole header: the fields fill the
     * record exactly (a record with bytes no field holds is corrupt) */
    if (h == hend && s->max_field >= 0 && data != end)
        return malformed(s, pgno, "a record longer than its fields");
    return 0;
}

/* Cell i of a leaf into cells. */
static int leaf_cell(struct ng_btree_cursor *s, struct frame *f, uint32_t i,
                     struct ng_btree_cell *cells)
{
    const uint8_t *top = f->page + s->usable;
    uint32_t off = get16(f->page + f->hdr + 8 + 2 * i);
    if (off < f->hdr + 8 + 2 * f->n_cells || off >= s->usable)
        return malformed(s, f->pgno, "a cell outside its page");
    const uint8_t *c = f->page + off;
    uint64_t size, rowid = 0;
    size_t a = varint1(c, top, &size), b = !a ? 0
                                         : s->need_rowid ? varint(c + a, top, &rowid)
                                                         : varint_len(c + a, top);
    if (!b || size > ((uint64_t)1 << 31))
        return malformed(s, f->pgno, "a cell outside its page");
    const uint8_t *payload = c + a + b;
    uint64_t local = local_size(s, size);
    if ((uint64_t)(top - payload) < local + (local < size ? 4 : 0))
        return malformed(s, f->pgno, "a cell outside its page");
    if (local < size) {
        payload = spilled(s, f->pgno, payload, local, size, get32(payload + local));
        if (!payload)
            return -1;
    }
    return record(s, f->pgno, payload, size, (int64_t)rowid, cells);
}

/* Starts a frame for page pgno (its bytes at page) one level down. */
static int push(struct ng_btree_cursor *s, uint32_t pgno, const uint8_t *page)
{
    /* the shape walk goes down interior pages only: a leaf, or what is no
     * page of the tree, SQLite reads and judges itself (its own error) */
    if (s->shape_only && page[pgno == 1 ? HEADER_SIZE : 0] != s->kind_interior)
        return 0;
    if (s->depth >= MAX_DEPTH)
        return malformed(s, pgno, "a tree deeper than any table's");
    struct frame *f = &s->frame[s->depth];
    f->page = page;
    f->pgno = pgno;
    f->hdr = pgno == 1 ? HEADER_SIZE : 0;
    if (page[f->hdr] != s->kind_leaf && page[f->hdr] != s->kind_interior)
        return malformed(s, pgno, "not a page of a table");
    f->leaf = page[f->hdr] == s->kind_leaf;
    f->n_cells = get16(page + f->hdr + 3);
    /* SQLite's cursor calls a page below the root with no cells corrupt,
     * and a root with none that is not a leaf (an empty table's root is) */
    if (f->n_cells == 0 && (s->depth > 0 || !f->leaf))
        return malformed(s, pgno, "a page with no cells");
    f->cell = 0;
    f->run_n = f->run_k = 0;
    /* SQLite's bound (MX_CELL) is tighter than the cell pointers' room */
    if (f->n_cells > (s->page_size - 8) / 6 ||
        f->hdr + (f->leaf ? 8 : 12) + 2 * (size_t)f->n_cells > s->usable)
        return malformed(s, pgno, "more cells than fit");
    s->depth++;
    return 0;
}

/* Child i of an interior page (n_cells: the rightmost). */
static int child_of(struct ng_btree_cursor *s, const struct frame *f, uint32_t i, uint32_t *pg)
{
    if (i == f->n_cells) {
        *pg = get32(f->page + f->hdr + 8);
        return 0;
    }
    uint32_t off = get16(f->page + f->hdr + 12 + 2 * i);
    if (off < f->hdr + 12 + 2 * f->n_cells || off + 4 > s->usable)
        return malformed(s, f->pgno, "a cell outside its page");
    *pg = get32(f->page + off);
    return 0;
}

/* The next run of children of an interior frame: those whose pages follow
 * one another in the file, read with one pread. */
static int fill_run(struct ng_btree_cursor *s, struct frame *f, int depth)
{
    uint32_t max = RUN_BYTES / s->page_size;
    if (max == 0)
        max = 1;
    if (max > RUN_PAGES)
        max = RUN_PAGES;
    if (!s->run[depth])
        s->run[depth] = ng_xcalloc((size_t)max * s->page_size + PAD, 1);
    f->run_n = f->run_k = 0;
    while (f->cell <= f->n_cells && f->run_n < max) {
        uint32_t c = 0;
        if (child_of(s, f, f->cell, &c) < 0)
            return -1;
        if (f->run_n > 0 && c != f->run_pg[f->run_n - 1] + 1)
            break;
        if (visit_once(s, c) < 0)
            return -1;
        f->run_pg[f->run_n++] = c;
        f->cell++;
    }
    return read_pages(s, f->run_pg[0], f->run_n, s->run[depth]);
}

int ng_btree_next(struct ng_btree_cursor *s, struct ng_btree_cell *cells, struct ng_err *err)
{
    s->err = err;
    while (s->depth > 0) {
        int d = s->depth - 1;
        struct frame *f = &s->frame[d];
        if (f->leaf) {
            if (s->shape_only)
                f->cell = f->n_cells;
            if (f->cell < f->n_cells) {
                if (leaf_cell(s, f, f->cell++, cells) < 0) {
                    s->depth = 0;
                    return -1;
                }
                return 1;
            }
        } else if (f->run_k < f->run_n || f->cell <= f->n_cells) {
            if (f->run_k == f->run_n && fill_run(s, f, d) < 0) {
                s->depth = 0;
                return -1;
            }
            uint32_t k = f->run_k++;
            if (push(s, f->run_pg[k], s->run[d] + (size_t)k * s->page_size) < 0) {
                s->depth = 0;
                return -1;
            }
            continue;
        }
        s->depth--;   /* this page is done */
    }
    return 0;
}

static int read_header(int fd, uint32_t *page_size, uint32_t *reserved, uint32_t *cookie,
                       uint32_t *n_pages, struct ng_err *err)
{
    uint8_t h[HEADER_SIZE];
    ssize_t r;
    do
        r = pread(fd, h, sizeof h, 0);
    while (r < 0 && errno == EINTR);
    if (r != (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
        return ng_err_set(err, "not an SQLite database file");
    uint32_t ps = get16(h + 16);
    if (ps == 1)
        ps = 65536;
    if (ps < 512 || ps > 65536 || (ps & (ps - 1)) || h[20] > ps - 480)
        return ng_err_set(err, "an SQLite header with a page size of %u", ps);
    *page_size = ps;
    *reserved = h[20];
    *cookie = get32(h + 40);
    /* the header's page count, when it is valid for this version of the
     * file (SQLite's rule: not 0, and bytes 92..95 equal the change counter);
     * else 0: the file's size decides */
    *n_pages = get32(h + 28) != 0 && memcmp(h + 24, h + 92, 4) == 0 ? get32(h + 28) : 0;
    return 0;
}

int ng_btree_header(int fd, uint32_t *page_size, uint32_t *schema_cookie, struct ng_err *err)
{
    uint32_t reserved, n_pages;
    return read_header(fd, page_size, &reserved, schema_cookie, &n_pages, err);
}

static struct ng_btree_cursor *cursor_open(int fd, const struct ng_btree_query *q, int shape,
                                           struct ng_err *err)
{
    struct ng_btree_cursor *s = ng_xcalloc(1, sizeof *s);
    struct stat st;
    uint32_t reserved, cookie, header_pages;

    s->err = err;
    if (q->n > NG_BTREE_COLS) {
        ng_err_set(err, "a query of %zu columns", q->n);
        free(s);
        return NULL;
    }
    if (read_header(fd, &s->page_size, &reserved, &cookie, &header_pages, err) < 0 ||
        (fstat(fd, &st) < 0 && ng_err_set(err, "%s", strerror(errno)) < 0)) {
        free(s);
        return NULL;
    }
    s->fd = fd;
    s->usable = s->page_size - reserved;
    s->n_pages = (uint64_t)st.st_size / s->page_size;
    if (s->n_pages > UINT32_MAX)
        s->n_pages = UINT32_MAX;
    if (header_pages > s->n_pages) {   /* SQLite refuses the whole file */
        ng_err_set(err, "database disk image is malformed (the header counts %u pages, the "
                   "file holds %u)", header_pages, (uint32_t)s->n_pages);
        free(s);
        return NULL;
    }
    if (header_pages)
        s->n_pages = header_pages;   /* a page past it is no page of the database */
    s->shape_only = shape;
    s->kind_leaf = PAGE_LEAF;
    s->kind_interior = PAGE_INTERIOR;
    s->q = *q;
    s->max_field = -1;
    memset(s->want, -1, sizeof s->want);
    for (size_t k = q->n; k-- > 0;)   /* the first cell of a field that is asked twice */
        if (q->col[k] >= 0 && q->col[k] < MAX_FIELDS) {
            s->twice |= s->want[q->col[k]] >= 0;
            s->want[q->col[k]] = (int8_t)k;
            if (q->col[k] > s->max_field)
                s->max_field = q->col[k];
        }
    for (size_t k = 0; k < q->n; k++)
        if (q->col[k] != NG_BTREE_UNUSED && (q->col[k] < 0 || q->col[k] >= MAX_FIELDS)) {
            s->fixed_cell[s->n_fixed] = cell_default(q, k, 0);
            s->fixed[s->n_fixed++] = k;
            s->need_rowid |= q->col[k] == NG_BTREE_ROWID;
        }
    for (int f = 0; f <= s->max_field; f++)
        if (s->want[f] >= 0) {
            s->wanted_cell[s->n_wanted] = s->want[f];
            s->wanted_field[s->n_wanted++] = f;
        }
    for (uint64_t t = 0; t < 128; t++)
        s->small_size[t] = (uint8_t)field_size(t);
    s->visited = ng_xcalloc((size_t)(s->n_pages / 8 + 1), 1);
    s->root = ng_xcalloc(s->page_size + PAD, 1);
    s->overflow = ng_xmalloc(s->page_size);
    if (visit_once(s, q->root) < 0 || read_pages(s, q->root, 1, s->root) < 0) {
        ng_btree_close(s);
        return NULL;
    }
    /* an index b-tree (a WITHOUT ROWID table's, an index's) only for its shape */
    uint8_t t = s->root[q->root == 1 ? HEADER_SIZE : 0];
    if (shape && (t == PAGE_INDEX_LEAF || t == PAGE_INDEX_INTERIOR)) {
        s->kind_leaf = PAGE_INDEX_LEAF;
        s->kind_interior = PAGE_INDEX_INTERIOR;
    }
    if (push(s, q->root, s->root) < 0) {
        ng_btree_close(s);
        return NULL;
    }
    return s;
}

struct ng_btree_cursor *ng_btree_open(int fd, const struct ng_btree_query *q,
                                      struct ng_err *err)
{
    return cursor_open(fd, q, 0, err);
}

int ng_btree_check(int fd, uint32_t root, struct ng_err *err)
{
    struct ng_btree_query q = { .root = root, .n = 0 };
    struct ng_btree_cell none[1];
    struct ng_btree_cursor *s = cursor_open(fd, &q, 1, err);
    if (!s)
        return -1;
    int r;
    while ((r = ng_btree_next(s, none, err)) == 1)
        ;
    ng_btree_close(s);
    return r;
}

void ng_btree_close(struct ng_btree_cursor *s)
{
    if (!s)
        return;
    for (int d = 0; d < MAX_DEPTH; d++)
        free(s->run[d]);
    free(s->root);
    free(s->overflow);
    free(s->payload);
    free(s->visited);
    free(s);
}
