#include "util/ng_oom.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *reserve;
static void (*emergency)(const char *message, void *ctx);
static void *emergency_ctx;
static int failing;                       /* set once, by the first thread to run out */
static _Thread_local char doing[1024];
static _Thread_local int writing;         /* this thread is the emergency writer */

void ng_oom_reserve(size_t bytes)
{
    if (!reserve)
        reserve = malloc(bytes);   /* malloc, not calloc: the pages stay untouched */
}

void ng_oom_on(void (*writer)(const char *message, void *ctx), void *ctx)
{
    emergency = writer;
    emergency_ctx = ctx;
}

void ng_oom_doing(const char *fmt, ...)
{
    va_list ap;

    doing[0] = '\0';
    if (!fmt)
        return;
    va_start(ap, fmt);
    vsnprintf(doing, sizeof doing, fmt, ap);
    va_end(ap);
}

static void __attribute__((noreturn)) plain_exit(const char *message)
{
    /* write(2), not stdio: stdio may want memory */
    static const char prefix[] = "ERROR: ";
    ssize_t r = write(2, prefix, sizeof prefix - 1);
    r = write(2, message, strlen(message));
    r = write(2, "\n", 1);
    (void)r;
    _exit(2);
}

void ng_oom_fail(void)
{
    static char message[4200];

    if (writing)
        plain_exit(message);   /* the writer ran out too: the message is all there is */
    if (__atomic_exchange_n(&failing, 1, __ATOMIC_ACQ_REL)) {
        for (;;)
            pause();   /* another thread is writing the reports and will end the process */
    }
    free(reserve);
    reserve = NULL;
    snprintf(message, sizeof message, "out of memory%s%s", doing[0] ? " " : "", doing);
    if (emergency) {
        writing = 1;
        emergency(message, emergency_ctx);
    }
    plain_exit(message);
}
