/* ZOND_TRIGGER=target: only target() and what it calls are recorded. */
#include <stdio.h>

void target(void);

static void c(void)
{
}

static void b(int deeper)
{
	if (deeper)
		c();
}

static void a(void)
{
	b(0);
}

void target(void)
{
	b(1);
}

int main(void)
{
	a();
	target();
	a();
	target();
	puts("done");
	return 0;
}
