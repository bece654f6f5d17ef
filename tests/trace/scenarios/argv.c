/*
 * argv.c - prints its argv[0], AT_EXECFN, its parent-death signal (a tool
 * running it must not set one: the program would see it) and arguments.
 */
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
	int pdeath = -1;
	prctl(PR_GET_PDEATHSIG, &pdeath);
	printf("argv0=%s execfn=%s pdeathsig=%d\n", argv[0], (const char *)getauxval(AT_EXECFN),
	       pdeath);
	for (int i = 1; i < argc; i++)
		printf("arg=%s\n", argv[i]);
	return argc;
}
