/* files.c - a program that writes files of its own (files.sh): through semihosting to a
 * relative path, and to the virt board's 16550 UART (QEMU's -serial file:); then exits 5. */
#include <stdint.h>
#include <stdio.h>

#define UART ((volatile uint8_t *)0x10000000UL)

__attribute__((noinline)) static void uart_puts(const char *s)
{
	while (*s)
		*UART = (uint8_t)*s++;
}

__attribute__((noinline)) static int write_file(const char *name, int lines)
{
	FILE *f = fopen(name, "w");
	if (!f)
		return -1;
	for (int i = 0; i < lines; i++)
		fprintf(f, "line %d of %s\n", i, name);
	return fclose(f);
}

int main(void)
{
	uart_puts("hello from the uart\n");
	int rc = write_file("semi.txt", 3);
	printf("semi.txt written: %d\n", rc);
	return 5;
}
