/* ng_file: where a report lands on disk.  A path given for an output may
 * be a symlink: the report goes to the link's target (the link stays a
 * link, as a user who pointed it somewhere expects), and every writer and
 * check resolves it here, the same way.
 *
 * Ownership: every function borrows its arguments; a returned path is
 * freshly allocated and the caller frees it. */
#ifndef NG_FILE_H
#define NG_FILE_H

/* The file a write to path lands in: path with its symlinks followed (a
 * relative target read against the link's own directory), or path itself
 * when it is no symlink or names nothing yet.  NULL with errno ELOOP after
 * 40 links. */
char *ng_file_target(const char *path);

/* A name that identifies the file path lands in, whatever the spelling
 * ("x", "./x", "d/../x", a symlink to it): the target's directory made
 * absolute and canonical, plus its name.  Two outputs with equal keys
 * would write one file. */
char *ng_file_key(const char *path);

#endif
