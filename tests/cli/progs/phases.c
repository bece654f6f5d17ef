/*
 * phases.c - calls in a known order, for the timeline (zond record
 * --timeline): `phases A B` runs a worker thread that calls w() 3 times and
 * waits for it to end; then mark(), a() A times, mark(), b() B times (each
 * calling leaf() twice and getppid() once), mark().  It prints its counts.
 * `phases A B abort` dies of SIGABRT right after the second mark();
 * `phases A B block` runs the b() calls inside the block "bs" (zond.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "zond.h"

static volatile unsigned long sink;
static long n_a, n_b, n_leaf, n_mark, n_w, n_getppid;

__attribute__((noinline)) static void leaf(void)
{
	sink++;
	n_leaf++;
}

__attribute__((noinline)) static void a(void)
{
	sink += 2;
	n_a++;
}

__attribute__((noinline)) static void b(void)
{
	leaf();
	sink += (unsigned long)getppid();
	n_getppid++;
	leaf();
	n_b++;
}

__attribute__((noinline)) static void mark(void)
{
	n_mark++;
}

__attribute__((noinline)) static void w(void)
{
	n_w++;
}

static void *worker(void *arg)
{
	for (int i = 0; i < 3; i++)
		w();
	return arg;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fputs("usage: phases A B [abort|block]\n", stderr);
		return 2;
	}
	long na = atol(argv[1]), nb = atol(argv[2]);
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	mark();
	for (long i = 0; i < na; i++)
		a();
	mark();
	int block = argc == 4 && argv[3][0] == 'b';
	if (argc == 4 && !block)
		abort(); /* killed by SIGABRT in main, after the second mark() */
	if (block)
		ZOND_BEGIN("bs");
	for (long i = 0; i < nb; i++)
		b();
	if (block)
		ZOND_END("bs");
	mark();
	printf("a %ld b %ld leaf %ld mark %ld w %ld getppid %ld\n", n_a, n_b, n_leaf, n_mark, n_w,
	       n_getppid);
	return 0;
}
