/*
 * contexts.c - calling contexts that call edges cannot tell apart: two
 * callers share a callee that calls one leaf for the first and another for
 * the second; mutual recursion; longjmp out of a recursion; a signal
 * handler's calls; threads.  With argument "nothreads" (for QEMU's log,
 * which has no threads) the workers are not started.
 *
 * Its structure gives the stacks, listed below as "expect: THREAD PATH
 * CALLS" (paths keep this file's functions only, from main or worker).
 * contexts.sh compares them with zond's contexts exactly; each leaf is
 * branchless, so its self cost per call is its instruction count in
 * objdump.
 *
 * expect: 0 main 1
 * expect: 0 main;caller_a 3
 * expect: 0 main;caller_a;shared 3
 * expect: 0 main;caller_a;shared;leaf_x 3
 * expect: 0 main;caller_b 6
 * expect: 0 main;caller_b;shared 6
 * expect: 0 main;caller_b;shared;leaf_y 6
 * expect: 0 main;is_even 2
 * expect: 0 main;is_even;is_odd 2
 * expect: 0 main;is_even;is_odd;is_even 2
 * expect: 0 main;is_even;is_odd;is_even;is_odd 2
 * expect: 0 main;is_even;is_odd;is_even;is_odd;is_even 2
 * expect: 0 main;dive 3
 * expect: 0 main;dive;dive 3
 * expect: 0 main;dive;dive;dive 3
 * expect: 0 main;after 3
 * expect: 0 main;handler 4
 * expect: 0 main;handler;leaf_x 4
 * expect: 0 main;work 4
 * threads: 1 worker 1
 * threads: 1 worker;caller_a 2
 * threads: 1 worker;caller_a;shared 2
 * threads: 1 worker;caller_a;shared;leaf_x 2
 * threads: 1 worker;caller_b 1
 * threads: 1 worker;caller_b;shared 1
 * threads: 1 worker;caller_b;shared;leaf_y 1
 * threads: 2 worker 1
 * threads: 2 worker;caller_a 4
 * threads: 2 worker;caller_a;shared 4
 * threads: 2 worker;caller_a;shared;leaf_x 4
 * threads: 2 worker;caller_b 2
 * threads: 2 worker;caller_b;shared 2
 * threads: 2 worker;caller_b;shared;leaf_y 2
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define KEEP __attribute__((noipa))

static volatile int sink;
static jmp_buf env;

KEEP int leaf_x(int v) { return v * 3 + 1; }
KEEP int leaf_y(int v) { return v * 5 - 2; }
KEEP int shared(int from_a) { return from_a ? leaf_x(from_a) : leaf_y(from_a); }
KEEP void caller_a(void) { sink += shared(1); }
KEEP void caller_b(void) { sink += shared(0); }

KEEP int is_odd(int n);
KEEP int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
KEEP int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

KEEP void dive(int depth)
{
	if (depth == 0)
		longjmp(env, 1);
	dive(depth - 1);
	sink++; /* not a tail call: each level keeps its frame */
}
KEEP int after(int x) { return x + 1; }

KEEP void handler(int sig) { sink += leaf_x(sig); }
KEEP int work(int x) { return x * 2 + 1; }

KEEP void *worker(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < 2 * n; i++)
		caller_a();
	for (long i = 0; i < n; i++)
		caller_b();
	return NULL;
}

int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		caller_a();
	for (int i = 0; i < 6; i++)
		caller_b();
	for (int i = 0; i < 2; i++)
		s += is_even(4);
	for (volatile int i = 0; i < 3; i++) {
		if (setjmp(env) == 0)
			dive(2);
		s = after(s);
	}
	signal(SIGUSR1, handler);
	for (int i = 0; i < 4; i++) {
		kill(getpid(), SIGUSR1);
		s += work(i);
	}
	/* One worker at a time: thread ids follow creation order. */
	for (long t = 1; t <= 2 && !(argc > 1 && strcmp(argv[1], "nothreads") == 0); t++) {
		pthread_t th;
		if (pthread_create(&th, NULL, worker, (void *)t) != 0 || pthread_join(th, NULL) != 0)
			return 1;
	}
	printf("%d %d\n", s, sink);
	return 0;
}
