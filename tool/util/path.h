/*
 * path.h - file path helpers the tool's commands and the store share.
 */
#ifndef ZOND_UTIL_PATH_H
#define ZOND_UTIL_PATH_H

#include <limits.h>

/* The directory of path into dir: "." for a bare name, "/" for a name in the root. */
void path_dir(const char *path, char dir[PATH_MAX]);

/* The last component of path (after its last '/'), inside path. */
const char *path_base(const char *path);

#endif
