#include "sources/nsysrep/ng_export_slots.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/ng_signal.h"
#include "util/ng_util.h"

#define PER_EXPORT_BASE (256ull << 20)
#define PER_EXPORT_FACTOR 4

/* the handle of a slot counted in memory (a shared one is a descriptor) */
#define LOCAL_SLOT (-2)

static struct {
    pthread_mutex_t lock;
    pthread_cond_t freed;
    long n;               /* 0 = no slots */
    long free;            /* in memory: how many are free */
    char dir[PATH_MAX - 32];   /* shared: the run directory; room for "/N" */
    pid_t owner;
    int signal_slot;
    unsigned next;        /* where the next search starts: spreads the waiters */
} slots = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, "", 0, -1, 0 };

static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[256];
    unsigned long long kb = 0;
    int found = 0;

    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
    fclose(f);
    return found ? (uint64_t)kb << 10 : 0;
}

long ng_export_slots_count(long jobs, uint64_t largest_report)
{
    return ng_export_slots_fit(jobs, largest_report, mem_available());
}

long ng_export_slots_fit(long jobs, uint64_t largest_report, uint64_t avail)
{
    long n = jobs > 0 ? jobs : sysconf(_SC_NPROCESSORS_ONLN);

    if (n < 1)
        n = 1;
    if (avail > 0) {
        uint64_t per = PER_EXPORT_BASE + PER_EXPORT_FACTOR * largest_report;
        uint64_t fit = avail / 4 * 3 / per;
        if (fit < (uint64_t)n)
            n = fit > 0 ? (long)fit : 1;
    }
    return n;
}

static int make_dir(long n)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    int len = snprintf(slots.dir, sizeof slots.dir, "%s/nsys-gate-slots.XXXXXX", base);
    if (len < 0 || (size_t)len >= sizeof slots.dir || !mkdtemp(slots.dir)) {
        slots.dir[0] = '\0';
        return -1;
    }
    slots.signal_slot = ng_signal_add_tree(slots.dir);
    for (long i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%ld", slots.dir, i);
        int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
            break;
        close(fd);
        slots.n = i + 1;
    }
    return 0;
}

int ng_export_slots_setup(long n, int shared)
{
    int ret = 1;

    pthread_mutex_lock(&slots.lock);
    if (slots.n > 0) {
        ret = 0;
    } else if (shared) {
        ret = make_dir(n) == 0 ? 1 : -1;
    } else {
        slots.n = slots.free = n;
    }
    if (ret == 1)
        slots.owner = getpid();
    pthread_mutex_unlock(&slots.lock);
    return ret;
}

void ng_export_slots_teardown(void)
{
    pthread_mutex_lock(&slots.lock);
    if (slots.n > 0 && slots.owner == getpid()) {
        if (slots.dir[0]) {
            ng_signal_remove_tree(slots.dir);
            ng_signal_forget(slots.signal_slot);
        }
        slots.dir[0] = '\0';
        slots.n = slots.free = 0;
        slots.signal_slot = -1;
        pthread_cond_broadcast(&slots.freed);
    }
    pthread_mutex_unlock(&slots.lock);
}

static int acquire_local(void)
{
    while (slots.n > 0 && slots.free == 0)
        pthread_cond_wait(&slots.freed, &slots.lock);
    if (slots.n == 0)
        return -1;
    slots.free--;
    return LOCAL_SLOT;
}

int ng_export_slots_acquire(void)
{
    for (;;) {
        pthread_mutex_lock(&slots.lock);
        if (slots.n > 0 && !slots.dir[0]) {
            int h = acquire_local();
            pthread_mutex_unlock(&slots.lock);
            return h;
        }
        if (slots.n <= 0) {
            pthread_mutex_unlock(&slots.lock);
            return -1;
        }
        long n = slots.n;
        unsigned start = slots.next++;
        char dir[sizeof slots.dir];
        memcpy(dir, slots.dir, sizeof dir);
        pthread_mutex_unlock(&slots.lock);
        for (long k = 0; k < n; k++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%ld", dir,
                     (long)((start + (unsigned long)k) % (unsigned long)n));
            int fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd < 0)
                return -1;   /* the directory is gone: no limit any more */
            if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                return fd;
            close(fd);
        }
        struct timespec nap = { 0, 20 * 1000 * 1000 };
        nanosleep(&nap, NULL);
    }
}

void ng_export_slots_release(int slot)
{
    if (slot == LOCAL_SLOT) {
        pthread_mutex_lock(&slots.lock);
        if (slots.n > 0 && slots.free < slots.n)
            slots.free++;
        pthread_cond_signal(&slots.freed);
        pthread_mutex_unlock(&slots.lock);
    } else if (slot >= 0) {
        close(slot);
    }
}
