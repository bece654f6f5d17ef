/*
 * The exec family.  The first image tries every form on a path that does not
 * exist: each returns -1 with errno as without zond, and its raw file is
 * still RUNNING with no end time afterwards.  Then a chain of images, each
 * replaced by another form: execl (after a 20 ms spin past its last
 * instrumented call, which the open frames' times must include), execvp
 * through PATH, execle and fexecve with the program's environment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "raw.h"

extern char **environ;

static char self[PATH_MAX];
static const char missing[] = "/nonexistent/zond-no-such-program";

static void failed(const char *form, int ret)
{
	int e = errno;
	printf("%s: %d %s\n", form, ret, strerrorname_np(e) ? strerrorname_np(e) : "?");
}

/* This image's raw file, the first of this pid: its state and end time. */
static void own_file(void)
{
	const char *dir = getenv("ZOND_DIR");
	if (!dir)
		return;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%d.0.zraw", dir, (int)getpid());
	struct zr_header h;
	int fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
		printf("no raw file %s\n", path);
	} else {
		printf("raw file: state %s, end %s\n", h.state == ZR_RUNNING ? "running" : "not running",
		       h.end_ticks || h.end_realtime_ns ? "set" : "0");
	}
	if (fd >= 0)
		close(fd);
}

static void try_missing(void)
{
	char *argv[] = {(char *)missing, "x", NULL};
	errno = 0;
	failed("execv", execv(missing, argv));
	failed("execve", execve(missing, argv, environ));
	failed("execvp", execvp("zond-no-such-program", argv));
	failed("execvpe", execvpe("zond-no-such-program", argv, environ));
	failed("execl", execl(missing, missing, "x", (char *)NULL));
	failed("execle", execle(missing, missing, "x", (char *)NULL, environ));
	failed("execlp", execlp("zond-no-such-program", "zond-no-such-program", (char *)NULL));
	failed("fexecve", fexecve(-1, argv, environ));
	failed("execveat", execveat(AT_FDCWD, missing, argv, environ, 0));
}

static void first(void)
{
}

/* not instrumented: the spin runs after the last instrumented call */
__attribute__((no_instrument_function)) static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* 20 ms past its last instrumented call, then execl: its time includes them. */
static void spin_then_exec(void)
{
	first();
	double t0 = now_ms();
	while (now_ms() - t0 < 20)
		;
	fflush(stdout);
	execl(self, self, "2", (char *)NULL);
	perror("execl");
}

static void second(void)
{
	/* through PATH: the program's directory only */
	char dir[PATH_MAX];
	strcpy(dir, self);
	char *slash = strrchr(dir, '/');
	*slash = 0;
	setenv("PATH", dir, 1);
	char *argv[] = {slash + 1, "3", NULL};
	fflush(stdout);
	execvp(slash + 1, argv);
	perror("execvp");
}

static void third(void)
{
	fflush(stdout);
	execle(self, self, "4", (char *)NULL, environ);
	perror("execle");
}

static void fourth(void)
{
	int fd = open(self, O_RDONLY);
	char *argv[] = {self, "5", NULL};
	fflush(stdout);
	fexecve(fd, argv, environ);
	perror("fexecve");
}

static void fifth(void)
{
}

int main(int argc, char **argv)
{
	if (!realpath("/proc/self/exe", self))
		return 2;
	int image = argc > 1 ? atoi(argv[1]) : 1;
	printf("image %d\n", image);
	switch (image) {
	case 1:
		try_missing();
		own_file();
		spin_then_exec();
		break;
	case 2: second(); break;
	case 3: third(); break;
	case 4: fourth(); break;
	default: fifth(); return 0;
	}
	return 1;
}
