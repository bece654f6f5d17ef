/* fds.c - zond's own descriptors kept from the programs it runs (fds.h). */
#define _GNU_SOURCE
#include "fds.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static int *inherited;
static size_t ninherited;
static int noted;

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Calls fn for every open descriptor but the directory's own; -1 when /proc is not there. */
static int each_fd(void (*fn)(int fd, int dir_fd))
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		fn(atoi(e->d_name), dirfd(d));
	}
	closedir(d);
	return 0;
}

static void note(int fd, int dir_fd)
{
	if (fd == dir_fd)
		return;
	int *more = realloc(inherited, (ninherited + 1) * sizeof *inherited);
	if (!more)
		return;
	inherited = more;
	inherited[ninherited++] = fd;
}

void fds_note_inherited(void)
{
	noted = each_fd(note) == 0;
	if (inherited)
		qsort(inherited, ninherited, sizeof *inherited, cmp_int);
}

static void keep(int fd, int dir_fd)
{
	if (fd == dir_fd || fd <= 2 ||
	    (inherited && bsearch(&fd, inherited, ninherited, sizeof *inherited, cmp_int)))
		return;
	int flags = fcntl(fd, F_GETFD);
	if (flags >= 0 && !(flags & FD_CLOEXEC))
		fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

void fds_keep_own(void)
{
	if (noted)
		each_fd(keep);
}

int fds_move_high(int fd)
{
	struct rlimit lim, raised;
	int high = -1;
	if (fd < 0 || getrlimit(RLIMIT_NOFILE, &lim) != 0)
		return fd;
	if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < (1u << 24) &&
	    lim.rlim_cur < lim.rlim_max) {
		raised = lim;
		raised.rlim_cur = lim.rlim_cur + 64 < lim.rlim_max ? lim.rlim_cur + 64 : lim.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &raised) == 0) {
			high = fcntl(fd, F_DUPFD_CLOEXEC, (int)lim.rlim_cur);
			setrlimit(RLIMIT_NOFILE, &lim);
		}
	}
	/* no room above: the top of the program's numbers, the last its open() gives */
	for (int k = 1; high < 0 && k <= 64 && lim.rlim_cur >= 256 && lim.rlim_cur < (1u << 24); k++)
		high = fcntl(fd, F_DUPFD_CLOEXEC, (int)(lim.rlim_cur - (rlim_t)k));
	if (high < 0)
		return fd;
	close(fd);
	return high;
}
