/*
 * relocate.c - x86-64 entries for zond inject: where a 5-byte `jmp rel32`
 * can go, and the overwritten instructions re-encoded to run elsewhere.
 *
 * Decoding is Zydis's (as in tool/trace/isa/x86_64.c); the re-encoding is
 * done on the raw bytes, since only displacements and branch forms change:
 *
 *   endbr64 at the entry            kept in place; the jump goes after it
 *   rip-relative memory operand     the same bytes, disp32 re-targeted
 *   jmp rel8/rel32                  jmp rel32 (jmp [rip]; .quad when too far)
 *   jcc rel8/rel32                  jcc rel32 (inverted jcc over jmp [rip] when too far)
 *   jrcxz, loop*  rel8              the same rel8 over a short jmp to jmp rel32
 *   call rel32, call r/m            push the return address; jmp to the target
 *
 * A call's pushed return address is the original next instruction when
 * that lies after the overwritten bytes (always, for a 5-byte call that
 * ends the patch), else the next instruction of the copy.  A body that
 * jumps into the overwritten bytes (scanned over the whole function) past
 * a first instruction of 2 bytes or more gets a hop (arch.h): a jmp rel8
 * over that instruction to a jmp rel32 in alignment fill nearby.  Refused:
 * a body that jumps into the first instruction, a loop back to the patched
 * entry, a function shorter than the jump (unless alignment fill after it
 * makes room: the fallback), xbegin, a call through memory addressed by
 * rsp, bytes that do not decode.
 */
#ifdef ZOND_HAVE_ZYDIS
#include <Zydis/Zydis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../arch.h"

#define JUMP_LEN  5
#define HOP_LEN   2   /* jmp rel8 */
#define HOP_REACH 128 /* rel8: -128..127 from the hop's end */

static int decode(const uint8_t *b, size_t n, ZydisDecodedInstruction *in, ZydisDecodedOperand *ops)
{
	static ZydisDecoder d;
	static int ready;
	if (!ready) {
		if (!ZYAN_SUCCESS(
			    ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
			return -1;
		ready = 1;
	}
	if (ops)
		return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, b, n, in, ops)) ? 0 : -1;
	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d, NULL, b, n, in)) ? 0 : -1;
}

static int is_endbr64(const uint8_t *b, size_t n)
{
	return n >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa;
}

/* Target of a relative branch at pc, or 0 when in is not one. */
static int relative_target(const ZydisDecodedInstruction *in, uint64_t pc, uint64_t *target)
{
	for (int i = 0; i < 2; i++)
		if (in->raw.imm[i].is_relative) {
			*target = pc + in->length + (uint64_t)in->raw.imm[i].value.s;
			return 1;
		}
	return 0;
}

/*
 * Scans the whole function for direct branches into the patched bytes
 * [lo, hi): a jump to lo itself (a loop back to the entry) would run the
 * entry payload again; one past lo lands in the middle of the jump.
 * 1 (why set) for such a branch before `hop`, the end of the first
 * instruction; else 2 (why set for the first) when some land at or past
 * it, where the hop leaves the code as it is; else 0.
 */
static int body_jumps_in(const uint8_t *code, size_t size, uint64_t addr, uint64_t lo, uint64_t hi,
			 uint64_t hop, int point, char *why)
{
	int past = 0;
	for (size_t off = 0; off < size;) {
		ZydisDecodedInstruction in;
		if (decode(code + off, size - off, &in, NULL) < 0) {
			off++; /* data or fill: resynchronise on the next byte */
			continue;
		}
		uint64_t t;
		if (relative_target(&in, addr + off, &t) && t >= lo && t < hi &&
		    !(t == lo && (point || in.mnemonic == ZYDIS_MNEMONIC_CALL))) {
			if (t < hop) {
				inject_why_jumps_in(why, off, addr, t, lo, hi);
				return 1;
			}
			if (!past)
				inject_why_jumps_in(why, off, addr, t, lo, hi);
			past = 1;
		}
		off += in.length;
	}
	return past ? 2 : 0;
}

static void branches(const uint8_t *code, size_t size, uint64_t addr,
		     void (*fn)(void *arg, uint64_t target), void *arg)
{
	for (size_t off = 0; off < size;) {
		ZydisDecodedInstruction in;
		if (decode(code + off, size - off, &in, NULL) < 0) {
			off++;
			continue;
		}
		uint64_t t;
		if (relative_target(&in, addr + off, &t))
			fn(arg, t);
		off += in.length;
	}
}

static int plan(const uint8_t *code, size_t size, size_t padding, uint64_t addr, size_t offset,
		struct inject_site *site, char *why)
{
	memset(site, 0, sizeof *site);
	site->addr = addr + offset;
	site->keep = is_endbr64(code + offset, size - offset) ? 4 : 0;
	size_t avail = size + padding, off = offset + site->keep;
	if (size < off + JUMP_LEN && avail < off + JUMP_LEN) {
		snprintf(why, INJECT_WHY, "too short: %zu bytes%s, the jump needs %u",
			 size - offset, site->keep ? " with endbr64" : "", site->keep + JUMP_LEN);
		return 1;
	}
	for (size_t at = 0; at < offset;) { /* a point must start an instruction */
		ZydisDecodedInstruction in;
		if (decode(code + at, size - at, &in, NULL) < 0 ||
		    (at + in.length > offset && at + in.length != offset)) {
			snprintf(why, INJECT_WHY, "+%zu is not the start of an instruction",
				 offset);
			return 1;
		}
		at += in.length;
	}
	size_t first = off;
	while (off < first + JUMP_LEN) {
		ZydisDecodedInstruction in;
		if (site->ninsn == INJECT_SITE_INSNS ||
		    decode(code + off, avail - off, &in, NULL) < 0) {
			snprintf(why, INJECT_WHY, "bytes at +%zu do not decode", off);
			return 1;
		}
		if (in.mnemonic == ZYDIS_MNEMONIC_XBEGIN) {
			snprintf(why, INJECT_WHY, "xbegin at +%zu (its abort target)", off);
			return 1;
		}
		site->map_from[site->ninsn++] = (uint32_t)(off - first);
		off += in.length;
	}
	site->len = (uint32_t)(off - first);
	if (off > size)
		site->padding = (uint32_t)(off - size);
	uint64_t lo = addr + first, hi = lo + site->len;
	/* a hop only at a function's entry: a region's point is refused as before */
	uint64_t hop = offset == 0 && site->ninsn > 1 ? lo + site->map_from[1] : hi;
	int in = body_jumps_in(code, size, addr, lo, hi, hop, offset != 0, why);
	return in == 2 ? inject_site_to_hop(site, HOP_LEN) < 0 : in;
}

/* ---- re-encoding ------------------------------------------------------- */

struct out {
	uint8_t *b;
	size_t n, cap;
	uint64_t at; /* address of b[0] */
	int full;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->full = 1;
		return;
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put8(struct out *o, uint8_t v)
{
	put(o, &v, 1);
}
static void put32(struct out *o, uint32_t v)
{
	put(o, &v, 4);
}
static void put64(struct out *o, uint64_t v)
{
	put(o, &v, 8);
}

static int fits32(int64_t d)
{
	return d >= INT32_MIN && d <= INT32_MAX;
}

/* rel32 from the end of an instruction of len bytes written next, to target. */
static int64_t rel_from_here(const struct out *o, size_t len, uint64_t target)
{
	return (int64_t)(target - (o->at + o->n + len));
}

/* jmp to target: rel32 when it reaches, else jmp [rip+0]; .quad target. */
static void put_jmp(struct out *o, uint64_t target)
{
	int64_t d = rel_from_here(o, 5, target);
	if (fits32(d)) {
		put8(o, 0xe9);
		put32(o, (uint32_t)d);
		return;
	}
	const uint8_t abs[] = {0xff, 0x25, 0, 0, 0, 0};
	put(o, abs, sizeof abs);
	put64(o, target);
}

/* push imm64 without touching a register or the flags: push imm32; mov [rsp+4], hi. */
static void put_push64(struct out *o, uint64_t v)
{
	put8(o, 0x68);
	put32(o, (uint32_t)v);
	const uint8_t hi[] = {0xc7, 0x44, 0x24, 0x04};
	put(o, hi, sizeof hi);
	put32(o, (uint32_t)(v >> 32));
}

/* The instruction's own bytes with its rip-relative disp32 re-targeted. */
static int put_moved(struct out *o, const uint8_t *b, const ZydisDecodedInstruction *in,
		     uint64_t pc, char *why)
{
	uint8_t buf[ZYDIS_MAX_INSTRUCTION_LENGTH];
	memcpy(buf, b, in->length);
	if (in->raw.disp.size == 32 && (in->attributes & ZYDIS_ATTRIB_IS_RELATIVE)) {
		uint64_t target = pc + in->length + (uint64_t)in->raw.disp.value;
		int64_t d = rel_from_here(o, in->length, target);
		if (!fits32(d)) {
			snprintf(why, INJECT_WHY,
				 "a rip-relative operand out of reach of the copy");
			return -1;
		}
		int32_t d32 = (int32_t)d;
		memcpy(buf + in->raw.disp.offset, &d32, 4);
	}
	put(o, buf, in->length);
	return 0;
}

/* Condition code of jcc: low nibble of 7x (rel8) or 0F 8x (rel32). */
static int jcc_code(const uint8_t *b, const ZydisDecodedInstruction *in)
{
	const uint8_t *op = b + in->raw.prefix_count;
	return op[0] == 0x0f ? op[1] & 0xf : op[0] & 0xf;
}

static void put_jcc(struct out *o, int cc, uint64_t target)
{
	int64_t d = rel_from_here(o, 6, target);
	if (fits32(d)) {
		put8(o, 0x0f);
		put8(o, (uint8_t)(0x80 | cc));
		put32(o, (uint32_t)d);
		return;
	}
	put8(o, (uint8_t)(0x70 | (cc ^ 1))); /* not taken: skip the far jump */
	put8(o, 14);
	const uint8_t abs[] = {0xff, 0x25, 0, 0, 0, 0};
	put(o, abs, sizeof abs);
	put64(o, target);
}

/* jrcxz/loop rel8: the original opcode jumping 2 ahead, a short jmp over, then jmp target. */
static void put_rcx_branch(struct out *o, const uint8_t *b, const ZydisDecodedInstruction *in,
			   uint64_t target)
{
	put(o, b, (size_t)in->length - 1); /* prefixes (addr32) and opcode */
	put8(o, 2);
	put8(o, 0xeb);
	size_t skip_at = o->n;
	put8(o, 0);
	size_t from = o->n;
	put_jmp(o, target);
	if (!o->full)
		o->b[skip_at] = (uint8_t)(o->n - from);
}

static int put_call(struct out *o, const uint8_t *b, const ZydisDecodedInstruction *in,
		    const ZydisDecodedOperand *ops, uint64_t pc, uint64_t ret, char *why)
{
	uint64_t target;
	if (relative_target(in, pc, &target)) {
		put_push64(o, ret);
		put_jmp(o, target);
		return 0;
	}
	const ZydisDecodedOperand *op = &ops[0];
	if (op->type == ZYDIS_OPERAND_TYPE_POINTER || in->raw.modrm.reg != 2) {
		snprintf(why, INJECT_WHY, "a far call in the entry");
		return -1;
	}
	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    (op->mem.base == ZYDIS_REGISTER_RSP || op->mem.index == ZYDIS_REGISTER_RSP)) {
		snprintf(why, INJECT_WHY, "a call through memory addressed by rsp in the entry");
		return -1;
	}
	put_push64(o, ret);
	/* ff /2 (call r/m) becomes ff /4 (jmp r/m): the same operand bytes. */
	uint8_t buf[ZYDIS_MAX_INSTRUCTION_LENGTH];
	memcpy(buf, b, in->length);
	buf[in->raw.modrm.offset] = (uint8_t)((buf[in->raw.modrm.offset] & ~0x38) | (4 << 3));
	ZydisDecodedInstruction jmp = *in;
	return put_moved(o, buf, &jmp, pc, why);
}

/* Never falls through to the next instruction. */
static int ends_flow(const ZydisDecodedInstruction *in)
{
	return in->mnemonic == ZYDIS_MNEMONIC_JMP || in->mnemonic == ZYDIS_MNEMONIC_RET ||
	       in->mnemonic == ZYDIS_MNEMONIC_UD2 || in->mnemonic == ZYDIS_MNEMONIC_HLT;
}

static int relocate(struct inject_site *site, const uint8_t *code, uint64_t to, uint8_t *buf,
		    size_t cap, char *why)
{
	struct out o = {buf, 0, cap, to, 0};
	uint64_t base = site->addr + site->keep, end = base + site->len;
	const uint8_t *b = code + site->keep;
	int falls = 1;
	for (uint32_t i = 0; i < site->ninsn; i++) {
		uint32_t off = site->map_from[i];
		uint64_t pc = base + off, target;
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		if (decode(b + off, site->len - off, &in, ops) < 0)
			return snprintf(why, INJECT_WHY, "bytes at +%u do not decode", off), -1;
		site->map_to[i] = (uint32_t)o.n;
		int rc = 0;
		if (in.mnemonic == ZYDIS_MNEMONIC_CALL) {
			uint64_t next = pc + in.length;
			/* returning into overwritten bytes: return into the copy instead */
			uint64_t ret = next >= end ? next : 0;
			if (!ret) {
				struct out probe = o;
				uint8_t scratch[64];
				probe.b = scratch, probe.n = 0, probe.cap = sizeof scratch;
				probe.at = o.at + o.n;
				put_call(&probe, b + off, &in, ops, pc, 0, why);
				ret = o.at + o.n + probe.n;
			}
			if (put_call(&o, b + off, &in, ops, pc, ret, why) < 0)
				return -1;
			falls = next < end; /* the callee returns to the original code */
			if (!falls)
				break;
			continue;
		}
		if (relative_target(&in, pc, &target)) {
			if (in.mnemonic == ZYDIS_MNEMONIC_JMP)
				put_jmp(&o, target);
			else if (in.mnemonic == ZYDIS_MNEMONIC_JRCXZ ||
				 in.mnemonic == ZYDIS_MNEMONIC_JECXZ ||
				 in.mnemonic == ZYDIS_MNEMONIC_LOOP ||
				 in.mnemonic == ZYDIS_MNEMONIC_LOOPE ||
				 in.mnemonic == ZYDIS_MNEMONIC_LOOPNE)
				put_rcx_branch(&o, b + off, &in, target);
			else if (in.meta.category == ZYDIS_CATEGORY_COND_BR)
				put_jcc(&o, jcc_code(b + off, &in), target);
			else
				return snprintf(why, INJECT_WHY, "a relative %s at +%u",
						ZydisMnemonicGetString(in.mnemonic), off),
				       -1;
		} else {
			rc = put_moved(&o, b + off, &in, pc, why);
		}
		if (rc < 0)
			return -1;
		falls = !ends_flow(&in);
	}
	if (falls)
		put_jmp(&o, end);
	if (o.full)
		return snprintf(why, INJECT_WHY, "relocated copy longer than %zu bytes", cap), -1;
	return (int)o.n;
}

static size_t fill(const uint8_t *b, size_t n)
{
	size_t off = 0;
	while (off < n) {
		ZydisDecodedInstruction in;
		if (b[off] == 0xcc || b[off] == 0x00) {
			off++;
			continue;
		}
		if (decode(b + off, n - off, &in, NULL) < 0 ||
		    (in.meta.category != ZYDIS_CATEGORY_NOP &&
		     in.meta.category != ZYDIS_CATEGORY_WIDENOP))
			break;
		off += in.length;
	}
	return off;
}

static size_t jump(uint64_t from, uint64_t to, uint8_t *b)
{
	int32_t d = (int32_t)(to - (from + JUMP_LEN));
	b[0] = 0xe9;
	memcpy(b + 1, &d, 4);
	return JUMP_LEN;
}

static size_t hop(uint64_t from, uint64_t to, uint8_t *b)
{
	int64_t d = (int64_t)(to - (from + HOP_LEN));
	if (d < INT8_MIN || d > INT8_MAX)
		return 0;
	b[0] = 0xeb;
	b[1] = (uint8_t)(int8_t)d;
	return HOP_LEN;
}

static int ends_flow_at_end(const uint8_t *code, size_t size)
{
	int ends = 0;
	for (size_t off = 0; off < size;) {
		ZydisDecodedInstruction in;
		if (decode(code + off, size - off, &in, NULL) < 0) {
			off++; /* as branches(): resynchronise */
			ends = 0;
			continue;
		}
		ends = ends_flow(&in);
		off += in.length;
	}
	return ends;
}

/* ---- a function that reads its own return address ---------------------- */

/* Whether op is a read of memory at [base + disp], no index. */
static int reads_at(const ZydisDecodedOperand *op, ZydisRegister base, int64_t disp)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	       (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) && op->mem.base == base &&
	       op->mem.index == ZYDIS_REGISTER_NONE && op->mem.disp.value == disp;
}

/* Whether in writes reg through an operand (explicit or implicit). */
static int writes_reg(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
		      ZydisRegister reg)
{
	for (unsigned i = 0; i < in->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[i].reg.value == reg &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return 1;
	return 0;
}

/* The signed immediate of `sub/add rsp, imm`, or 0 with *ok 0 for another form. */
static int64_t rsp_imm(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, int *ok)
{
	*ok = in->operand_count_visible == 2 && ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	      ops[0].reg.value == ZYDIS_REGISTER_RSP && ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
	return *ok ? ops[1].imm.value.s : 0;
}

/*
 * How in moves rsp, as the change of depth (the bytes between rsp and the
 * return address's slot); *known 0 when it sets rsp some other way (mov
 * rsp, rbp; and rsp, -16; leave): the depth is lost from there.
 */
static int64_t depth_change(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			    int *known)
{
	int ok;
	int64_t imm;
	*known = 1;
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHFQ:
		return 8;
	case ZYDIS_MNEMONIC_POP:
	case ZYDIS_MNEMONIC_POPFQ:
		return -8;
	case ZYDIS_MNEMONIC_CALL: /* the callee returns with rsp as it was */
		return 0;
	case ZYDIS_MNEMONIC_SUB:
	case ZYDIS_MNEMONIC_ADD:
		imm = rsp_imm(in, ops, &ok);
		if (ok)
			return in->mnemonic == ZYDIS_MNEMONIC_SUB ? imm : -imm;
		break;
	case ZYDIS_MNEMONIC_LEA:
		if (ops[0].reg.value == ZYDIS_REGISTER_RSP &&
		    ops[1].mem.base == ZYDIS_REGISTER_RSP && ops[1].mem.index == ZYDIS_REGISTER_NONE)
			return -ops[1].mem.disp.value;
		break;
	default:
		break;
	}
	*known = !writes_reg(in, ops, ZYDIS_REGISTER_RSP);
	return 0;
}

/* The reason, naming the read: "+OFF: pop" or "+OFF: mov from [rsp+0x1b8]". */
static void why_reads_return(char *why, size_t off, const ZydisDecodedInstruction *in,
			     const ZydisDecodedOperand *op)
{
	char at[40] = "";
	if (op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT)
		snprintf(at, sizeof at, " from [%s+0x%llx]",
			 op->mem.base == ZYDIS_REGISTER_RSP ? "rsp" : "rbp",
			 (unsigned long long)op->mem.disp.value);
	snprintf(why, INJECT_WHY,
		 "it reads its own return address (+%zu: %s%s), which a probe makes the "
		 "trampoline's",
		 off, ZydisMnemonicGetString(in->mnemonic), at);
}

/* A point of the walk from the entry: where, and what rsp and rbp hold there. */
struct ra_state {
	size_t off;
	int64_t depth; /* rsp + depth is the return address's slot */
	int64_t fp;    /* rbp + fp is, or -1 */
	int rsp_known; /* 0 once rsp was set some other way (and rsp, -16; mov rsp, rbp) */
};

#define RA_BRANCHES 64 /* branch targets waiting: beyond, the rest is not followed */

/* lock or $0, (%rsp) and kin: a memory barrier, whose read of the slot is no use of it. */
static int barrier_idiom(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
	return (in->mnemonic == ZYDIS_MNEMONIC_OR || in->mnemonic == ZYDIS_MNEMONIC_ADD ||
		in->mnemonic == ZYDIS_MNEMONIC_SUB || in->mnemonic == ZYDIS_MNEMONIC_XOR) &&
	       in->operand_count_visible == 2 && ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	       ops[1].imm.value.u == 0;
}

/* Whether in, at st, reads the return address's slot (why set). */
static int reads_slot(const struct ra_state *st, const ZydisDecodedInstruction *in,
		      const ZydisDecodedOperand *ops, char *why)
{
	if (barrier_idiom(in, ops))
		return 0;
	for (unsigned i = 0; i < in->operand_count; i++) {
		int explicit = ops[i].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT;
		if ((st->rsp_known && reads_at(&ops[i], ZYDIS_REGISTER_RSP, st->depth) &&
		     (explicit || in->mnemonic == ZYDIS_MNEMONIC_POP)) ||
		    (st->fp >= 0 && explicit && reads_at(&ops[i], ZYDIS_REGISTER_RBP, st->fp))) {
			why_reads_return(why, st->off, in, &ops[i]);
			return 1;
		}
	}
	return 0;
}

/* st after in: rsp's depth and rbp's frame moved on. */
static void ra_step(struct ra_state *st, const ZydisDecodedInstruction *in,
		    const ZydisDecodedOperand *ops)
{
	int known;
	int64_t d = depth_change(in, ops, &known);
	if (in->mnemonic == ZYDIS_MNEMONIC_MOV && st->rsp_known &&
	    ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[0].reg.value == ZYDIS_REGISTER_RBP &&
	    ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[1].reg.value == ZYDIS_REGISTER_RSP)
		st->fp = st->depth;
	else if (writes_reg(in, ops, ZYDIS_REGISTER_RBP))
		st->fp = -1;
	st->depth += d;
	st->rsp_known = st->rsp_known && known && st->depth >= 0;
}

/*
 * Follows the code from st (each byte once: seen) until a return, an
 * indirect or outside jump, a leave, or a state that knows neither rsp
 * nor rbp; a direct jump inside the function is followed, a conditional
 * branch's target put in todo.  1 (why set) at a read of the slot.
 */
static int ra_walk(const uint8_t *code, size_t size, struct ra_state st, uint8_t *seen,
		   struct ra_state *todo, size_t *ntodo, char *why)
{
	while (st.off < size && !seen[st.off] && (st.rsp_known || st.fp >= 0)) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		seen[st.off] = 1;
		if (decode(code + st.off, size - st.off, &in, ops) < 0 ||
		    in.mnemonic == ZYDIS_MNEMONIC_RET || in.mnemonic == ZYDIS_MNEMONIC_LEAVE ||
		    in.mnemonic == ZYDIS_MNEMONIC_ENTER)
			return 0;
		if (reads_slot(&st, &in, ops, why))
			return 1;
		uint64_t t = 0; /* offsets: the function taken at address 0 */
		int direct = relative_target(&in, st.off, &t) && t < size;
		if (in.mnemonic == ZYDIS_MNEMONIC_JMP) {
			if (!direct)
				return 0;
			st.off = (size_t)t;
			continue;
		}
		if (ends_flow(&in))
			return 0;
		ra_step(&st, &in, ops);
		if (direct && in.mnemonic != ZYDIS_MNEMONIC_CALL && *ntodo < RA_BRANCHES) {
			todo[*ntodo] = st;
			todo[(*ntodo)++].off = (size_t)t;
		}
		st.off += in.length;
	}
	return 0;
}

/*
 * Whether the function reads its own return address (__builtin_return_address(0),
 * glibc's RETURN_ADDRESS, libgcc's uw_init_context_1, glibc's mcount): a
 * read of [rsp + depth] (depth: the bytes pushed and subtracted since the
 * entry), of [rbp + depth] after a mov rbp, rsp at that depth (push rbp;
 * mov rbp, rsp: [rbp + 8]), or a pop at depth 0.  The code is followed
 * from the entry through its branches, each instruction once with the
 * first depth found (gcc keeps one depth per instruction), never past a
 * return: an epilogue's pops never make another block's locals look like
 * the slot.
 */
static int reads_return(const uint8_t *code, size_t size, char *why)
{
	uint8_t *seen = calloc(size + 1, 1);
	struct ra_state todo[RA_BRANCHES];
	size_t ntodo = 1;
	int found = 0;
	todo[0] = (struct ra_state){is_endbr64(code, size) ? 4 : 0, 0, -1, 1};
	while (seen && ntodo && !found)
		found = ra_walk(code, size, todo[--ntodo], seen, todo, &ntodo, why);
	free(seen);
	return found;
}

uint64_t inject_x86_64_exit_addr(uint64_t payload_at);
size_t inject_x86_64_payload(uint8_t *out, size_t cap, const struct inject_payload_args *a);
size_t inject_x86_64_stub(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id,
			  enum inject_probe kind);
int inject_x86_64_calibrate(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err);
int inject_x86_64_calibrate_region(uint64_t *c0, uint64_t *hz, struct zerr *err);
int inject_x86_64_calibrate_event(const struct inject_event *ev, uint64_t *c0, uint64_t *cpair,
				  uint64_t *hz, struct zerr *err);
int inject_x86_64_calibrate_fast(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err);

const struct inject_arch inject_arch_x86_64 = {
	.name = "x86_64",
	.jump_len = JUMP_LEN,
	.reloc_max = 256,
	.plan = plan,
	.relocate = relocate,
	.branches = branches,
	.fill = fill,
	.jump = jump,
	.hop_len = HOP_LEN,
	.hop_reach = HOP_REACH,
	.hop = hop,
	.ends_flow = ends_flow_at_end,
	.reads_return = reads_return,
	.payload = inject_x86_64_payload,
	.exit_addr = inject_x86_64_exit_addr,
	.stub_len = 22,
	.stub = inject_x86_64_stub,
	.calibrate = inject_x86_64_calibrate,
	.calibrate_region = inject_x86_64_calibrate_region,
	.calibrate_event = inject_x86_64_calibrate_event,
	.calibrate_fast = inject_x86_64_calibrate_fast,
	.counter = "tsc",
	.contexts = 1,
};
#else
typedef int zond_no_zydis; /* ISO C: a translation unit is not empty */
#endif
