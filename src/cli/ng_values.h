/* ng_values: the values of the gate's own options, text into a settings
 * struct: thresholds, milliseconds, the significance level, metrics, work
 * kinds, the profile and pattern lists, labels, history windows, cache
 * limits.  Each is an ng_option_parse_fn (util/ng_options.h) for a row of
 * the gate's table (ng_cli.c) and for a manifest's field (ng_manifest.c,
 * through ng_cli_set_option()); the target is a struct ng_settings.  The
 * values every command takes (text, booleans, counts) are ng_options'.
 *
 * Ownership: the settings borrow each value's text; a problem is static
 * text or thread-local text that lives until the next call on the thread.
 * Nothing here prints. */
#ifndef NG_VALUES_H
#define NG_VALUES_H

#include "util/ng_options.h"

/* Threshold syntax shared with every other place that takes one:
 * "1.2", "1.20x", "20%"; a bare number of 2 or more ("20") is refused as
 * ambiguous (20%? 20x?).  Returns -1 with a message that starts with the
 * problem, e.g. "is not a number". */
int ng_values_parse_threshold(const char *text, double *out, const char **problem);

/* Members at v->opt->field. */
int ng_values_epochs(void *target, struct ng_option_value *v);      /* long, >= 1; and
                                                                       epochs_given */
int ng_values_threshold(void *target, struct ng_option_value *v);   /* double, a ratio */
int ng_values_ms(void *target, struct ng_option_value *v);          /* double, >= 0 */
int ng_values_seconds(void *target, struct ng_option_value *v);     /* double, > 0 */
int ng_values_alpha(void *target, struct ng_option_value *v);       /* double, [0, 1) */
int ng_values_name(void *target, struct ng_option_value *v);        /* text, not only blanks */
int ng_values_runs(void *target, struct ng_option_value *v);        /* long, 1 to 64 */

/* Members of their own. */
int ng_values_metric(void *target, struct ng_option_value *v);
int ng_values_work(void *target, struct ng_option_value *v);
int ng_values_kernel_names(void *target, struct ng_option_value *v);
int ng_values_baseline(void *target, struct ng_option_value *v);
int ng_values_current(void *target, struct ng_option_value *v);
int ng_values_kernels(void *target, struct ng_option_value *v);
int ng_values_exclude_kernels(void *target, struct ng_option_value *v);
int ng_values_comm_kernels(void *target, struct ng_option_value *v);
int ng_values_label(void *target, struct ng_option_value *v);
int ng_values_history_match(void *target, struct ng_option_value *v);
int ng_values_history_since(void *target, struct ng_option_value *v);
int ng_values_accept(void *target, struct ng_option_value *v);
int ng_values_cache_mb(void *target, struct ng_option_value *v);
int ng_values_cache_days(void *target, struct ng_option_value *v);

#endif
