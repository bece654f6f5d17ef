/*
 * Sampled time where the shadow stack and the program counter disagree.
 * Built -O2 -fstack-clash-protection.
 *
 * probed() has a 1 MiB frame: its prologue probes the stack page by page
 * (256 stores in a loop) before its entry hook runs, and its body is one
 * store, so nearly all of its own time, and of the program's, is spent
 * before its hook: a profiler that charges by the shadow stack alone gives
 * that time to its caller, probe_loop().
 *
 * mixed() is inlined into mix_loop() and keeps its hooks (GCC instruments
 * inlined functions): its work runs inside mix_loop()'s code, between
 * mixed()'s hooks, so it is mixed()'s, not mix_loop()'s.
 *
 * Each part runs 0.4 s of the thread's CPU time; the clock is read once in
 * 256 calls.  With the argument "threads", probe_loop() runs in eight
 * threads one after the other, 0.05 s each: with fewer thread slots, the
 * ended threads' samples are merged (the runtime's "(ended threads)" slot).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile unsigned sink;

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void probed(unsigned i)
{
	volatile char frame[1 << 20];
	frame[i & 4095] = 1;
	sink += frame[0];
}

__attribute__((noinline)) static unsigned long probe_loop(double seconds)
{
	unsigned long calls = 0;
	double t0 = cpu_seconds();
	do
		for (unsigned i = 0; i < 256; i++, calls++)
			probed(i);
	while (cpu_seconds() - t0 < seconds);
	return calls;
}

static inline __attribute__((always_inline)) void mixed(unsigned x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 2654435761u + (unsigned)i;
	sink = x;
}

__attribute__((noinline)) static unsigned long mix_loop(double seconds)
{
	unsigned long calls = 0;
	double t0 = cpu_seconds();
	do
		for (unsigned i = 0; i < 256; i++, calls++)
			mixed(i);
	while (cpu_seconds() - t0 < seconds);
	return calls;
}

static void *probe_thread(void *calls)
{
	*(unsigned long *)calls = probe_loop(0.05);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long probes = 0, mixes;
	if (argc > 1 && strcmp(argv[1], "threads") == 0) {
		for (int i = 0; i < 8; i++) {
			unsigned long calls = 0;
			pthread_t t;
			if (pthread_create(&t, NULL, probe_thread, &calls) == 0)
				pthread_join(t, NULL);
			probes += calls;
		}
	} else {
		probes = probe_loop(0.4);
	}
	mixes = mix_loop(0.4);
	printf("ran: %s\n", probes > 0 && mixes > 0 ? "yes" : "no");
	return 0;
}
