/*
 * sigs.c - signal handlers that call measured functions while measured
 * functions run on the same thread, so that zond inject's payload is
 * interrupted at any of its instructions.  Three workers (main and two
 * threads) call mid(), which calls leaf() twice, in a loop; a fourth thread
 * sends each of them SIGUSR1 and SIGUSR2 back to back, thousands of times
 * (SIGUSR2's handler may interrupt SIGUSR1's: nested signals), and a
 * CPU-time timer sends SIGPROF on top.  Each handler calls mid() or leaf().
 * Every function counts its own calls with one atomic add (a handler may
 * interrupt the count itself) and main prints "count NAME N" at the end.
 * The signals start once every worker made its first measured call.
 *
 * With the argument "jump", SIGUSR1's handler calls leaf() and leaves by
 * siglongjmp to its worker's loop, cutting short the call it interrupted
 * (SIGUSR1 is blocked in the other handlers, so only a worker's own calls
 * are cut).  A call cut short may or may not have been counted, so each
 * call is also counted at its call site before it is made ("site NAME N")
 * and the jumps taken are printed ("jumps N"): a measured count lies
 * between the site's count less the jumps and the site's count.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define WORKERS 3   /* main and two threads */
#define ROUNDS  6000 /* SIGUSR1 and SIGUSR2 to each worker per round */

#define ADD(x) __atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)

static volatile long sink;
static long n_leaf, n_mid, n_usr1, n_usr2, n_prof, n_jumps;
static long s_leaf, s_mid; /* at the call sites */
static int jump, ready;
static volatile int stop;
static __thread sigjmp_buf env;
static __thread volatile int armed;

__attribute__((noinline)) void leaf(long i)
{
	ADD(n_leaf);
	sink += i;
}

__attribute__((noinline)) void mid(long i)
{
	ADD(n_mid);
	ADD(s_leaf);
	leaf(i);
	ADD(s_leaf);
	leaf(i + 1);
}

__attribute__((noinline)) void on_usr1(int sig)
{
	(void)sig;
	ADD(n_usr1);
	if (jump && armed) {
		ADD(s_leaf);
		leaf(3);
		ADD(n_jumps);
		siglongjmp(env, 1);
	}
	ADD(s_mid);
	mid(3);
}

__attribute__((noinline)) void on_usr2(int sig)
{
	(void)sig;
	ADD(n_usr2);
	ADD(s_leaf);
	leaf(5);
}

__attribute__((noinline)) void on_prof(int sig)
{
	(void)sig;
	ADD(n_prof);
	ADD(s_leaf);
	leaf(7);
}

/* Calls mid() until stop; the first call before it counts itself ready. */
static void work(void)
{
	long i = 0;
	ADD(s_mid);
	mid(i++);
	ADD(ready);
	if (sigsetjmp(env, 1) == 0)
		armed = 1;
	while (!stop) {
		ADD(s_mid);
		mid(i++);
	}
	armed = 0;
}

static void *worker(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

static void *sender(void *arg)
{
	pthread_t *to = arg;
	struct timespec pause = {0, 20000};
	while (__atomic_load_n(&ready, __ATOMIC_RELAXED) < WORKERS)
		sched_yield();
	struct itimerval it = {{0, 200}, {0, 200}};
	setitimer(ITIMER_PROF, &it, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		for (int w = 0; w < WORKERS; w++) {
			pthread_kill(to[w], SIGUSR1);
			pthread_kill(to[w], SIGUSR2);
		}
		if (r % 4 == 0)
			nanosleep(&pause, NULL);
	}
	struct itimerval off;
	memset(&off, 0, sizeof off);
	setitimer(ITIMER_PROF, &off, NULL);
	stop = 1;
	return NULL;
}

/* handler fn for sig, with the signals in mask blocked while it runs */
static void handle(int sig, void (*fn)(int), int mask)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (mask)
		sigaddset(&sa.sa_mask, mask);
	sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv)
{
	jump = argc > 1 && strcmp(argv[1], "jump") == 0;
	handle(SIGUSR1, on_usr1, 0);
	handle(SIGUSR2, on_usr2, jump ? SIGUSR1 : 0);
	handle(SIGPROF, on_prof, jump ? SIGUSR1 : 0);
	pthread_t t[WORKERS], s;
	sigset_t prof, old;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	t[0] = pthread_self();
	for (int w = 1; w < WORKERS; w++)
		pthread_create(&t[w], NULL, worker, NULL);
	pthread_sigmask(SIG_BLOCK, &prof, &old); /* the timer's signals go to the workers */
	pthread_create(&s, NULL, sender, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	work();
	pthread_join(s, NULL);
	for (int w = 1; w < WORKERS; w++)
		pthread_join(t[w], NULL);
	printf("signals usr1 %ld usr2 %ld prof %ld\n", n_usr1, n_usr2, n_prof);
	if (jump)
		printf("site leaf %ld\nsite mid %ld\njumps %ld\n", s_leaf, s_mid, n_jumps);
	else
		printf("count leaf %ld\ncount mid %ld\n", n_leaf, n_mid);
	printf("count on_usr1 %ld\ncount on_usr2 %ld\ncount on_prof %ld\n", n_usr1, n_usr2, n_prof);
	puts("done");
	return 0;
}
