/*
 * sandbox.c - a program that puts itself under a seccomp allow-list (what
 * starting a thread, stdio and exit need here: no gettid, no getpid) and
 * then starts a thread that calls the measured work() 1000
 * times (QA s11 F9).  main calls work() once before.  Exits 77 when the
 * filter cannot be installed (no seccomp).
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOI __attribute__((noipa))
NOI long work(long i)
{
	return i * 3;
}

NOI void *worker(void *a)
{
	(void)a;
	long s = 0;
	for (long i = 0; i < 1000; i++)
		s += work(i);
	return (void *)s;
}

#define ALLOW(n) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, n, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
int main(void)
{
	printf("main: work(1)=%ld\n", work(1));
	fflush(stdout);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(SYS_read), ALLOW(SYS_write), ALLOW(SYS_exit), ALLOW(SYS_exit_group),
		ALLOW(SYS_futex), ALLOW(SYS_clone), ALLOW(SYS_clone3), ALLOW(SYS_mmap),
		ALLOW(SYS_mprotect), ALLOW(SYS_munmap), ALLOW(SYS_rt_sigprocmask),
		ALLOW(SYS_set_robust_list), ALLOW(SYS_rseq), ALLOW(SYS_brk),
		ALLOW(SYS_rt_sigaction), ALLOW(SYS_newfstatat), ALLOW(SYS_getrandom),
		ALLOW(SYS_madvise), /* glibc gives a joined thread's stack back */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)};
	struct sock_fprog prog = {sizeof f / sizeof f[0], f};
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		return 77;
	}
	pthread_t t;
	void *r;
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, &r);
	printf("worker: %ld\n", (long)r);
	return 0;
}
