#include "ng_file.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ng_util.h"

#define MAX_LINKS 40

/* "d/name" -> "d" (a fresh string); "name" -> NULL; "/name" -> "/". */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    return ng_xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
}

char *ng_file_target(const char *path)
{
    char *cur = ng_xstrdup(path);

    for (int hops = 0; hops <= MAX_LINKS; hops++) {
        struct stat st;
        char link[PATH_MAX];
        ssize_t n;

        if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode) ||
            (n = readlink(cur, link, sizeof link - 1)) <= 0)
            return cur;
        link[n] = '\0';
        char *dir = link[0] == '/' ? NULL : dir_of(cur);
        struct ng_buf next = NG_BUF_INIT;
        if (dir)
            ng_buf_addf(&next, "%s/%s", dir, link);
        else
            ng_buf_adds(&next, link);
        free(dir);
        free(cur);
        cur = ng_buf_detach(&next);
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

char *ng_file_key(const char *path)
{
    char *target = ng_file_target(path);
    if (!target)
        return ng_xstrdup(path);
    char *dir = dir_of(target);
    const char *base = dir ? strrchr(target, '/') + 1 : target;
    char *real = realpath(dir ? dir : ".", NULL);
    struct ng_buf key = NG_BUF_INIT;

    if (real)
        ng_buf_addf(&key, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
    else
        ng_buf_adds(&key, target);   /* no such directory: it cannot be written anyway */
    free(real);
    free(dir);
    free(target);
    return ng_buf_detach(&key);
}
