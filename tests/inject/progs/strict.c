/*
 * strict.c - a program that puts itself under seccomp strict mode (QA s14
 * V2 F5), by the way argv[1] names: "prctl" prctl(PR_SET_SECCOMP,
 * SECCOMP_MODE_STRICT), "seccomp" syscall(SYS_seccomp,
 * SECCOMP_SET_MODE_STRICT), "sysprctl" syscall(SYS_prctl, PR_SET_SECCOMP,
 * SECCOMP_MODE_STRICT), "late" prctl with no call of work() before it (the
 * thread's first measured call comes after).  outer() makes the call and
 * then 1000 calls of work(); main calls work() 10 times before (but
 * "late").  Strict mode makes rdtsc fault and allows read, write and exit
 * only: the output is written with write(), the end is syscall(SYS_exit).
 * Prints its own counts ("count NAME N").
 */
#define _GNU_SOURCE
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOI __attribute__((noipa))
static volatile unsigned long sink;
static long nwork, nouter;

NOI void work(int n)
{
	nwork++;
	for (int i = 0; i < n; i++)
		sink += i;
}

NOI long outer(const char *how)
{
	nouter++;
	long rc;
	if (!strcmp(how, "seccomp"))
		rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL);
	else if (!strcmp(how, "sysprctl"))
		rc = syscall(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
	else
		rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
	if (rc)
		return rc;
	for (int i = 0; i < 1000; i++)
		work(100);
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "prctl";
	if (strcmp(how, "late"))
		for (int i = 0; i < 10; i++)
			work(100);
	if (outer(how)) {
		perror("seccomp strict");
		return 77;
	}
	char buf[128]; /* snprintf makes no system call; stdio's exit would (exit_group) */
	int n = snprintf(buf, sizeof buf, "%s: done\ncount work %ld\ncount outer %ld\n", how, nwork,
			 nouter);
	if (write(1, buf, (size_t)n) != n)
		syscall(SYS_exit, 1);
	syscall(SYS_exit, 0);
}
