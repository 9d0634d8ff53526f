/* Prints every command's table of options, one row a line, tab-separated:
 * command ("" for the gate), whether its --help shows short flags,
 * flag, short flag, placeholder, variable (empty for none).  The docs
 * test (options.py) holds them against --help and the man page. */
#include <stdio.h>

#include "changes/ng_changes.h"
#include "cli/ng_cli.h"
#include "dashboard/ng_dashboard.h"
#include "ranges/ng_ranges.h"
#include "util/ng_options.h"

static void print_table(const char *command, const struct ng_options *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct ng_option *o = &t->rows[i];
        char short_flag[3] = { '-', o->short_flag, '\0' };
        printf("%s\t%d\t%s\t%s\t%s\t%s\n", command, !(t->style & NG_OPTIONS_LONG_ONLY),
               o->flag, o->short_flag ? short_flag : "", o->meta ? o->meta : "",
               o->env ? o->env : "");
    }
}

int main(void)
{
    print_table("", ng_cli_options());
    print_table("dashboard", ng_dashboard_options());
    print_table("changes", ng_changes_options());
    print_table("ranges", ng_ranges_options());
    print_table("summarize", ng_cli_summarize_options());
    return 0;
}
