/* exec.c - calls leaf() 100 times, then becomes `/bin/sh -c "exit 6"` (the host's shell). */
#include <stdio.h>
#include <unistd.h>

__attribute__((noipa)) int leaf(int i) { return i + 1; }

int main(void)
{
	int s = 0;
	for (int i = 0; i < 100; i++)
		s += leaf(i);
	printf("%d\n", s);
	fflush(stdout);
	execl("/bin/sh", "sh", "-c", "exit 6", (char *)NULL);
	return 1;
}
