/*
 * sigmask: blocks every signal, then reads its mask back three ways (a
 * query, the old set of SIG_SETMASK, after unblocking one real-time signal)
 * and prints what it saw, then burns CPU in burn() with every signal still
 * blocked.  Under zond, whose sampling signal is never really blocked, the
 * program must read back what it set.  `sigmask exec` blocks every signal
 * and execs `sigmask query`, which prints the mask it started with.
 * With every signal blocked it also reads the mask through the system call
 * (syscall(SYS_rt_sigprocmask)), and starts what inherits it: a thread
 * (pthread_create, thrd_create), a process (posix_spawn, system, fork),
 * each of which prints the mask it has (`sigmask peek`: the one it started
 * with, and nothing else).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) static void burn(long n)
{
	for (long i = 0; i < n; i++)
		sink += i ^ (sink >> 1);
}

/* the blockable signals blocked in set: their count, and whether all are */
static int blocked(const sigset_t *set)
{
	int n = 0;
	for (int s = 1; s <= SIGRTMAX; s++)
		n += sigismember(set, s) == 1;
	return n;
}

/* the blockable signals blocked in the kernel's one-word set, as the system call has it */
static int blocked_word(unsigned long word)
{
	int n = 0;
	for (int s = 1; s <= SIGRTMAX && s <= 64; s++)
		n += (word >> (s - 1)) & 1;
	return n;
}

static void *thread_reads(void *arg)
{
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	printf("%s %d\n", (const char *)arg, blocked(&cur));
	return NULL;
}

static int c11_thread_reads(void *arg)
{
	thread_reads(arg);
	return 0;
}

/* what inherits the mask, each printing the mask it has */
static void inheritors(const char *self)
{
	pthread_t t;
	pthread_create(&t, NULL, thread_reads, "pthread_create");
	pthread_join(t, NULL);
	thrd_t c;
	thrd_create(&c, c11_thread_reads, "thrd_create");
	thrd_join(c, NULL);
	fflush(stdout);
	char *args[] = {(char *)self, "peek", NULL};
	pid_t pid;
	int status;
	if (posix_spawn(&pid, self, NULL, NULL, args, NULL) == 0)
		waitpid(pid, &status, 0);
	/* a mask read back, handed on as the spawned process's */
	posix_spawnattr_t attr;
	sigset_t mask;
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setsigmask(&attr, &mask);
	if (posix_spawn(&pid, self, NULL, &attr, args, NULL) == 0)
		waitpid(pid, &status, 0);
	posix_spawnattr_destroy(&attr);
	char command[4200];
	snprintf(command, sizeof command, "'%s' peek", self);
	system(command);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sigset_t cur;
		sigprocmask(SIG_BLOCK, NULL, &cur);
		printf("fork %d\n", blocked(&cur));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	unsigned long word = 0, all = ~0ul, old = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &word, sizeof word);
	printf("syscall query %d\n", blocked_word(word));
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof old);
	printf("syscall old %d\n", blocked_word(old));
	word = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &word, sizeof word);
	printf("syscall after setmask %d\n", blocked_word(word));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	sigset_t all, cur, old, none;
	sigfillset(&all);
	sigemptyset(&none);
	if (argc > 1 && strcmp(argv[1], "query") == 0) {
		sigprocmask(SIG_BLOCK, NULL, &cur);
		printf("started with %d\n", blocked(&cur));
		burn(20000000);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "peek") == 0) {
		sigprocmask(SIG_BLOCK, NULL, &cur);
		printf("started with %d\n", blocked(&cur));
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "exec") == 0) {
		sigprocmask(SIG_BLOCK, &all, NULL);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "query", (char *)NULL);
		return 1;
	}
	sigprocmask(SIG_BLOCK, &all, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	printf("query %d\n", blocked(&cur));
	sigprocmask(SIG_SETMASK, &all, &old);
	printf("old %d\n", blocked(&old));
	inheritors(argv[0]);
	burn(20000000);
	sigset_t one;
	sigemptyset(&one);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(&one, s);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("realtime unblocked %d\n", blocked(&cur));
	sigprocmask(SIG_SETMASK, &none, &old);
	printf("old %d\n", blocked(&old));
	return 0;
}
