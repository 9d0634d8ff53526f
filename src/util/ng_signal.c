#include "util/ng_signal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SLOTS 128
#define TREE_DEPTH 6

enum slot_kind { FREE = 0, CLAIMED, FILE_PATH, TREE_PATH, GROUP, CHILD };

struct slot {
    int kind;                 /* read and written atomically */
    pid_t pid;
    char path[PATH_MAX];
};

static struct slot slots[SLOTS];

/* A slot goes FREE -> CLAIMED (only this thread writes it) -> its kind,
 * so the handler never reads a half-written path. */
static int claim(void)
{
    for (int i = 0; i < SLOTS; i++) {
        int expected = FREE;
        if (__atomic_compare_exchange_n(&slots[i].kind, &expected, CLAIMED, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return i;
    }
    return -1;
}

static int publish(int i, enum slot_kind kind)
{
    __atomic_store_n(&slots[i].kind, kind, __ATOMIC_RELEASE);
    return i;
}

static int add_path(const char *path, enum slot_kind kind)
{
    size_t n = strlen(path);
    if (n >= PATH_MAX)
        return -1;
    int i = claim();
    if (i < 0)
        return -1;
    memcpy(slots[i].path, path, n + 1);
    return publish(i, kind);
}

int ng_signal_add_file(const char *path)
{
    return add_path(path, FILE_PATH);
}

int ng_signal_add_tree(const char *path)
{
    return add_path(path, TREE_PATH);
}

static int add_pid(pid_t pid, enum slot_kind kind)
{
    if (pid <= 0)
        return -1;
    int i = claim();
    if (i < 0)
        return -1;
    slots[i].pid = pid;
    return publish(i, kind);
}

int ng_signal_add_group(pid_t pgid)
{
    return add_pid(pgid, GROUP);
}

int ng_signal_add_child(pid_t pid)
{
    return add_pid(pid, CHILD);
}

void ng_signal_forget(int slot)
{
    if (slot >= 0 && slot < SLOTS)
        __atomic_store_n(&slots[slot].kind, FREE, __ATOMIC_RELEASE);
}

void ng_signal_forget_all(void)
{
    for (int i = 0; i < SLOTS; i++)
        __atomic_store_n(&slots[i].kind, FREE, __ATOMIC_RELEASE);
}

/* getdents64 on an open directory: opendir/readdir may allocate, which a
 * handler must not. */
struct dirent64_raw {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* 0 once name is gone (or was never there), -1 if it is still there. */
static int remove_tree_at(int parent, const char *name, int depth)
{
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (depth >= TREE_DEPTH)
        return -1;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
            off += d->d_reclen;
            if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
                continue;
            remove_tree_at(fd, d->d_name, depth + 1);
        }
    }
    close(fd);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}

/* Another thread may still be writing into the tree (the dashboard's two
 * page writers) while a pass removes it: a file it made after the pass
 * read its directory keeps the directory, so the passes go on, a bounded
 * number of times, until the tree is gone. */
static void remove_whole_tree(const char *path)
{
    int saved = errno;
    for (int pass = 0; pass < 64 && remove_tree_at(AT_FDCWD, path, 0) < 0; pass++)
        ;
    errno = saved;
}

void ng_signal_remove_tree(const char *path)
{
    remove_whole_tree(path);
}

static void on_signal(int sig)
{
    /* processes first: nsys must stop writing before its files go */
    for (int i = 0; i < SLOTS; i++) {
        int kind = __atomic_load_n(&slots[i].kind, __ATOMIC_ACQUIRE);
        if (kind == GROUP)
            kill(-slots[i].pid, SIGKILL);
        else if (kind == CHILD)
            kill(slots[i].pid, sig);
    }
    for (int i = 0; i < SLOTS; i++) {
        int kind = __atomic_load_n(&slots[i].kind, __ATOMIC_ACQUIRE);
        if (kind == FILE_PATH)
            unlink(slots[i].path);
        else if (kind == TREE_PATH)
            remove_whole_tree(slots[i].path);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int fatal[] = { SIGINT, SIGTERM, SIGHUP };

void ng_signal_hold(sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaddset(&set, fatal[i]);
    pthread_sigmask(SIG_BLOCK, &set, saved);
}

void ng_signal_resume(const sigset_t *saved)
{
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}

void ng_signal_init(void)
{
    static int done;
    struct sigaction sa;

    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaddset(&sa.sa_mask, fatal[i]);   /* one cleanup at a time */
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaction(fatal[i], &sa, NULL);
    /* a reader that went away (`| head`, `| true`) must not kill the gate
     * before its reports are written: the write fails with EPIPE instead */
    signal(SIGPIPE, SIG_IGN);
}
