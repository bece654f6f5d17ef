/* path.c - file path helpers (path.h). */
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int path_dir_creatable(const char *file, const char *name, struct zerr *err)
{
	char dir[PATH_MAX];
	struct stat st;
	path_dir(file, dir);
	if (stat(dir, &st) != 0)
		return zerr_set(err, "%s: cannot create: %s: %s", name, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return zerr_set(err, "%s: cannot create: %s is not a directory", name, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return zerr_set(err, "%s: cannot create: %s: %s", name, dir, strerror(errno));
	return 0;
}
