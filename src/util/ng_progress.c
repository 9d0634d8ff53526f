#include "util/ng_progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/ng_text.h"
#include "util/ng_util.h"

#define ITEMS 64
#define REDRAW_S 0.2

struct item {
    int used;
    int announced;
    double start;
    char *report;        /* cleaned, quoted in lines */
    char *nsys;          /* "'PATH' (VERSION)" or "" */
};

static struct {
    pthread_mutex_t lock;
    enum ng_progress_mode mode;
    char *prefix;
    struct item items[ITEMS];
    int live_shown;      /* a live line is on the terminal */
    double last_draw;
} pg = { PTHREAD_MUTEX_INITIALIZER, NG_PROGRESS_OFF, NULL, { { 0 } }, 0, 0 };

enum ng_progress_mode ng_progress_choose(int quiet)
{
    if (quiet)
        return NG_PROGRESS_OFF;
    const char *term = getenv("TERM");
    if (isatty(2) && !(term && strcmp(term, "dumb") == 0))
        return NG_PROGRESS_LIVE;
    return NG_PROGRESS_LINES;
}

void ng_progress_set_mode(enum ng_progress_mode m)
{
    pthread_mutex_lock(&pg.lock);
    pg.mode = m;
    pthread_mutex_unlock(&pg.lock);
}

enum ng_progress_mode ng_progress_mode(void)
{
    pthread_mutex_lock(&pg.lock);
    enum ng_progress_mode m = pg.mode;
    pthread_mutex_unlock(&pg.lock);
    return m;
}

void ng_progress_set_prefix(const char *prefix)
{
    pthread_mutex_lock(&pg.lock);
    free(pg.prefix);
    pg.prefix = prefix ? ng_text_cleaned(prefix, NG_TEXT_ESCAPE_CONTROLS) : NULL;
    pthread_mutex_unlock(&pg.lock);
}

/* "2023.4.4.54-234433681190v0" out of "NVIDIA Nsight Systems version ..." */
static const char *short_version(const char *v)
{
    const char *p = v ? strstr(v, "version ") : NULL;
    return p ? p + 8 : v;
}

static int columns(void)
{
    struct winsize ws;
    if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* One write per line: lines from several threads or processes never mix. */
static void emit(const struct ng_buf *b)
{
    size_t off = 0;
    while (off < b->len) {
        ssize_t w = write(2, b->data + off, b->len - off);
        if (w <= 0)
            return;   /* stderr gone: progress is not worth an error */
        off += (size_t)w;
    }
}

static void clear_live(struct ng_buf *b)
{
    if (pg.live_shown)
        ng_buf_adds(b, "\r\033[K");
    pg.live_shown = 0;
}

/* The live line: every running export with its seconds, cut to the
 * terminal's width so that a carriage return redraws it whole. */
static void draw_live(struct ng_buf *b, double now)
{
    struct ng_buf line = NG_BUF_INIT;
    int n = 0;
    for (int i = 0; i < ITEMS; i++) {
        const struct item *it = &pg.items[i];
        if (!it->used)
            continue;
        ng_buf_addf(&line, "%s'%s' %.1f s", n ? ", " : "nsys-gate: exporting ", it->report,
                    now - it->start);
        n++;
    }
    clear_live(b);
    if (n == 0) {
        ng_buf_release(&line);
        return;
    }
    size_t width = (size_t)columns() - 1;
    if (line.len > width) {
        /* UTF-8 safe enough: cut on a character boundary */
        size_t cut = width;
        while (cut > 0 && ((unsigned char)line.data[cut] & 0xC0) == 0x80)
            cut--;
        line.len = cut;
        line.data[cut] = '\0';
    }
    ng_buf_adds(b, line.data);
    pg.live_shown = 1;
    pg.last_draw = now;
    ng_buf_release(&line);
}

int ng_progress_begin(const char *report, const char *nsys, const char *version)
{
    int h = -1;

    pthread_mutex_lock(&pg.lock);
    if (pg.mode == NG_PROGRESS_OFF)
        goto out;
    for (int i = 0; i < ITEMS && h < 0; i++)
        if (!pg.items[i].used)
            h = i;
    if (h < 0)
        goto out;
    struct item *it = &pg.items[h];
    struct ng_buf desc = NG_BUF_INIT;
    if (nsys)
        ng_buf_addf(&desc, " with '%s'", nsys);
    if (version && *version)
        ng_buf_addf(&desc, " (%s)", short_version(version));
    *it = (struct item){ 1, 0, ng_monotonic(), ng_text_cleaned(report, NG_TEXT_ESCAPE_CONTROLS),
                         NULL };
    char *d = ng_buf_detach(&desc);
    it->nsys = ng_text_cleaned(d, NG_TEXT_ESCAPE_CONTROLS);
    free(d);
    if (pg.mode == NG_PROGRESS_LIVE) {
        struct ng_buf b = NG_BUF_INIT;
        draw_live(&b, it->start);
        emit(&b);
        ng_buf_release(&b);
    }
out:
    pthread_mutex_unlock(&pg.lock);
    return h;
}

void ng_progress_tick(int h)
{
    if (h < 0 || h >= ITEMS)
        return;
    pthread_mutex_lock(&pg.lock);
    struct item *it = &pg.items[h];
    double now = ng_monotonic();
    struct ng_buf b = NG_BUF_INIT;
    if (!it->used) {
        /* ended meanwhile */
    } else if (pg.mode == NG_PROGRESS_LIVE) {
        if (now - pg.last_draw >= REDRAW_S)
            draw_live(&b, now);
    } else if (pg.mode != NG_PROGRESS_OFF && !it->announced && now - it->start >= NG_PROGRESS_QUIET_S) {
        it->announced = 1;
        ng_buf_addf(&b, "nsys-gate: %sexporting '%s'%s, %.1f s so far\n",
                    pg.prefix ? pg.prefix : "", it->report, it->nsys, now - it->start);
    }
    emit(&b);
    ng_buf_release(&b);
    pthread_mutex_unlock(&pg.lock);
}

void ng_progress_end(int h, int ok, uint64_t export_bytes)
{
    if (h < 0 || h >= ITEMS)
        return;
    pthread_mutex_lock(&pg.lock);
    struct item *it = &pg.items[h];
    double now = ng_monotonic(), took = now - it->start;
    struct ng_buf b = NG_BUF_INIT;
    if (!it->used)
        goto out;
    int say = pg.mode == NG_PROGRESS_LIVE ? took > NG_PROGRESS_QUIET_S : it->announced;
    if (pg.mode == NG_PROGRESS_LIVE)
        clear_live(&b);
    if (say && ok)
        ng_buf_addf(&b, "nsys-gate: %sexported '%s' in %.1f s (%.1f MB of SQLite)\n",
                    pg.prefix ? pg.prefix : "", it->report, took, (double)export_bytes / 1e6);
    else if (say)
        ng_buf_addf(&b, "nsys-gate: %sexport of '%s' failed after %.1f s\n",
                    pg.prefix ? pg.prefix : "", it->report, took);
    free(it->report);
    free(it->nsys);
    memset(it, 0, sizeof *it);
    if (pg.mode == NG_PROGRESS_LIVE)
        draw_live(&b, now);   /* the others still running */
    emit(&b);
out:
    ng_buf_release(&b);
    pthread_mutex_unlock(&pg.lock);
}

void ng_progress_gate_done(size_t done, size_t total, const char *name, const char *headline,
                           double elapsed_s)
{
    pthread_mutex_lock(&pg.lock);
    if (pg.mode != NG_PROGRESS_OFF) {
        struct ng_buf b = NG_BUF_INIT;
        char *shown = ng_text_cleaned(name, NG_TEXT_ESCAPE_CONTROLS);
        if (pg.mode == NG_PROGRESS_LIVE)
            clear_live(&b);
        ng_buf_addf(&b, "[%zu/%zu] %s: %s (%.1f s)\n", done, total, shown, headline, elapsed_s);
        emit(&b);
        ng_buf_release(&b);
        free(shown);
    }
    pthread_mutex_unlock(&pg.lock);
}
