/*
 * switching.c - a coroutine on a stack of its own calls qsort (a library
 * call); its comparator suspends it with switch_to, a stack switch that is
 * itself a library call (switchlib.S); main makes other library calls, then
 * resumes it, and qsort goes on.  Under zond libcalls, calls wait to return
 * on two stacks at once: the program must run as plainly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void switch_to(void **save, void *to);

static void *main_sp, *co_sp;
static long compared;
static int done;
static int v[16];

static int compare(const void *a, const void *b)
{
	compared++;
	switch_to(&co_sp, main_sp); /* suspended inside qsort */
	return *(const int *)a - *(const int *)b;
}

static void coroutine(void)
{
	qsort(v, 16, sizeof v[0], compare);
	done = 1;
	switch_to(&co_sp, main_sp);
	abort(); /* never resumed again */
}

int main(void)
{
	size_t size = 256 * 1024;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return 1;
	void **sp = (void **)(stack + size);
	*--sp = 0;                  /* alignment */
	*--sp = (void *)coroutine;  /* the first switch "returns" into it */
	for (int i = 0; i < 6; i++) /* r15 r14 r13 r12 rbx rbp */
		*--sp = 0;
	co_sp = sp;
	for (int i = 0; i < 16; i++)
		v[i] = (i * 7) % 16;
	int resumes = 0;
	char buf[64];
	while (!done) {
		switch_to(&main_sp, co_sp);
		resumes++;
		snprintf(buf, sizeof buf, "%d", resumes); /* library calls on main's stack */
		if (strlen(buf) > 10)
			abort();
	}
	for (int i = 0; i < 16; i++)
		printf("%d ", v[i]);
	printf("\nresumes=%d compared=%ld\n", resumes, compared);
	return 0;
}
