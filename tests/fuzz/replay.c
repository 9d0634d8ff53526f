/* The replay driver: without libFuzzer, each fuzz target links this main,
 * which runs LLVMFuzzerTestOneInput once on every file given and on every
 * file under the directories given (recursively, in sorted order so a
 * failure is reproducible).  A crash file found by ci/fuzz.sh becomes a
 * test just by landing in the corpus directory.
 *
 *   fuzz_csv tests/fuzz/corpus/csv [MORE FILES OR DIRS...]
 *
 * Exit 0 after replaying at least one input; 2 on a usage or read error,
 * and also when nothing was found, so a mistyped corpus path cannot turn
 * into a test that checks nothing.  Options: --skip-missing makes a
 * missing operand exit 77 (meson's "skipped") instead of 2, for optional
 * corpora such as ../shared. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static long replayed;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;

    if (!f) {
        fprintf(stderr, "replay: unable to open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *grown = realloc(data, cap);
            if (!grown) {
                fprintf(stderr, "replay: out of memory reading '%s'\n", path);
                free(data);
                fclose(f);
                return -1;
            }
            data = grown;
        }
        size_t n = fread(data + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: unable to read '%s'\n", path);
        free(data);
        return -1;
    }
    /* libFuzzer hands the target an exact-size heap copy: do the same, so
     * ASan catches a read one past the end here too */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(data);
        return -1;
    }
    if (len)
        memcpy(exact, data, len);
    free(data);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    replayed++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path);

static int replay_dir(const char *path)
{
    DIR *d = opendir(path);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int ret = 0;

    if (!d) {
        fprintf(stderr, "replay: unable to open directory '%s': %s\n", path, strerror(errno));
        return -1;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;   /* ., .. and editor/VCS droppings */
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                ret = -1;
                break;
            }
            names = grown;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            ret = -1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (ret == 0 && replay_path(names[i]) < 0)
            ret = -1;
        free(names[i]);
    }
    free(names);
    return ret;
}

static int replay_path(const char *path)
{
    struct stat st;

    if (stat(path, &st) < 0) {
        fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode))
        return replay_dir(path);
    if (!S_ISREG(st.st_mode))
        return 0;   /* a FIFO or device in a corpus tree is not an input */
    return replay_file(path);
}

int main(int argc, char **argv)
{
    int skip_missing = 0, first = 1;

    if (argc > 1 && strcmp(argv[1], "--skip-missing") == 0) {
        skip_missing = 1;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: %s [--skip-missing] FILE-OR-DIR...\n", argv[0]);
        return 2;
    }
    for (int i = first; i < argc; i++) {
        struct stat st;
        if (skip_missing && stat(argv[i], &st) < 0) {
            fprintf(stderr, "replay: skipped: '%s' is not there\n", argv[i]);
            return 77;
        }
        if (replay_path(argv[i]) < 0)
            return 2;
    }
    if (replayed == 0) {
        fprintf(stderr, "replay: no input found under the paths given\n");
        return 2;
    }
    printf("replay: %ld input%s, no crash\n", replayed, replayed == 1 ? "" : "s");
    return 0;
}
