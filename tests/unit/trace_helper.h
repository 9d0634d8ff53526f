/* One generated SQLite export for a test group: `path`, written by the
 * project's generator ($GENTRACE) before the group runs (trace_make, from
 * the group's setup, with the generator's options) and removed after it
 * (trace_remove, a cmocka group teardown). */
#ifndef TEST_TRACE_HELPER_H
#define TEST_TRACE_HELPER_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[256];

static int trace_make(const char *name, const char *gen_args)
{
    const char *gen = getenv("GENTRACE");
    char cmd[1024];
    snprintf(path, sizeof path, "/tmp/ng-test-%s.%d.sqlite", name, (int)getpid());
    snprintf(cmd, sizeof cmd, "'%s' -o '%s' --force %s >/dev/null", gen ? gen : "gentrace",
             path, gen_args);
    return system(cmd) == 0 ? 0 : -1;
}

static int trace_remove(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

#endif
