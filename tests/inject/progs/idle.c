/*
 * idle.c - a service idle until the file GO exists, then N requests (tick:
 * work and work2 once each), its own counts printed, status 0.  MODE
 * "filter" puts the process under a seccomp filter that kills it at
 * memfd_create (a hardened daemon's deny action), "thread" puts only a
 * second thread under it; "plain" none.  Used by safekill.sh and
 * sandboxed.sh: attached to while idle.
 *
 * Usage: idle plain|filter|thread GO N
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long n_tick, n_work, n_work2;

__attribute__((noinline)) void work(void)
{
	n_work++;
}
__attribute__((noinline)) void work2(void)
{
	n_work2++;
}
__attribute__((noinline)) void tick(void)
{
	n_tick++;
	work();
	work2();
}

static int sandbox(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_memfd_create, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {sizeof f / sizeof f[0], f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p)) {
		perror("seccomp");
		return -1;
	}
	return 0;
}

static void *sandboxed(void *arg)
{
	(void)arg;
	if (sandbox() < 0)
		exit(2);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	if (argc != 4)
		return 2;
	if (strcmp(argv[1], "filter") == 0 && sandbox() < 0)
		return 2;
	if (strcmp(argv[1], "thread") == 0 && pthread_create(&th, NULL, sandboxed, NULL))
		return 2;
	while (access(argv[2], F_OK))
		usleep(1000);
	for (long i = atol(argv[3]); i > 0; i--)
		tick();
	printf("count tick %ld\ncount work %ld\ncount work2 %ld\n", n_tick, n_work, n_work2);
	return 0;
}
