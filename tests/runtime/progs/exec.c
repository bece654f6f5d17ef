/* exec: each process image leaves its own raw file; the first ends inside do_exec. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void first(void)
{
}

static void second(void)
{
}

static void do_exec(const char *self)
{
	fflush(stdout);
	execl(self, self, "again", (char *)NULL);
	perror("execl");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "again") == 0) {
		second();
		puts("second image");
		return 0;
	}
	first();
	puts("first image");
	do_exec("/proc/self/exe");
	return 1;
}
