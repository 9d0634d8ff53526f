/* A test stand-in, preloaded into the gate, for timing that real signals
 * and disks cannot be made to hit on demand:
 *
 *   NG_SHIM_TERM_WRITE_MIN=N  the first write() of at least N bytes to a
 *                             regular file writes half, then raises
 *                             SIGTERM as if it had arrived mid-write, then
 *                             writes the rest (if the process still lives)
 *   NG_SHIM_TERM_FSYNC=1      the first fsync() raises SIGTERM first (a
 *                             signal between a report's temporary file and
 *                             its rename)
 *   NG_SHIM_PREAD_END=N       pread() at offset N or past it reads nothing,
 *                             as if the file had been cut to N bytes just
 *                             before (a cut between the dashboard's two
 *                             reads of a line, which no timing hits)
 *   NG_SHIM_FSTAT_SHRINK=N    fstat() of a file of N bytes says N - 1 from
 *                             its second call on (a cut inside the last
 *                             page of a mapped read, which faults nothing)
 *   NG_SHIM_MMAP_FAIL=1       every mmap() of a file fails with ENODEV (a
 *                             file system that cannot map files)
 *   NG_SHIM_LINK_AT_OPEN=P:T  the first open() of path P first replaces P by
 *                             a symlink to T (a link planted between the
 *                             gate's resolving of a path and its open)
 *
 * The first two fire once per process.  Built with _GNU_SOURCE (RTLD_NEXT) by meson. */
#include <dlfcn.h>
#include <stdarg.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    static int fired;
    const char *min = getenv("NG_SHIM_TERM_WRITE_MIN");
    struct stat st;

    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "write");
    if (fired || !min || n < strtoul(min, NULL, 10) || fstat(fd, &st) < 0 ||
        !S_ISREG(st.st_mode))
        return real(fd, buf, n);
    fired = 1;
    ssize_t a = real(fd, buf, n / 2);
    if (a <= 0)
        return a;
    raise(SIGTERM);
    ssize_t b = real(fd, (const char *)buf + a, n - (size_t)a);
    return b < 0 ? a : a + b;
}

int fsync(int fd)
{
    static int (*real)(int);
    static int fired;
    const char *on = getenv("NG_SHIM_TERM_FSYNC");

    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fsync");
    if (!fired && on && *on == '1') {
        fired = 1;
        raise(SIGTERM);
    }
    return real(fd);
}

/* The gate is built with 64-bit file offsets, so its pread() is pread64. */
ssize_t pread64(int fd, void *buf, size_t n, off64_t at)
{
    static ssize_t (*real)(int, void *, size_t, off64_t);
    const char *end = getenv("NG_SHIM_PREAD_END");

    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pread64");
    if (end && (unsigned long long)at >= strtoull(end, NULL, 10))
        return 0;
    return real(fd, buf, n, at);
}

int fstat64(int fd, struct stat64 *st)
{
    static int (*real)(int, struct stat64 *);
    static int calls;
    const char *shrink = getenv("NG_SHIM_FSTAT_SHRINK");

    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fstat64");
    int ret = real(fd, st);
    if (ret == 0 && shrink && S_ISREG(st->st_mode) &&
        (unsigned long long)st->st_size == strtoull(shrink, NULL, 10) && calls++ > 0)
        st->st_size--;
    return ret;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off64_t);
    const char *fail = getenv("NG_SHIM_MMAP_FAIL");

    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "mmap64");
    if (fail && *fail == '1' && fd >= 0) {
        errno = ENODEV;
        return MAP_FAILED;
    }
    return real(addr, len, prot, flags, fd, off);
}

/* open() and open64() (what _FILE_OFFSET_BITS=64 callers reach), declared
 * here: <fcntl.h> would make open() another name for open64() */
int open64(const char *path, int flags, ...);
int open(const char *path, int flags, ...);

static void link_at_open(const char *path)
{
    static int fired;
    const char *spec = getenv("NG_SHIM_LINK_AT_OPEN");
    const char *colon = spec ? strchr(spec, ':') : NULL;

    if (fired || !colon || strlen(path) != (size_t)(colon - spec) ||
        strncmp(path, spec, (size_t)(colon - spec)) != 0)
        return;
    fired = 1;
    unlink(path);
    if (symlink(colon + 1, path) < 0)
        abort();
}

static int open_as(const char *symbol, const char *path, int flags, mode_t mode)
{
    int (*real)(const char *, int, ...);
    *(void **)&real = dlsym(RTLD_NEXT, symbol);
    link_at_open(path);
    return real(path, flags, mode);
}

/* the mode is read whether or not O_CREAT gave one: an int's slot either way */
int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = (mode_t)va_arg(ap, int);
    va_end(ap);
    return open_as("open64", path, flags, mode);
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = (mode_t)va_arg(ap, int);
    va_end(ap);
    return open_as("open", path, flags, mode);
}
