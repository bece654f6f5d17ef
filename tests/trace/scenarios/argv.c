/* argv.c - prints its argv[0], AT_EXECFN and arguments. */
#include <stdio.h>
#include <sys/auxv.h>

int main(int argc, char **argv)
{
	printf("argv0=%s execfn=%s\n", argv[0], (const char *)getauxval(AT_EXECFN));
	for (int i = 1; i < argc; i++)
		printf("arg=%s\n", argv[i]);
	return argc;
}
