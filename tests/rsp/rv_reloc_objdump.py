#!/usr/bin/env python3
"""rv_reloc_objdump.py - zond inject's RISC-V decoder and relocator checked
against objdump (binutils' disassembler, independent of zond).

Usage: rv_reloc_objdump.py DUMP OBJDUMP WORKDIR ELF...

For each ELF: rv_reloc_dump lists every instruction of every function as
zond decodes it (address, length, branch target) and relocates every entry
the planner accepts into a blob.  Checked:
  - decoding: each instruction zond sees starts where objdump's does, with
    objdump's length, and a jal/branch has objdump's absolute target;
  - relocation round trip (the blob disassembled at its load address): a
    copied instruction is the original's bytes, or for pc-relative ones the
    same absolute target (jal, j, branches; an inverted branch over a j for
    far ones) or the same computed value (auipc as auipc+addi); a copy that
    falls through ends with a j back to the first byte after the patch;
  - the far jump's sites the same, relocated 16 MiB away (out of a jal's
    reach): jumps and branches become auipc + jalr through the link
    register (t1 for a plain jump), an inverted branch skips such a pair,
    the jump back is one; and each far jump (auipc t1 + jr), written as if
    at its own address there, reaches its function.
Prints per file the functions decoded, relocated and refused; exit 1 on any
mismatch."""
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]+)\s+(\S+)\s*(.*)$")
BRANCHES = {"beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez", "bgez",
            "bltz", "bgtz", "bgt", "ble", "bgtu", "bleu"}
INVERSE = {"beq": "bne", "bne": "beq", "blt": "bge", "bge": "blt", "bltu": "bgeu",
           "bgeu": "bltu", "beqz": "bnez", "bnez": "beqz", "blez": "bgtz", "bgtz": "blez",
           "bgez": "bltz", "bltz": "bgez", "bgt": "ble", "ble": "bgt", "bgtu": "bleu",
           "bleu": "bgtu"}


def disasm(args):
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    insns = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            addr = int(m.group(1), 16)
            raw = m.group(2)
            insns[addr] = (len(raw) // 2, m.group(3), m.group(4).split("#")[0].strip(), raw)
    return insns


def target(ops):
    """The absolute target objdump prints for a jump or branch."""
    m = re.search(r"(?:^|,)\s*(?:0x)?([0-9a-f]+)(?:\s+<[^>]*>)?\s*$", ops)
    return int(m.group(1), 16) if m else None


def operands_before_target(ops):
    return ops.rsplit(",", 1)[0] if "," in ops else ""


def auipc_value(pc, ops):
    rd, imm = ops.split(",")
    v = int(imm, 16) << 12
    if v & (1 << 31):
        v -= 1 << 32
    return rd.strip(), pc + v


def far_jump(copy, at):
    """(link register, target) of an auipc + jalr pair at `at`, or None."""
    a, b = copy.get(at), copy.get(at + 4)
    if not a or not b or a[1] != "auipc" or b[1] not in ("jr", "jalr"):
        return None
    reg, value = auipc_value(at, a[2])
    ops = b[2].replace(" ", "")  # "t0,16(t0)", "-16(t1)", "t1" (offset 0)
    m = re.fullmatch(r"(?:(\w+),)?(?:(-?\d+)\((\w+)\)|(\w+))", ops)
    if not m or (m.group(3) or m.group(4)) != reg:
        return None
    link = m.group(1) or ("zero" if b[1] == "jr" else "ra")
    return link, value + int(m.group(2) or 0)


def ends_flow(mnem, ops):
    return mnem in ("j", "jr", "ret", "tail") or (mnem == "jalr" and ops.startswith("zero,"))


def check_file(dump, objdump, work, elf, errors):
    listing = subprocess.run([dump, elf, f"{work}/blob", f"{work}/farblob"], check=True,
                             capture_output=True, text=True).stdout.splitlines()
    arch = "riscv:rv64" if "ELF64" in subprocess.run(
        [objdump.replace("objdump", "readelf"), "-h", elf], capture_output=True,
        text=True).stdout else "riscv:rv32"
    orig = disasm([objdump, "-d", elf])
    base, far = (int(x, 16) for x in listing[0].split()[1:3])
    copy = {}
    for at, blob in ((base, "blob"), (far, "farblob")):
        copy.update(disasm([objdump, "-D", "-b", "binary", "-m", arch, f"--adjust-vma={at:#x}",
                            f"{work}/{blob}"]))
    ndec = nreloc = nrefused = nfar = 0
    funcs = []
    for line in listing[1:]:
        f = line.split()
        if f[0] == "D":
            ndec += 1
            addr, n = int(f[1], 16), int(f[2], 16)
            o = orig.get(addr)
            if o is None or o[0] != n:
                errors.append(f"{elf}: {addr:x}: zond decodes {n} bytes, objdump "
                              f"{o[0] if o else 'no instruction here'}")
            elif len(f) > 3 and target(o[2]) != int(f[3], 16):
                errors.append(f"{elf}: {addr:x} {o[1]} {o[2]}: zond's target {f[3]}")
            elif len(f) == 3 and (o[1] in BRANCHES or o[1] in ("j", "jal")):
                errors.append(f"{elf}: {addr:x} {o[1]} {o[2]}: zond sees no target")
        elif f[0] == "F":
            funcs.append([int(f[1], 16), int(f[3], 16), int(f[4], 16), int(f[5], 16), []])
        elif f[0] == "I":
            funcs[-1][4].append((int(f[1], 16), int(f[2], 16)))
        elif f[0] == "R":
            nrefused += 1
        elif f[0] == "J":
            nfar += 1
            at, to = int(f[1], 16), int(f[2], 16)
            if far_jump(copy, at) != ("zero", to):
                errors.append(f"{elf}: the far jump at {at:x} does not reach {to:x}: "
                              f"{copy.get(at)} {copy.get(at + 4)}")
    for addr, length, at, clen, pairs in funcs:
        nreloc += 1
        last = None
        for oa, ca in pairs:
            o, c = orig.get(oa), copy.get(ca)
            if o is None or c is None:
                errors.append(f"{elf}: {oa:x}: no instruction (copy at {ca:x})")
                break
            olen, om, oops, oraw = o
            cm, cops = c[1], c[2]
            where = f"{elf}: {oa:x} {om} {oops} -> {ca:x} {cm} {cops}"
            if om == "auipc":
                rd, want = auipc_value(oa, oops)
                ok = cm == "auipc"
                if ok:
                    crd, got = auipc_value(ca, cops)
                    nxt = copy.get(ca + 4)
                    if nxt and nxt[1] in ("addi", "add") and nxt[2].startswith(f"{rd},{rd},"):
                        got += int(nxt[2].split(",")[2])
                    ok = crd == rd and got == want
                if not ok:
                    errors.append(where + f": not {rd} = {want:#x}")
            elif om in BRANCHES:
                t = target(oops)
                if cm == om and target(cops) == t and \
                        operands_before_target(cops) == operands_before_target(oops):
                    pass
                elif cm == INVERSE[om] and target(cops) == ca + 8 and \
                        copy.get(ca + 4, (0, ""))[1] == "j" and target(copy[ca + 4][2]) == t:
                    pass
                elif cm == INVERSE[om] and target(cops) == ca + 12 and \
                        far_jump(copy, ca + 4) == ("zero", t):
                    pass
                else:
                    errors.append(where + ": not the same branch")
            elif om in ("j", "jal"):
                link = "zero" if om == "j" else (oops.split(",")[0] if "," in oops else "ra")
                if (cm != om or target(cops) != target(oops)) and \
                        far_jump(copy, ca) != (link, target(oops)):
                    errors.append(where + ": not the same jump")
            elif c[3] != oraw:
                errors.append(where + ": bytes differ")
            last = (oa + olen, om, oops)
        if last and not ends_flow(last[1], last[2]):
            end = at + clen - 4
            c = copy.get(end)
            if (not c or c[1] != "j" or target(c[2]) != last[0]) and \
                    far_jump(copy, at + clen - 8) != ("zero", last[0]):
                errors.append(f"{elf}: copy of {addr:x} does not end with j {last[0]:x}")
    print(f"{elf.rsplit('/', 1)[-1]}: {ndec} instructions decoded as objdump, "
          f"{nreloc} entries relocated ({nfar} far jumps), {nrefused} refused")


def main():
    dump, objdump, work = sys.argv[1:4]
    errors = []
    for elf in sys.argv[4:]:
        check_file(dump, objdump, work, elf, errors)
    for e in errors[:30]:
        print("FAIL:", e)
    if len(errors) > 30:
        print(f"... {len(errors) - 30} more")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
