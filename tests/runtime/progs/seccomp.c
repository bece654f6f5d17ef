/*
 * seccomp.c - a sandboxed program that stays inside its sandbox: "filter"
 * installs an allow-list (write, fstat, exit, exit_group, rt_sigreturn;
 * anything else kills the process), works, prints and _exits with 5;
 * "strict" enters SECCOMP_MODE_STRICT (read, write, exit, rt_sigreturn),
 * works, writes and leaves by SYS_exit with 3.  Under zond it must run as
 * plainly: zond's runtime makes no system call of its own after the call.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static int step(int i)
{
	return i % 7;
}

/* long enough for samples and timer signals to come (some tens of ms of CPU) */
__attribute__((noinline)) static long work(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i % 1000 == 0 ? step((int)i) : 1;
	return s;
}

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static int filter(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(SYS_write), ALLOW(SYS_fstat), ALLOW(SYS_exit), ALLOW(SYS_exit_group),
		ALLOW(SYS_rt_sigreturn),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {sizeof code / sizeof code[0], code};
	setvbuf(stdout, NULL, _IONBF, 0);
	work(20000000);
	printf("before filter\n");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 1;
	printf("in filter %d\n", work(50000000) > 0);
	_exit(5);
}

static int strict(void)
{
	work(20000000);
	write(1, "before strict\n", 14);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		return 1;
	work(50000000);
	write(1, "in strict\n", 10);
	syscall(SYS_exit, 3);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "filter"))
		return filter();
	if (argc > 1 && !strcmp(argv[1], "strict"))
		return strict();
	return 2;
}
