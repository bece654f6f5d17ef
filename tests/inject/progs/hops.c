/*
 * hops.c - calls a memcpy/mempcpy pair shaped like glibc's (hops_pair.S):
 * that_memcpy N_MEMCPY times and that_mempcpy N_MEMPCPY times (its jump
 * into that_memcpy is no call of it), prints what they copied and
 * returned, then "count NAME N" per function; exit status 3.
 *
 * With the argument "wait": prints "ready" on stderr once a thread calls
 * the pair over and over, until a line on stdin; then a fixed final pass
 * (printed), and whether the code of the pair, and the fill between, is
 * the bytes it was at the start (zond inject -p puts back at detach what
 * it wrote there); the counts go to stderr.
 *
 * With the argument "libc": the same with the C library's memcpy and
 * mempcpy (glibc's __mempcpy_* jump into __memcpy_*+3, as that_mempcpy
 * does), each called from a function of its own (copy_memcpy,
 * copy_mempcpy) and nothing else.
 */
#define _GNU_SOURCE /* mempcpy */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N_MEMCPY  700
#define N_MEMPCPY 300
#define CODE_LEN  25 /* that_mempcpy's 16 bytes of code and fill, that_memcpy's 9 */

void *that_memcpy(void *dest, const void *src, size_t n);
void *that_mempcpy(void *dest, const void *src, size_t n);

static unsigned long n_memcpy, n_mempcpy;
static volatile int stop;

/* One pass: i-th calls copy i % 32 + 1 bytes; the sum of what was copied, -1 when a return is wrong. */
static long pass(long memcpys, long mempcpys)
{
	static const char src[] = "the quick brown fox jumps over the lazy dog";
	char dst[64];
	long sum = 0;
	for (long i = 0; i < memcpys + mempcpys; i++) {
		size_t n = (size_t)(i % 32) + 1;
		memset(dst, 0, sizeof dst);
		int pcpy = i >= memcpys;
		char *ret = pcpy ? that_mempcpy(dst, src + i % 8, n) : that_memcpy(dst, src + i % 8, n);
		if (pcpy)
			n_mempcpy++;
		else
			n_memcpy++;
		if (ret != (pcpy ? dst + n : dst))
			return -1;
		for (size_t j = 0; j < n; j++)
			sum += dst[j] * (long)(j + 1);
	}
	return sum;
}

static void *spin(void *arg)
{
	(void)arg;
	while (!stop)
		pass(7, 3);
	return NULL;
}

static int wait_mode(void)
{
	uint8_t before[CODE_LEN];
	const uint8_t *code = (const uint8_t *)(uintptr_t)that_mempcpy;
	memcpy(before, code, CODE_LEN);
	pthread_t t;
	pthread_create(&t, NULL, spin, NULL);
	fprintf(stderr, "ready\n");
	char line[16];
	if (!fgets(line, sizeof line, stdin))
		return 1;
	stop = 1;
	pthread_join(t, NULL);
	printf("final pass: %ld\n", pass(70, 30));
	printf("code of the pair %s\n",
	       memcmp(before, code, CODE_LEN) == 0 ? "as at the start" : "CHANGED");
	fprintf(stderr, "count that_memcpy %lu\ncount that_mempcpy %lu\n", n_memcpy, n_mempcpy);
	return 3;
}

/* Through pointers: the compiler's own copies would call neither. */
static void *(*volatile libc_memcpy)(void *, const void *, size_t) = memcpy;
static void *(*volatile libc_mempcpy)(void *, const void *, size_t) = mempcpy;

/* n calls of memcpy (mempcpy): the bytes copied, summed with weights. */
__attribute__((noinline)) long copy_memcpy(long n)
{
	char src[64], dst[64];
	long sum = 0;
	for (long i = 0; i < n; i++) {
		for (int j = 0; j < 64; j++)
			src[j] = (char)(i + j);
		sum += (char *)libc_memcpy(dst, src, (size_t)(i % 64) + 1) == dst ? dst[i % 64] : -1000;
	}
	return sum;
}

__attribute__((noinline)) long copy_mempcpy(long n)
{
	char src[64], dst[64];
	long sum = 0;
	for (long i = 0; i < n; i++) {
		for (int j = 0; j < 64; j++)
			src[j] = (char)(i - j);
		size_t len = (size_t)(i % 64) + 1;
		sum += (char *)libc_mempcpy(dst, src, len) == dst + len ? dst[i % 64] : -1000;
	}
	return sum;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "wait") == 0)
		return wait_mode();
	if (argc > 1 && strcmp(argv[1], "libc") == 0) {
		long a = copy_memcpy(N_MEMCPY), b = copy_mempcpy(N_MEMPCPY);
		printf("memcpy: %ld\nmempcpy: %ld\n", a, b);
		return 3;
	}
	printf("copied: %ld\n", pass(N_MEMCPY, N_MEMPCPY));
	printf("count that_memcpy %lu\ncount that_mempcpy %lu\n", n_memcpy, n_mempcpy);
	return 3;
}
