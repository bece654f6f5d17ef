/*
 * repcond.c - x86-64: calls repcond.S's functions 10 times each; copy()
 * writes into a page that is PROT_NONE at each call, so that its rep movsb
 * faults part way and the SIGSEGV handler makes the page writable and
 * returns into it (repcond.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

long scan(const char *buf, long len);
long same(const char *a, const char *b, long len);
long differ(const char *a, const char *b, long len);
void copy(char *to, const char *from, long len);

static char a[201], b[201], from[8192];
static char *page;
static volatile int faults;

static void fixup(int sig)
{
	(void)sig;
	faults++;
	mprotect(page + 4096, 4096, PROT_READ | PROT_WRITE);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fixup;
	sigaction(SIGSEGV, &sa, 0);
	page = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(a, 'x', sizeof a);
	memset(b, 'x', sizeof b);
	a[9] = 'z';
	long r = 0;
	for (int i = 0; i < 10; i++)
		r += scan(a, 100); /* 10 iterations: the 10th finds 'z' */
	a[9] = 'x';
	for (int i = 0; i < 10; i++)
		r += same(a, b, 201); /* 201 iterations, then the count at 0 */
	b[99] = 'y';
	for (int i = 0; i < 10; i++)
		r += differ(a, b, 201); /* 100 iterations: the 100th differs */
	for (int i = 0; i < 10; i++) {
		mprotect(page + 4096, 4096, PROT_NONE);
		copy(page, from, 8192); /* faults at byte 4096 */
	}
	printf("%ld %d\n", r, faults);
	return 0;
}
