/* ng_html_escape: text made safe for the pages (the --html report, the
 * dashboard) and for the SVG charts in them; below both ng_html and
 * ng_svg, which each use it.
 *
 * Escaping.  Names of gates, kernels, paths and labels come from profiles
 * and history files anyone can write:
 * - text and attribute values (always double-quoted), SVG <text> and
 *   <title>: ng_html_escape_text(): cleaned first (invalid UTF-8 -> U+FFFD,
 *   controls -> visible \xNN, Unicode noncharacters -> U+FFFD), then
 *   & < > " ' as character references; valid in HTML and in XML;
 * - URLs: ng_html_escape_url(): bytes outside the URL characters
 *   percent-encoded, then escaped as an attribute value; a run's URL is
 *   linked only when ng_html_escape_url_linkable() (http or https).
 *
 * Ownership: every function borrows its arguments and appends to out. */
#ifndef NG_HTML_ESCAPE_H
#define NG_HTML_ESCAPE_H

#include <stddef.h>

#include "util/ng_util.h"

void ng_html_escape_text(struct ng_buf *out, const char *s);
void ng_html_escape_text_n(struct ng_buf *out, const char *s, size_t n);
/* The first `chars` characters of s (cleaned), escaped, with "..." when
 * cut: a label that must fit. */
void ng_html_escape_text_cut(struct ng_buf *out, const char *s, size_t chars);
/* The same escaping, for a double-quoted attribute value. */
void ng_html_escape_attr(struct ng_buf *out, const char *s);
/* An href value: percent-encodes what is not a URL character (spaces,
 * quotes, <, >, controls, bytes over 0x7E), keeps '%' escapes as they
 * are, then escapes & for the attribute. */
void ng_html_escape_url(struct ng_buf *out, const char *url);
/* 1 when url is an absolute http:// or https:// URL (any case), the only
 * run URLs the pages link to: a javascript: or data: URL is shown as
 * text, never linked. */
int ng_html_escape_url_linkable(const char *url);

#endif
