/* ng_err: one error message, formatted once where the problem is found and
 * printed once by main.
 *
 * Ownership: a struct ng_err is a plain value owned by its caller; nothing in
 * it is allocated.  Functions that can fail take a `struct ng_err *` and
 * return -1 after ng_err_set(), so an error path is one line:
 *     return ng_err_set(err, "unable to open '%s': %s", path, strerror(errno));
 * Messages are lower case, without a full stop, the subject in quotes. */
#ifndef NG_ERR_H
#define NG_ERR_H

#include <stdarg.h>

#define NG_ERR_MAX 2048

struct ng_err {
    char msg[NG_ERR_MAX];
};

/* Formats the message and returns -1.  A message longer than NG_ERR_MAX
 * keeps its reason: its longest quoted parts (the subjects, most often
 * paths) are shortened in the middle ("/a/very/lo...th/x.sqlite") until it
 * fits; only then is the end cut. */
int ng_err_set(struct ng_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefixes the existing message with "<prefix>: " and returns -1. */
int ng_err_prefix(struct ng_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
