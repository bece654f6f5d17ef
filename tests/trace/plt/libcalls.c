/* libcalls.c - a dynamic program calling libc through its PLT a known number of times
 * (plt.sh): getppid 5, puts 3, snprintf 4; main is not recursive, so its inclusive cost
 * is its self cost plus what each of its calls cost, exactly.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	long s = 0;
	char buf[32];
	for (int i = 0; i < 5; i++)
		s += getppid();
	for (int i = 0; i < 3; i++)
		puts("x");
	for (int i = 0; i < 4; i++)
		s += snprintf(buf, sizeof buf, "%d", i);
	return s == -1;
}
