/*
 * closeall.c - a daemon's start: every fd from 3 up closed (argv[1]: loop,
 * range, from, syscall or sysloop: close in a loop to the limit,
 * close_range, closefrom, syscall(SYS_close_range), syscall(SYS_close) in
 * a loop, the last two as daemons do where glibc had no close_range),
 * then CPU work, then the next open: fd 3, as without zond, whose sampler
 * fds the closes leave (fds.c), so that the work is still sampled.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long sink;

static void burn(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * i;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "loop";
	if (strcmp(how, "range") == 0) {
		close_range(3, ~0u, 0);
	} else if (strcmp(how, "from") == 0) {
		closefrom(3);
	} else if (strcmp(how, "syscall") == 0) {
		syscall(SYS_close_range, 3, ~0u, 0);
	} else {
		struct rlimit r;
		getrlimit(RLIMIT_NOFILE, &r);
		for (int fd = 3; fd < (int)r.rlim_cur; fd++)
			if (strcmp(how, "sysloop") == 0)
				syscall(SYS_close, fd);
			else
				close(fd);
	}
	burn(60000000);
	printf("next fd %d\n", open("/dev/null", O_RDONLY));
	return 0;
}
