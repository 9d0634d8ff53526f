/* ng_work_rates: the current side's counted work rows per epoch, as a history
 * line carries them (so a later run can use them as its baseline's rows,
 * and a dashboard can chart them): one row per kind and name with its
 * ms and launches per epoch, largest first, at most NG_WORK_RATES_CAP of them
 * and then one "others" row (kind NG_WORK_OTHERS) holding the rest.
 *
 * Names in a history line follow one rule, ng_work_rates_name(): at most
 * NG_WORK_RATES_NAME_MAX bytes of JSON, a longer name cut and ended with a hash
 * of the whole (ng_text_cut).  A history baseline spells today's rows the
 * same way (ng_work_rates_fold()), so a kernel's row in the baseline and its row
 * today have one name.
 *
 * Ownership: the rows ng_work_rates_fill() gives a verdict are its own array
 * (freed by ng_verdict_release()); their names are borrowed from the
 * profiles, which must outlive the verdict.  ng_work_rates_fold() changes the
 * profile in place. */
#ifndef NG_WORK_RATES_H
#define NG_WORK_RATES_H

#include <stddef.h>

#include "core/ng_profile.h"
#include "core/ng_verdict.h"
#include "util/ng_util.h"

#define NG_WORK_RATES_CAP 50
#define NG_WORK_RATES_NAME_MAX 512

/* The longest --history line, its newline included: under 64 KiB.  The
 * gate's name in it is cut (ng_text_cut, hashed) at NG_HISTORY_NAME_MAX
 * JSON bytes, whatever else the line had to cut. */
#define NG_HISTORY_LINE_LIMIT 65535
#define NG_HISTORY_NAME_MAX 1024

/* The name of the folded rows' row. */
extern const char ng_work_rates_others[];

/* Sets v->rows from the current side's profiles (p, n), per epoch of
 * v->current (which the comparison has counted); nothing when the verdict
 * has no figures. */
void ng_work_rates_fill(struct ng_verdict *v, const struct ng_profile *p, size_t n);

/* A row name as a history line spells it, appended to out. */
void ng_work_rates_name(struct ng_buf *out, const char *name);

/* The profile's rows as a history line would hold them: names by
 * ng_work_rates_name() (rows that then share a name merge), the NG_WORK_RATES_CAP
 * largest kept and the rest one others row.  Totals and counts stay. */
void ng_work_rates_fold(struct ng_profile *p);

#endif
