/* path.c - file path helpers (path.h). */
#include "path.h"

#include <stdio.h>
#include <string.h>

void path_dir(const char *path, char dir[PATH_MAX])
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, PATH_MAX, ".");
	else if (slash == path)
		snprintf(dir, PATH_MAX, "/");
	else
		snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path), path);
}

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}
