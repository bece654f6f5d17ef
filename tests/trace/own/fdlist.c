/*
 * fdlist.c - writes into the file argv[1] the descriptors it starts with
 * (those below its soft RLIMIT_NOFILE: numbers its open() can give) and
 * the number its first open() gets, then exits with 3.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char text[8192];
	int n = 0;
	struct rlimit lim;
	if (argc < 2 || getrlimit(RLIMIT_NOFILE, &lim) != 0)
		return 1;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 1;
	for (struct dirent *e; (e = readdir(d)) && n < 8000;) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != dirfd(d) && (rlim_t)fd < lim.rlim_cur)
			n += snprintf(text + n, sizeof text - (size_t)n, "fd %d\n", fd);
	}
	closedir(d);
	n += snprintf(text + n, sizeof text - (size_t)n, "open %d\n", open("/dev/null", O_RDONLY));
	int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || write(out, text, (size_t)n) != n || close(out) != 0)
		return 1;
	return 3;
}
