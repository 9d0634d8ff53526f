/* One temporary file for a test group: `path`, made (empty) before the
 * group runs and removed after it (cmocka's group setup and teardown). */
#ifndef TEST_TEMP_HELPER_H
#define TEST_TEMP_HELPER_H

#include <stdlib.h>
#include <unistd.h>

static char path[] = "/tmp/ng-test.XXXXXX";

static int temp_setup(void **state)
{
    (void)state;
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int temp_teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

#endif
