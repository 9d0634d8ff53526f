/* ng_file: where a report lands on disk (atomic writes, the file a
 * symlink names, paths that name a stream), appending to a file that others
 * read and append to (--history, $GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT),
 * and reading a big file in place (a dashboard's histories).  A path
 * given for an output may be a symlink: the report goes to the link's
 * target (the link stays a link, as a user who pointed it somewhere
 * expects), and every writer and check resolves it here, the same way.
 *
 * Ownership: every function borrows its arguments; a returned path is
 * freshly allocated and the caller frees it. */

#include <stddef.h>
#include <sys/stat.h>

#include "util/ng_err.h"
#ifndef NG_FILE_H
#define NG_FILE_H

/* The file a write to path lands in: path with its symlinks followed (a
 * relative target read against the link's own directory), or path itself
 * when it is no symlink or names nothing yet.  NULL with errno ELOOP after
 * 40 links. */
char *ng_file_target(const char *path);

/* ng_file_target() for a file about to be written: a symlink the kernel
 * would not follow for us (fs.protected_symlinks: in a sticky,
 * world-writable directory such as /tmp, owned by neither this user nor
 * the directory's owner) is refused, as the kernel refuses it, since the
 * gate resolves links itself.  NULL with err: "refusing to follow
 * 'pub/r.json': a symlink of another user (uid 1000) ...", or "HOW
 * 'path': Too many levels of symbolic links". */
char *ng_file_target_checked(const char *path, const char *how, struct ng_err *err);

/* A name that identifies the file path lands in, whatever the spelling
 * ("x", "./x", "d/../x", a symlink to it): the target's directory made
 * absolute and canonical, plus its name.  Two outputs with equal keys
 * would write one file. */
char *ng_file_key(const char *path);

/* Appends data (whole lines) to path, all or nothing, creating it if
 * missing:
 * - under an exclusive flock, so writers that append at once (16 gates of
 *   a nightly into one history) never interleave, and a reader that
 *   locks sees whole appends;
 * - a file that does not end in a newline (a line torn by a writer that
 *   was killed) first gets one, so the new line is not glued onto the
 *   fragment;
 * - a short or failed write (a full disk) cuts the file back to where it
 *   was before the error is returned, and a file this call created is
 *   removed again: no torn line, no 0-byte file;
 * - SIGINT, SIGTERM and SIGHUP are held off while the bytes go in and
 *   delivered after, so a signal cannot leave a cut line (SIGKILL can).
 * A FIFO, a device or a stream name (/dev/stdout) is written in place,
 * without a lock or a rollback.  A lock that stays held is given up
 * after NG_FILE_LOCK_WAIT_S (ng_file_lock()), the file left as it was.
 * Returns -1 with err, e.g. "unable to append to 'h.jsonl': No space left
 * on device; the file is left as it was". */
int ng_file_append(const char *path, const char *data, size_t len, struct ng_err *err);

/* How long ng_file_lock() waits.  An append holds its lock for
 * milliseconds; a lock held for seconds is a process that keeps it (anyone
 * who can read a file can flock it), and waiting for it would hang the
 * gate as long as that process likes. */
#define NG_FILE_LOCK_WAIT_S 5

/* flock(fd, op) (LOCK_SH or LOCK_EX), waiting at most NG_FILE_LOCK_WAIT_S
 * seconds: 0 when taken, or where the file system has no locks (the file
 * is used unlocked, as before); -1 with errno EWOULDBLOCK when it stayed
 * held. */
int ng_file_lock(int fd, int op);

/* The error for that: "'h.jsonl' is locked by another process (gave up
 * after 5 s)", with how (e.g. "unable to append to ") before it. */
int ng_file_locked_error(struct ng_err *err, const char *how, const char *path);

/* A window of a regular file mapped read-only, so a reader takes its
 * lines where they lie instead of copying each byte twice (into a read
 * buffer, then a stream's).  A reader maps one window after another, so
 * what it holds mapped (which counts in its RSS) stays a window's size. */
struct ng_file_window {
    const char *data;            /* the file's bytes from the offset asked for */
    size_t len;
    void *base;                  /* the mapping (from the page boundary before data),
                                    NULL: none */
};

/* len bytes of fd from offset into w: 0, or -1 with errno (the caller
 * reads the file instead, or reports it). */
int ng_file_map(int fd, unsigned long long offset, size_t len, struct ng_file_window *w);
void ng_file_unmap(struct ng_file_window *w);

/* fn(arg) on this thread, where a file that got shorter under its map
 * (another process cut it: reading a page past its new end raises
 * SIGBUS) ends fn at once instead of the process: 0 when fn returned, -1
 * after such a fault.  Only a fault on the window this thread mapped last
 * counts; any other SIGBUS (a kill -BUS) has its default action.  What fn
 * held at the fault stays allocated (the caller reports the error and
 * ends); locks must not be held over reads of the map. */
int ng_file_guarded(void (*fn)(void *), void *arg);

/* POSIX record locks belong to the process and the file, not to a
 * descriptor: closing any descriptor of a file drops every lock the
 * process holds on it.  SQLite reads under such a lock and keeps its own
 * descriptors of a file open while another connection of the process
 * holds one; the gate's own descriptors of a profile (the probe, the page
 * reader, the cache's hashing) must do the same, or one thread's close
 * lets a writer in under another thread's reading (the same file given
 * twice, one report in two gates of a batch).
 *
 * ng_file_hold(fd) says an SQLite connection is about to lock fd's file
 * (id receives which file); ng_file_unhold(id) that it has closed.  While
 * a file is held, ng_file_close() of a descriptor of it keeps that
 * descriptor open until the last hold ends.  Thread-safe. */
struct ng_file_id {
    dev_t dev;
    ino_t ino;
    int held;        /* 1 after a successful ng_file_hold */
};
void ng_file_hold(int fd, struct ng_file_id *id);
void ng_file_unhold(struct ng_file_id *id);
void ng_file_close(int fd);

/* Opens /dev/null on whichever of descriptors 0, 1 and 2 is closed
 * (`nsys-gate ... >&-`): else the first file the run opens becomes its
 * stdout, and a report or the human line lands in a profile or a report
 * file.  A closed stdout then takes the human report like /dev/null does,
 * and the exit status stays the verdict's.  Called first thing by main. */
void ng_file_guard_std_fds(void);

/* write() until all len bytes are written (EINTR retried); -1 with errno
 * on failure. */
int ng_write_all(int fd, const void *data, size_t len);

/* Whether path names an open stream rather than a file: /dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/.../fd/N, or a symlink to one. */
int ng_path_names_stream(const char *path);

/* Writes data to path atomically: a temporary file in the same directory,
 * fsync, rename.  On failure nothing is left at a temporary name and an
 * older file at path is untouched.  A symlink stays a link: its target is
 * replaced, from a temporary file in the target's directory.  path "-"
 * writes to stdout. */
int ng_write_file_atomic(const char *path, const char *data, size_t len,
                         struct ng_err *err);

/* Another file now, or the same one written to since (device, inode,
 * size, content and inode change times): what was read may mix two
 * versions. */
int ng_file_stat_changed(const struct stat *before, const struct stat *after);

#endif
