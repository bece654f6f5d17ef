/*
 * path.h - file path helpers the tool's commands and the store share.
 */
#ifndef ZOND_UTIL_PATH_H
#define ZOND_UTIL_PATH_H

#include <limits.h>

#include "error.h"

/* The directory of path into dir: "." for a bare name, "/" for a name in the root. */
void path_dir(const char *path, char dir[PATH_MAX]);

/*
 * Whether a file can be created at file, as far as its directory says (it
 * exists, is a directory, and lets us write and search it): 0, or -1 with
 * err set to "NAME: cannot create: ..." (name: what the user gave).
 */
int path_dir_creatable(const char *file, const char *name, struct zerr *err);

/* The last component of path (after its last '/'), inside path. */
const char *path_base(const char *path);

#endif
