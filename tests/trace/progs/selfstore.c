/*
 * selfstore.c - x86-64: generated code that stores into its own page
 * (selfstore.sh).  Page 0: a JIT's counter beside its code (incl
 * 0x800(%rip); mov $1,%eax; add $2,%eax; ret), called 100 times.  Page 1:
 * self-modifying code (mov $1,%eax; movb $2 into that mov's immediate;
 * ret), called 10 times.  Prints both pages' addresses.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef int (*jit_fn)(void);

static const unsigned char counter[] = {
	0xff, 0x05, 0xfa, 0x07, 0x00, 0x00, /* incl 0x800(%rip) */
	0xb8, 0x01, 0x00, 0x00, 0x00,       /* mov $1,%eax */
	0x83, 0xc0, 0x02,                   /* add $2,%eax */
	0xc3,                               /* ret */
};
static const unsigned char smc[] = {
	0xb8, 0x01, 0x00, 0x00, 0x00,             /* mov $1,%eax */
	0xc6, 0x05, 0xf5, 0xff, 0xff, 0xff, 0x02, /* movb $2,-11(%rip): the mov's immediate */
	0xc3,                                     /* ret */
};

int main(void)
{
	unsigned char *p = mmap(0, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, counter, sizeof counter);
	memcpy(p + 4096, smc, sizeof smc);
	long s = 0;
	for (int i = 0; i < 100; i++)
		s += ((jit_fn)p)();
	for (int i = 0; i < 10; i++)
		s += ((jit_fn)(p + 4096))();
	printf("%lx %lx %ld %d\n", (unsigned long)p, (unsigned long)p + 4096, s, *(int *)(p + 0x800));
	return 0;
}
