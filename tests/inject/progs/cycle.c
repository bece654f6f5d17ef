/*
 * cycle.c - a control loop for zond inject's cyclic scenario: each pass
 * calls tick() (the safe point) once, then one() once, two() twice,
 * three() three times and four() four times; it counts its passes itself.
 *
 * argv[1]: passes to make (0: until SIGTERM); argv[2]:
 *   "never": tick() is never called;
 *   "swaps": after argv[1] passes, go on until two set swaps were seen, so
 *     that each set measured whole passes whatever the machine's load.
 *
 * A swap is seen without zond's word: which of the four functions' first
 * bytes, read after tick() (where the cyclic scenario swaps), differ from
 * the executable file's (zond's jumps) changes from one set to another
 * (zond starting or detaching is no swap).  The first two are printed
 * ("swap N seen at pass P"), after "ready PID"; the count of passes at the
 * end.  Without zond, no swap is ever seen.
 */
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static volatile unsigned long sink;

__attribute__((noinline)) void tick(void)
{
	sink++;
}

__attribute__((noinline)) void one(void)
{
	sink += 1;
}

__attribute__((noinline)) void two(void)
{
	sink += 2;
}

__attribute__((noinline)) void three(void)
{
	sink += 3;
}

__attribute__((noinline)) void four(void)
{
	sink += 4;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Enough of a function's start to hold zond's jump, wherever it is written. */
enum { ENTRY_BYTES = 16 };

struct file_offset {
	uintptr_t addr;
	long off; /* -1: not found */
};

static int find_offset(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct file_offset *f = arg;
	(void)size;
	if (info->dlpi_name[0])
		return 0; /* a library: the program is the one with no name */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && f->addr >= lo && f->addr < lo + ph->p_filesz)
			f->off = (long)(f->addr - lo + ph->p_offset);
	}
	return 1;
}

/* Which of fns (n) differ from the executable file at their start: a bit each. */
static unsigned patched_mask(void (*const *fns)(void), int n, FILE *exe)
{
	unsigned mask = 0;
	for (int i = 0; i < n; i++) {
		struct file_offset f = {(uintptr_t)(void *)fns[i], -1};
		unsigned char disk[ENTRY_BYTES];
		const volatile unsigned char *code = (const volatile unsigned char *)f.addr;
		dl_iterate_phdr(find_offset, &f);
		if (f.off < 0 || fseek(exe, f.off, SEEK_SET) != 0 ||
		    fread(disk, 1, sizeof disk, exe) != sizeof disk)
			continue;
		for (int j = 0; j < ENTRY_BYTES; j++)
			if (code[j] != disk[j])
				mask |= 1u << i;
	}
	return mask;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 0, done = 0, swaps = 0;
	const char *mode = argc > 2 ? argv[2] : "";
	int with_tick = strcmp(mode, "never") != 0, until_swaps = strcmp(mode, "swaps") == 0;
	void (*const fns[])(void) = {one, two, three, four};
	FILE *exe = fopen("/proc/self/exe", "rb");
	unsigned patched = 0;
	signal(SIGTERM, on_term);
	fprintf(stderr, "ready %d\n", (int)getpid());
	while (!stop && (passes == 0 || done < passes || (until_swaps && swaps < 2))) {
		if (with_tick)
			tick();
		unsigned now = exe ? patched_mask(fns, 4, exe) : 0;
		if (now != patched && now && patched && ++swaps <= 2)
			fprintf(stderr, "swap %ld seen at pass %ld\n", swaps, done + 1);
		patched = now;
		one();
		for (int i = 0; i < 2; i++)
			two();
		for (int i = 0; i < 3; i++)
			three();
		for (int i = 0; i < 4; i++)
			four();
		done++;
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "passes %ld\n", done);
	if (exe)
		fclose(exe);
	return 0;
}
