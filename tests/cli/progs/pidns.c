/*
 * pidns - processes in pid namespaces of their own (QA s14 V2 F6): two
 * children each unshare(CLONE_NEWUSER | CLONE_NEWPID) and fork a process
 * that is pid 1 there, as sandboxes and container runtimes do.  Each pid 1
 * runs a thread calling tc (the first) or td (the second) 10 or 20 times,
 * and calls fa 100 or fb 200 times itself; fa, fb, tc and td call getppid,
 * getpgrp, getuid and getgid.
 *
 * "mount": each pid 1 has a mount namespace too, mounts a /proc of its own
 * namespace and forks again; its pid 2 does the same calls, then execs this
 * program ("tail"), which calls fa or fb 5 times more: a process zond cannot
 * name by a pid of its own namespace, in two images.
 *
 * Exit status 77 when the namespaces (or the /proc) cannot be made.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

/* each calls a library function of its own, for zond libcalls */
__attribute__((noinline)) void fa(int i) { sink += (unsigned long)(i + getppid()); }
__attribute__((noinline)) void fb(int i) { sink += (unsigned long)(i + getpgrp()); }
__attribute__((noinline)) void tc(int i) { sink += (unsigned long)i + getuid(); }
__attribute__((noinline)) void td(int i) { sink += (unsigned long)i + getgid(); }

static int which;

static void *thread_calls(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10 * (which + 1); i++)
		(which ? td : tc)(i);
	return NULL;
}

static void calls(int times)
{
	for (int i = 0; i < times; i++)
		(which ? fb : fa)(i);
}

/* The calls of a process of the namespace: a thread's, then its own. */
static void work(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, thread_calls, NULL) != 0 || pthread_join(t, NULL) != 0)
		_exit(2);
	calls(100 * (which + 1));
}

/* The child's status: 0, or what made it fail. */
static int reap(pid_t pid)
{
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 2;
	return WEXITSTATUS(status);
}

/* pid 1 of its namespace, with a /proc of its own: its pid 2 works, then execs. */
static int own_proc(const char *self)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("proc", "/proc", "proc", 0, NULL) != 0) {
		perror("pidns: mount proc");
		return 77;
	}
	pid_t pid = fork();
	if (pid == 0) {
		work();
		char arg[2] = {(char)('0' + which), 0};
		execl(self, self, "tail", arg, (char *)NULL);
		_exit(2);
	}
	return reap(pid);
}

static int child(const char *self, int mount_proc)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWPID | (mount_proc ? CLONE_NEWNS : 0)) != 0) {
		perror("pidns: unshare");
		return 77;
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (getpid() != 1)
			_exit(2);
		if (mount_proc)
			_exit(own_proc(self));
		work();
		_exit(0);
	}
	return reap(pid);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "tail")) {
		which = atoi(argv[2]);
		calls(5);
		return 0;
	}
	int mount_proc = argc == 2 && !strcmp(argv[1], "mount"), rc = 0;
	for (which = 0; which < 2 && !rc; which++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			_exit(child(argv[0], mount_proc));
		rc = reap(pid);
	}
	if (!rc)
		printf("two pid namespaces done\n");
	return rc;
}
