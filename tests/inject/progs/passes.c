/*
 * passes.c - a region to measure with zond inject --region: every call of
 * pass_begin() later followed by pass_end() on the same thread is a pass;
 * a second pass_begin() before pass_end() is still the same pass.  The
 * program counts its passes and prints "count region N"; it also calls
 * pass_end() with no pass open (not a pass).  Two threads.
 */
#include <pthread.h>
#include <stdio.h>

static unsigned long marks, passes[2];

__attribute__((noinline)) void pass_begin(void)
{
	__atomic_add_fetch(&marks, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void pass_end(void)
{
	__atomic_add_fetch(&marks, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) long body(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i * i;
	return s;
}

static void *run(void *arg)
{
	long id = (long)arg, s = 0;
	pass_end(); /* no pass open */
	for (int i = 0; i < 150 + 50 * (int)id; i++) {
		pass_begin();
		s += body(100 + i);
		if (i % 3 == 0)
			pass_begin(); /* still the same pass */
		pass_end();
		passes[id]++;
	}
	return (void *)s;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, run, (void *)1);
	void *r0 = run((void *)0), *r1;
	pthread_join(t, &r1);
	printf("sums %ld %ld marks %lu\n", (long)r0, (long)r1, marks);
	printf("count region %lu\n", passes[0] + passes[1]);
	return 0;
}
