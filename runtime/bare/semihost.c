/*
 * semihost.c - the RISC-V semihosting calls the port needs (open, write,
 * close), made directly: the program's own libc may have none.
 */
#include "bare.h"

enum { SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITE = 0x05 };
enum { MODE_WB = 5 }; /* fopen "wb" */

/*
 * The semihosting trap: ebreak between two marker instructions, all three
 * uncompressed and in one page, as the RISC-V semihosting spec requires.
 */
__attribute__((noinline)) static long semihost(long op, void *args)
{
	register long a0 __asm__("a0") = op;
	register void *a1 __asm__("a1") = args;
	__asm__ volatile(".option push\n"
			 ".option norvc\n"
			 ".balign 16\n"
			 "slli zero, zero, 0x1f\n"
			 "ebreak\n"
			 "srai zero, zero, 7\n"
			 ".option pop\n"
			 : "+r"(a0)
			 : "r"(a1)
			 : "memory");
	return a0;
}

static unsigned long length(const char *s)
{
	unsigned long n = 0;
	while (s[n])
		n++;
	return n;
}

/*
 * Not const: zond record rewrites it in its copy of the ELF (tool/cmd/bare.c
 * finds it by this name), and the compiler must read what is loaded.  In
 * .data even when empty (all zeros would go to .bss, which has no bytes in
 * the file to patch).
 */
__attribute__((section(".data.zond_bare_file"))) char zond_bare_file[ZOND_BARE_FILE_MAX] =
	ZOND_BARE_FILE;

int zb_write_out(const void *data, uint64_t bytes)
{
	const char *name = zond_bare_file;
	if (!name[0])
		return 0;
	long open_args[3] = {(long)name, MODE_WB, (long)length(name)};
	long fd = semihost(SYS_OPEN, open_args);
	if (fd < 0)
		return -1;
	long write_args[3] = {fd, (long)data, (long)bytes};
	long left = semihost(SYS_WRITE, write_args);
	long close_args[1] = {fd};
	long closed = semihost(SYS_CLOSE, close_args);
	return left == 0 && closed == 0 ? 0 : -1;
}
