/*
 * relocate.c - RISC-V entries for zond inject (RV32 and RV64 with the C
 * extension): where a 4-byte `jal x0` to the trampoline can go, and the
 * overwritten instructions re-encoded to run in the trampoline.
 *
 *   any instruction not below        the same bytes (compressed stays compressed)
 *   auipc rd, imm                    auipc rd, hi; addi rd, rd, lo: the same value
 *   jal rd / c.j / c.jal             jal rd to the same target (a call made there
 *                                    returns into the copy, which goes on)
 *   branch / c.beqz / c.bnez         the same branch re-targeted, or the inverted
 *                                    branch over a jal when too far for 13 bits
 *   jalr, c.jr, c.jalr               the same bytes (register targets)
 *
 * then a `jal x0` back to the first instruction after the overwritten ones,
 * unless the last one never falls through (j, ret, a tail jump).  The jump
 * at the entry and back is a `jal x0` (+-1 MiB): no register changes, so
 * every one the ABI gives the function (and GCC's -fipa-ra lets callers
 * keep) is intact; scratch RAM beyond its reach is refused with the reason.
 *
 * Refused, with the reason: a body that branches into the overwritten
 * bytes (every direct branch and jal of the function), a loop back to the
 * entry (a recursive call is fine), a function shorter than the jump
 * unless alignment fill after it makes room, bytes that do not decode,
 * functions not entered by a call with their return address in ra (trap
 * handlers, millicode returning through t0; see not_called()) and
 * epilogue fragments entered by a jump (GCC's __riscv_restore_N: they load
 * ra from the stack and never store it, their ret is their caller's).
 */
#include <stdio.h>
#include <string.h>

#include "../../arch.h"
#include "riscv.h"

#define JUMP_LEN 4
#define FAR_LEN  8 /* auipc t1, hi; jalr x0, lo(t1) */

/* The instruction at b (n bytes) or 0 with why set. */
static uint32_t decode_at(const uint8_t *b, size_t n, int xlen, size_t off, struct rv_insn *in,
			  char *why)
{
	rv_decode(b, n, xlen, in);
	if (!in->len)
		snprintf(why, INJECT_WHY, "bytes at +%zu do not decode", off);
	return in->len;
}

/*
 * Whether in shows a function entered otherwise than by a call with its
 * return address in ra: a trap handler (mret, sret, a read of the trap
 * CSRs mepc, mcause, mtval) or millicode that returns through t0 (GCC's
 * __riscv_save_N, called with jal t0).
 */
static int not_called(const struct rv_insn *in, size_t off, char *why)
{
	uint32_t csr = in->raw >> 20;
	if (in->raw == 0x30200073 || in->raw == 0x10200073)
		snprintf(why, INJECT_WHY,
			 "returns with %cret (+%zu): a trap handler, entered with no return "
			 "address",
			 in->raw == 0x30200073 ? 'm' : 's', off);
	else if (in->len == 4 && (in->raw & 0x7f) == 0x73 && (in->raw >> 12 & 7) &&
		 csr >= 0x341 && csr <= 0x343)
		snprintf(why, INJECT_WHY,
			 "reads the trap CSR 0x%x (+%zu): a trap handler, entered with no return "
			 "address",
			 csr, off);
	else if (in->kind == RV_JALR && in->rd == 0 && in->rs1 == RV_T0 && in->imm == 0)
		snprintf(why, INJECT_WHY,
			 "returns through t0 (+%zu): millicode called with jal t0, its return "
			 "address is not in ra",
			 off);
	else
		return 0;
	return 1;
}

/* Whether the function loads ra from memory and never stores it (an epilogue fragment). */
static int is_restore_millicode(const uint8_t *code, size_t size, int xlen)
{
	int loads = 0;
	for (size_t off = 0; off < size;) {
		struct rv_insn in;
		rv_decode(code + off, size - off, xlen, &in);
		if (!in.len) {
			off += 2;
			continue;
		}
		uint32_t r = in.raw, f3 = r >> 13 & 7;
		if (in.len == 4) {
			loads |= (r & 0x7f) == 0x03 && in.rd == RV_RA;
			if ((r & 0x7f) == 0x23 && in.rs2 == RV_RA)
				return 0;
		} else if ((r & 3) == 2) { /* c.lwsp, c.ldsp; c.swsp, c.sdsp */
			loads |= (f3 == 2 || (f3 == 3 && xlen == 64)) && (r >> 7 & 31) == RV_RA;
			if ((f3 == 6 || (f3 == 7 && xlen == 64)) && (r >> 2 & 31) == RV_RA)
				return 0;
		}
		off += in.len;
	}
	return loads;
}

/*
 * Scans the whole function for branches and jumps into the patched bytes
 * [lo, hi): to lo itself (a loop to the entry) would run the payload
 * again, past lo lands inside the jump (2: a breakpoint at lo can still
 * do).  A call (jal ra) to lo is a recursion, a pass for a region point.
 */
static int body_jumps_in(const uint8_t *code, size_t size, int xlen, uint64_t addr, uint64_t lo,
			 uint64_t hi, int point, char *why)
{
	for (size_t off = 0; off < size;) {
		struct rv_insn in;
		rv_decode(code + off, size - off, xlen, &in);
		if (!in.len) {
			off += 2; /* data: resynchronise on the next halfword */
			continue;
		}
		if (not_called(&in, off, why))
			return 1;
		uint64_t t = addr + off + (uint64_t)in.imm;
		if ((in.kind == RV_JAL || in.kind == RV_BRANCH) && t >= lo && t < hi &&
		    !(t == lo && (point || (in.kind == RV_JAL && in.rd != 0)))) {
			inject_why_jumps_in(why, off, addr, t, lo, hi);
			return t == lo ? 1 : 2;
		}
		off += in.len;
	}
	return 0;
}

/*
 * An entry the jump cannot take (why says why): a breakpoint there instead,
 * the first instruction relocated, when no branch of the body goes to it.
 */
static int break_site(const uint8_t *code, size_t size, int xlen, uint64_t addr,
		      struct inject_site *site, char *why)
{
	struct rv_insn in;
	char jump_why[INJECT_WHY];
	snprintf(jump_why, sizeof jump_why, "%s", why);
	if (!decode_at(code, size, xlen, 0, &in, why) ||
	    body_jumps_in(code, size, xlen, addr, addr, addr + in.len, 0, why))
		return 1;
	memset(site, 0, sizeof *site);
	site->addr = addr;
	site->len = in.len;
	site->ninsn = 1;
	site->by_break = 1;
	snprintf(why, INJECT_WHY, "%s", jump_why);
	return 0;
}

static int plan_len(const uint8_t *code, size_t size, size_t padding, uint64_t addr, size_t offset,
		    struct inject_site *site, char *why, int xlen, size_t jump_len)
{
	memset(site, 0, sizeof *site);
	site->addr = addr + offset;
	if (offset == 0 && is_restore_millicode(code, size, xlen)) {
		snprintf(why, INJECT_WHY,
			 "millicode entered by a jump from an epilogue (its ret is the caller's)");
		return 1;
	}
	for (size_t at = 0; at < offset;) { /* a point must start an instruction */
		struct rv_insn in;
		rv_decode(code + at, size - at, xlen, &in);
		if (!in.len || at + in.len > offset) {
			snprintf(why, INJECT_WHY, "+%zu is not the start of an instruction", offset);
			return 1;
		}
		at += in.len;
	}
	size_t off = offset;
	struct rv_insn in = {0};
	while (off < offset + jump_len && off < size) {
		if (site->ninsn == INJECT_SITE_INSNS ||
		    !decode_at(code + off, size - off, xlen, off, &in, why))
			return 1;
		site->map_from[site->ninsn++] = (uint32_t)(off - offset);
		off += in.len;
	}
	if (off < offset + jump_len) { /* the function ended first */
		if (off + padding < offset + jump_len || !rv_ends_flow(&in)) {
			snprintf(why, INJECT_WHY, "too short: %zu bytes, the jump needs %zu",
				 size - offset, jump_len);
			return offset ? 1 : break_site(code, size, xlen, addr, site, why);
		}
		site->padding = (uint32_t)(offset + jump_len - off);
		off = offset + jump_len;
	}
	site->len = (uint32_t)(off - offset);
	int into = body_jumps_in(code, size, xlen, addr, site->addr, site->addr + site->len,
				 offset != 0, why);
	return into == 2 && !offset ? break_site(code, size, xlen, addr, site, why) : into != 0;
}

static int plan(const uint8_t *code, size_t size, size_t padding, uint64_t addr, size_t offset,
		struct inject_site *site, char *why, int xlen)
{
	return plan_len(code, size, padding, addr, offset, site, why, xlen, JUMP_LEN);
}

/* Whether an instruction of the function writes reg. */
static int writes_reg(const uint8_t *code, size_t size, int xlen, int reg)
{
	for (size_t off = 0; off < size;) {
		struct rv_insn in;
		rv_decode(code + off, size - off, xlen, &in);
		if (in.len && in.wr == reg)
			return 1;
		off += in.len ? in.len : 2;
	}
	return 0;
}

static int plan_far(const uint8_t *code, size_t size, size_t padding, uint64_t addr,
		    struct inject_site *site, char *why, int xlen)
{
	if (plan_len(code, size, padding, addr, 0, site, why, xlen, FAR_LEN))
		return 1;
	site->far = 1;
	struct rv_insn first;
	rv_decode(code, size, xlen, &first);
	if (site->by_break && first.kind == RV_JALR && first.rd == 0)
		return 0; /* a breakpoint, and a copy that jumps through a register: no far jump */
	if (!writes_reg(code, size, xlen, RV_T1)) {
		snprintf(why, INJECT_WHY, "%s",
			 "the far jump changes t1, which it never writes (-fipa-ra callers may "
			 "keep it)");
		return 1;
	}
	/* the copy's jumps back are far too (a breakpoint site's included) */
	if (writes_reg(code, site->len - site->padding, xlen, RV_T1)) {
		snprintf(why, INJECT_WHY,
			 "the far jump back would change t1, which its first instructions set");
		return 1;
	}
	return 0;
}

static int plan32(const uint8_t *code, size_t size, size_t padding, uint64_t addr, size_t offset,
		  struct inject_site *site, char *why)
{
	return plan(code, size, padding, addr, offset, site, why, 32);
}

static int plan64(const uint8_t *code, size_t size, size_t padding, uint64_t addr, size_t offset,
		  struct inject_site *site, char *why)
{
	return plan(code, size, padding, addr, offset, site, why, 64);
}

static int plan_far32(const uint8_t *code, size_t size, size_t padding, uint64_t addr,
		      struct inject_site *site, char *why)
{
	return plan_far(code, size, padding, addr, site, why, 32);
}

static int plan_far64(const uint8_t *code, size_t size, size_t padding, uint64_t addr,
		      struct inject_site *site, char *why)
{
	return plan_far(code, size, padding, addr, site, why, 64);
}

struct out {
	uint8_t *b;
	size_t n, cap;
	uint64_t at; /* address of b[0] */
	int far;     /* jumps out of a jal's reach: auipc + jalr */
};

static int put(struct out *o, const void *p, size_t n, char *why)
{
	if (o->n + n > o->cap) {
		snprintf(why, INJECT_WHY, "the relocated copy is longer than %zu bytes", o->cap);
		return -1;
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
	return 0;
}

static int put32(struct out *o, uint32_t v, char *why)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	return put(o, b, 4, why);
}

/*
 * jal rd from the copy's next byte to target; out of its reach, for a far
 * site, auipc + jalr through rd (ra for a call) or t1 (a jump: the far
 * site's planner made sure t1 is free); else -1.
 */
static int put_jal(struct out *o, int rd, uint64_t target, char *why)
{
	int64_t d = (int64_t)(target - (o->at + o->n));
	if (!rv_fits(d, 21) && o->far && rv_fits(d, 32)) {
		int via = rd ? rd : RV_T1;
		if (put32(o, rv_auipc(via, rv_hi20(d)), why) < 0)
			return -1;
		return put32(o, rv_itype(0x67, 0, rd, via, rv_lo12(d)), why);
	}
	if (!rv_fits(d, 21)) {
		snprintf(why, INJECT_WHY, "0x%llx is out of a jal's reach (1 MiB) from 0x%llx",
			 (unsigned long long)target, (unsigned long long)(o->at + o->n));
		return -1;
	}
	return put32(o, rv_jal(rd, d), why);
}

static int put_branch(struct out *o, const struct rv_insn *in, uint64_t target, char *why)
{
	int64_t d = (int64_t)(target - (o->at + o->n));
	if (rv_fits(d, 13))
		return put32(o, rv_branch(in->funct3, in->rs1, in->rs2, d), why);
	/* too far: the inverted condition skips a jal (auipc + jalr: 8 bytes) */
	int skip = o->far && !rv_fits((int64_t)(target - (o->at + o->n + 4)), 21) ? 12 : 8;
	if (put32(o, rv_branch(in->funct3 ^ 1, in->rs1, in->rs2, skip), why) < 0)
		return -1;
	return put_jal(o, 0, target, why);
}

static int put_auipc(struct out *o, const struct rv_insn *in, uint64_t value, char *why)
{
	if (in->rd == 0)
		return 0; /* a hint: nothing to compute */
	int64_t d = (int64_t)(value - (o->at + o->n));
	if (!rv_fits(d, 32) || !rv_fits(rv_hi20(d), 20)) {
		snprintf(why, INJECT_WHY, "auipc's 0x%llx is out of reach from 0x%llx",
			 (unsigned long long)value, (unsigned long long)(o->at + o->n));
		return -1;
	}
	if (put32(o, rv_auipc(in->rd, rv_hi20(d)), why) < 0)
		return -1;
	if (rv_lo12(d) == 0)
		return 0;
	return put32(o, rv_itype(0x13, 0, in->rd, in->rd, rv_lo12(d)), why); /* addi */
}

static int relocate(struct inject_site *site, const uint8_t *code, uint64_t to, uint8_t *buf,
		    size_t cap, char *why, int xlen)
{
	struct out o = {buf, 0, cap, to, (int)site->far};
	uint64_t base = site->addr + site->keep;
	int falls = 1;
	uint64_t next = base;
	for (uint32_t i = 0; i < site->ninsn; i++) {
		uint32_t off = site->map_from[i];
		uint64_t pc = base + off;
		struct rv_insn in;
		if (!decode_at(code + site->keep + off, site->len - off, xlen, off, &in, why))
			return -1;
		site->map_to[i] = (uint32_t)o.n;
		uint64_t target = pc + (uint64_t)in.imm;
		int rc;
		switch (in.kind) {
		case RV_AUIPC: rc = put_auipc(&o, &in, target, why); break;
		case RV_JAL: rc = put_jal(&o, in.rd, target, why); break;
		case RV_BRANCH: rc = put_branch(&o, &in, target, why); break;
		default: rc = put(&o, code + site->keep + off, in.len, why); break;
		}
		if (rc < 0)
			return -1;
		falls = !rv_ends_flow(&in);
		next = pc + in.len;
	}
	if (falls && put_jal(&o, 0, next, why) < 0)
		return -1;
	return (int)o.n;
}

static int relocate32(struct inject_site *site, const uint8_t *code, uint64_t to, uint8_t *buf,
		      size_t cap, char *why)
{
	return relocate(site, code, to, buf, cap, why, 32);
}

static int relocate64(struct inject_site *site, const uint8_t *code, uint64_t to, uint8_t *buf,
		      size_t cap, char *why)
{
	return relocate(site, code, to, buf, cap, why, 64);
}

/* c.nop, nop (addi x0, x0, 0) and zero halfwords. */
static size_t fill(const uint8_t *b, size_t n)
{
	size_t off = 0;
	while (off + 2 <= n) {
		if ((b[off] == 0x01 || b[off] == 0) && b[off + 1] == 0)
			off += 2;
		else if (off + 4 <= n && !memcmp(b + off, "\x13\0\0\0", 4))
			off += 4;
		else
			break;
	}
	return off;
}

static size_t jump(uint64_t from, uint64_t to, uint8_t *b)
{
	uint32_t v = rv_jal(0, (int64_t)(to - from));
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	return JUMP_LEN;
}

/* auipc t1, hi; jalr x0, lo(t1): any address within 2 GiB */
static size_t jump_far(uint64_t from, uint64_t to, uint8_t *b)
{
	int64_t d = (int64_t)(to - from);
	uint32_t v[2] = {rv_auipc(RV_T1, rv_hi20(d)), rv_itype(0x67, 0, 0, RV_T1, rv_lo12(d))};
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v[i / 4] >> (8 * (i % 4)));
	return FAR_LEN;
}

uint64_t inject_riscv32_exit_addr(uint64_t payload_at);
uint64_t inject_riscv64_exit_addr(uint64_t payload_at);
size_t inject_riscv32_payload(uint8_t *out, size_t cap, const struct inject_payload_args *a);
size_t inject_riscv64_payload(uint8_t *out, size_t cap, const struct inject_payload_args *a);
size_t inject_riscv32_stub(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id,
			   enum inject_probe kind);
size_t inject_riscv64_stub(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id,
			   enum inject_probe kind);
int inject_riscv_calibrate(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err);
int inject_riscv_calibrate_region(uint64_t *c0, uint64_t *hz, struct zerr *err);

#define RISCV_ARCH(xlen)                                                                           \
	{                                                                                          \
		.name = "riscv" #xlen, .jump_len = JUMP_LEN,                                       \
		.reloc_max = INJECT_SITE_INSNS * 8 + 4, .plan = plan##xlen,                        \
		.relocate = relocate##xlen, .fill = fill, .jump = jump, .reach = 1 << 20,          \
		.far_len = FAR_LEN, .plan_far = plan_far##xlen, .jump_far = jump_far,              \
		.payload = inject_riscv##xlen##_payload,                                           \
		.exit_addr = inject_riscv##xlen##_exit_addr, .stub_len = 24,                       \
		.stub = inject_riscv##xlen##_stub, .calibrate = inject_riscv_calibrate,            \
		.calibrate_region = inject_riscv_calibrate_region, .counter = "mcycle",            \
	}

const struct inject_arch inject_arch_riscv32 = RISCV_ARCH(32);
const struct inject_arch inject_arch_riscv64 = RISCV_ARCH(64);
