/* stdinlines.c - counts the lines of its standard input: line() is called once per line, and
   prints the count (for stdin.sh: each rerun of a campaign must see the whole input). */
#include <stdio.h>

static long n_line;

__attribute__((noinline)) void line(const char *s)
{
	n_line++;
	__asm__ volatile("" ::"r"(s));
}

__attribute__((noinline)) void finish(void)
{
	printf("%ld lines\n", n_line);
}

int main(void)
{
	char buf[256];
	while (fgets(buf, sizeof buf, stdin))
		line(buf);
	finish();
	return 0;
}
