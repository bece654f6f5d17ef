/*
 * forkbox.c - a program that puts itself under a seccomp allow-list without
 * getpid, gettid and madvise, then forks a child; child and parent call the
 * measured work() at the same time (the child 100000 times, the parent
 * 50000), the parent waits for the child.  With an argument main calls
 * work() once before the filter (so zond's payload runs before it); without,
 * the first measured call comes after it.  Prints each process's count.
 * Exits 77 when the filter cannot be installed.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOI __attribute__((noipa))
static volatile long sink;

NOI void work(long i)
{
	sink += i;
}

#define ALLOW(n)                                                                                   \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, n, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
int main(int argc, char **argv)
{
	(void)argv;
	long before = 0;
	if (argc > 1) {
		work(1);
		before = 1;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(SYS_read),
		ALLOW(SYS_write),
		ALLOW(SYS_exit),
		ALLOW(SYS_exit_group),
		ALLOW(SYS_futex),
		ALLOW(SYS_clone),
		ALLOW(SYS_clone3),
		ALLOW(SYS_mmap),
		ALLOW(SYS_mprotect),
		ALLOW(SYS_munmap),
		ALLOW(SYS_rt_sigprocmask),
		ALLOW(SYS_set_robust_list),
		ALLOW(SYS_rseq),
		ALLOW(SYS_brk),
		ALLOW(SYS_rt_sigaction),
		ALLOW(SYS_newfstatat),
		ALLOW(SYS_getrandom),
		ALLOW(SYS_wait4),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)};
	struct sock_fprog prog = {sizeof f / sizeof f[0], f};
	fflush(stdout);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 77;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	long n = pid == 0 ? 100000 : 50000;
	for (long i = 0; i < n; i++)
		work(i);
	if (pid == 0) {
		printf("child: %ld calls\n", n);
		fflush(stdout);
		_exit(0);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("parent: %ld calls\n", n + before);
	return 0;
}
