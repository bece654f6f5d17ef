/*
 * redirect.c - the redirector pool: executable code made once per chunk,
 * never written again (W^X), each slot paired with a struct za_target in a
 * writable page next to it.
 *
 * A chunk is one mapping: CHUNK_SLOTS code slots of SLOT_BYTES, then the
 * targets.  Slot i loads the address of target i (position-relative, so the
 * code of every slot is fixed when the chunk is made) and jumps through its
 * first field, the wrapper.  The code is written while the mapping is
 * read-write, then the code part is made read-execute before any slot is
 * handed out; binding a new function only fills a target.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "audit.h"

#include "../linux/linux.h"

enum { CHUNK_SLOTS = 2048, SLOT_BYTES = 16 };

#define CODE_BYTES (CHUNK_SLOTS * SLOT_BYTES)
#define CHUNK_BYTES (CODE_BYTES + CHUNK_SLOTS * sizeof(struct za_target))

_Static_assert(CODE_BYTES % 4096 == 0, "code part of a chunk is whole pages");

struct chunk {
	uint8_t *code;
	struct za_target *targets;
	uint32_t used;
};

static struct chunk current;
static uint32_t pool_lock;
static uint32_t n_targets;

_Static_assert(offsetof(struct za_target, real) == 8, "wrapper.S: TARGET_REAL");
_Static_assert(offsetof(struct za_target, fast) == 40, "wrapper.S: TARGET_FAST");
_Static_assert(sizeof(struct za_fast) == 64, "wrapper.S: a fast entry is 64 bytes");

#if defined(__x86_64__)
/* endbr64; lea target(%rip), %r11; jmp *(%r11); int3 padding */
static void write_slot(uint8_t *slot, const struct za_target *target)
{
	static const uint8_t head[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x4c, 0x8d, 0x1d};
	memcpy(slot, head, sizeof head);
	int32_t disp = (int32_t)((const uint8_t *)target - (slot + 11));
	memcpy(slot + 7, &disp, 4);
	static const uint8_t tail[] = {0x41, 0xff, 0x23, 0xcc, 0xcc};
	memcpy(slot + 11, tail, sizeof tail);
}
#elif defined(__aarch64__)
/* adr x17, target; ldr x16, [x17]; br x16; brk #0 */
static void write_slot(uint8_t *slot, const struct za_target *target)
{
	int64_t off = (const uint8_t *)target - slot;
	uint32_t code[4] = {
		0x10000000u | (uint32_t)(off & 3) << 29 | (uint32_t)((off >> 2) & 0x7ffff) << 5 | 17,
		0xf9400230u,
		0xd61f0200u,
		0xd4200000u,
	};
	memcpy(slot, code, sizeof code);
}
#endif

_Static_assert(CHUNK_BYTES < (1u << 20), "aarch64 adr reaches every target of a chunk");

static int new_chunk(void)
{
	if (zl_sealed) /* no system call of zond's under seccomp (linux.h) */
		return -1;
	uint8_t *map = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	if (map == MAP_FAILED)
		return -1;
	struct za_target *targets = (struct za_target *)(map + CODE_BYTES);
	for (uint32_t i = 0; i < CHUNK_SLOTS; i++)
		write_slot(map + i * SLOT_BYTES, &targets[i]);
	__builtin___clear_cache((char *)map, (char *)map + CODE_BYTES);
	if (mprotect(map, CODE_BYTES, PROT_READ | PROT_EXEC) != 0) {
		munmap(map, CHUNK_BYTES);
		return -1;
	}
	current = (struct chunk){.code = map, .targets = targets};
	return 0;
}

struct za_target *za_new_target(uint64_t *redirector)
{
	while (__atomic_exchange_n(&pool_lock, 1, __ATOMIC_ACQUIRE))
		;
	struct za_target *t = NULL;
	if ((current.code && current.used < CHUNK_SLOTS) || new_chunk() == 0) {
		*redirector = (uintptr_t)(current.code + current.used * SLOT_BYTES);
		t = &current.targets[current.used++];
		t->fast = n_targets < ZA_MAX_FAST ? n_targets * sizeof(struct za_fast) : ZA_NO_FAST;
		n_targets++;
	}
	__atomic_store_n(&pool_lock, 0, __ATOMIC_RELEASE);
	return t;
}
