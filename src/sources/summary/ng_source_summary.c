#include "sources/summary/ng_source_summary.h"

#include "sources/ng_source_opts.h"
#include "sources/summary/ng_summary_file.h"
#include "util/ng_gzip.h"
#include "util/ng_util.h"

static int summary_load(struct ng_profile *p, const char *path,
                        const struct ng_source_opts *opts, struct ng_err *err)
{
    struct ng_buf text = NG_BUF_INIT;

    int ret = ng_gzip_read_all(path, NG_SUMMARY_FILE_MAX, &text, err);
    if (ret == 0)
        ret = ng_summary_file_read(p, text.data ? text.data : "", text.len, opts, err);
    if (ret == 0 && opts && opts->list_ranges && !p->listing) {
        p->loaded = 0;
        ret = ng_err_set(err, "'%s' is a summary without the NVTX range groups `nsys-gate "
                         "ranges` lists: run it on the profile the summary came from, or "
                         "summarize that with --range-groups", path);
    }
    ng_buf_release(&text);
    return ret;
}

static const char *const extensions[] = { ".summary.json", ".summary.json.gz", NULL };

const struct ng_source_kind ng_source_summary = {
    .format = NG_FORMAT_SUMMARY,
    .sniff = ng_summary_file_sniff,
    .extensions = extensions,
    .load = summary_load,
    /* no `reads`: not a profile a file is mistaken for (ng_source.c) */
};
