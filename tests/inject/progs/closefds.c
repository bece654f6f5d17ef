/*
 * closefds.c - a program that closes its descriptors as daemons do at
 * start-up (QA s14 V2 F10), by the way argv[1] names: "range"
 * close_range(3, ~0U, 0), "from" closefrom(3), "sysrange"
 * syscall(SYS_close_range, 3, ~0U, 0), "proc" close() of every fd above
 * 2 that /proc/self/fd lists, "sysclose" the same by syscall(SYS_close);
 * "none" closes nothing.  Before it closes, work() is called once (a
 * measured thread's counter is opened there) and the program holds fds
 * 3..7 of its own; after, it says how many of those are still open (0)
 * and how many of its close() calls failed, then measures its own thread
 * CPU time around 200 calls of work() ("cpu-us N", not compared).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOI __attribute__((noipa))
static volatile unsigned long sink;

NOI void work(void)
{
	for (int k = 0; k < 20000; k++)
		sink += k;
}

static long cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

/* close(fd) by a syscall instruction of the program's own. */
static long close_asm(long fd)
{
	long rc;
	__asm__ volatile("syscall" : "=a"(rc) : "0"(SYS_close), "D"(fd) : "rcx", "r11", "memory");
	return rc;
}

/* Closes every fd above 2 /proc/self/fd lists (read whole first); the failures. */
static int close_listed(int raw)
{
	int fds[4096], n = 0, failed = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d)) && n < 4096;)
		if (e->d_name[0] != '.' && atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d))
			fds[n++] = atoi(e->d_name);
	closedir(d);
	for (int i = 0; i < n; i++)
		failed += (raw == 2 ? close_asm(fds[i])
			   : raw    ? syscall(SYS_close, fds[i])
				    : close(fds[i])) != 0;
	return failed;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "none";
	work();
	while (dup(0) < 7) /* fds 3..7 the program's own */
		;
	int failed = 0;
	if (!strcmp(how, "range"))
		failed = close_range(3, ~0U, 0) != 0;
	else if (!strcmp(how, "from"))
		closefrom(3);
	else if (!strcmp(how, "sysrange"))
		failed = syscall(SYS_close_range, 3, ~0U, 0) != 0;
	else if (!strcmp(how, "proc") || !strcmp(how, "sysclose") || !strcmp(how, "asm"))
		failed = close_listed(!strcmp(how, "asm") ? 2 : !strcmp(how, "sysclose"));
	int open = 0;
	for (int fd = 3; fd <= 7; fd++)
		open += fcntl(fd, F_GETFD) >= 0;
	printf("%s: own fds open %d, closes failed %d\n", how, strcmp(how, "none") ? open : 0,
	       failed);
	long c0 = cpu_us();
	for (int i = 0; i < 200; i++)
		work();
	printf("cpu-us %ld\ncount work 201\n", cpu_us() - c0);
	return 0;
}
