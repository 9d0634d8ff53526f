/* The built-in epoch pattern behind --epoch-range auto: which range texts
 * are epochs, and which part of the text names the epoch (so the ranks of
 * one epoch add up). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <regex.h>
#include <string.h>

#include <cmocka.h>

#include "run/ng_read.h"

static const struct {
    const char *text;
    const char *key;   /* NULL: not an epoch */
} table[] = {
    { "epoch 3", "3" },
    { "epoch=3", "3" },
    { "Epoch_3", "3" },
    { "EPOCH: 3", "3" },
    { "epoch-3", "3" },
    { "Epoch 3/10", "3" },
    { "epoch12", "12" },
    { "  epoch 7  ", "7" },
    { "epoch_3-rank_1", "3" },
    { "epoch_3-rank_0", "3" },
    { "Epoch 4 rank 2", "4" },
    /* not epochs */
    { "epoch", NULL },
    { "epoch 3 step 1", NULL },
    { "train_epoch 3", NULL },
    { "epochs 3", NULL },
    { "epoch three", NULL },
    { "step 3", NULL },
    { "", NULL },
    { "forward", NULL },
    { "epoch 3/", NULL },
};

static void test_auto_pattern(void **state)
{
    regex_t re;
    regmatch_t m[2];
    (void)state;

    assert_int_equal(regcomp(&re, ng_read_auto_epoch_pattern, REG_EXTENDED | REG_ICASE), 0);
    assert_true(re.re_nsub >= 1);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int hit = regexec(&re, table[i].text, 2, m, 0) == 0;
        print_message("'%s'\n", table[i].text);
        assert_int_equal(hit, table[i].key != NULL);
        if (!hit)
            continue;
        size_t len = (size_t)(m[1].rm_eo - m[1].rm_so);
        assert_int_equal(len, strlen(table[i].key));
        assert_memory_equal(table[i].text + m[1].rm_so, table[i].key, len);
    }
    regfree(&re);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_pattern),
    };
    return cmocka_run_group_tests_name("gate", tests, NULL, NULL);
}
