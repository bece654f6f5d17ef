#!/usr/bin/env python3
"""reloc_objdump.py - zond inject's x86-64 relocator against objdump.

Usage: reloc_objdump.py RELOC_DUMP OBJDUMP WORKDIR FILE...

For every function of each FILE that zond can patch, reloc_dump writes the
relocated copy of its entry; objdump disassembles the original file and the
copies (as raw code at their run address).  Each copied instruction must be
the original one with the same absolute targets (branch targets and
rip-relative addresses as objdump computes them); the expected rewrites are
rel8 branches widened (same mnemonic), a call turned into push imm32; movl
imm32,0x4(%rsp) (the return address) and a jmp to the same target, and
jrcxz/loop kept over a short jmp to a jmp.  A copy whose last instruction
falls through must end with a jmp back to the first byte after the patch.
"""
import re
import subprocess
import sys

LINE = re.compile(r'^\s*([0-9a-f]+):\t([0-9a-f ]+)\t(.*)$')
PREFIXES = {'bnd', 'notrack', 'rep', 'repz', 'repnz', 'lock', 'data16', 'addr32', 'cs', 'ds',
            'es', 'ss', 'fs', 'gs', 'rex', 'rex.W'}


def parse(text):
    """objdump -d text -> {addr: (length, mnemonic, operands, target)}"""
    out = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        nbytes = len(m.group(2).split())
        insn = m.group(3)
        target = None
        if '#' in insn:
            insn, comment = insn.split('#', 1)
            target = int(comment.split()[0], 16)
        insn = re.sub(r'<[^>]*>', '', insn).strip()
        words = insn.split()
        i = 0
        while i < len(words) - 1 and (words[i] in PREFIXES or words[i].startswith('rex')):
            i += 1
        mn = ' '.join(words[:i + 1])
        ops = ' '.join(words[i + 1:])
        base = words[i] if words else ''
        if (base.startswith('j') or base.startswith('call') or base.startswith('loop')) \
                and ops and not ops.startswith('*'):
            target = int(ops.split()[0], 16)
            ops = 'T'
        ops = re.sub(r'-?0x[0-9a-f]+\(%rip\)', '(%rip)', ops)
        out[addr] = (nbytes, mn, ops, target)
    return out


def base_mn(mn):
    return mn.split()[-1]


def falls_through(mn):
    b = base_mn(mn)
    return not (b.startswith('jmp') or b.startswith('ret') or b in ('ud2', 'hlt'))


def main():
    dump, objdump, work = sys.argv[1:4]
    failures = 0
    checked = 0
    for n, path in enumerate(sys.argv[4:]):
        blob = '%s/blob%d.bin' % (work, n)
        listing = subprocess.run([dump, path, blob], capture_output=True, text=True)
        if listing.returncode == 77:
            print('skip: zond built without Zydis')
            return 77
        if listing.returncode != 0:
            print('FAIL reloc_dump %s: %s' % (path, listing.stderr))
            return 1
        lines = [l.split() for l in listing.stdout.splitlines()]
        base = int(lines[0][1], 16)
        orig = parse(subprocess.run([objdump, '-d', '--insn-width=15', path],
                                    capture_output=True, text=True, check=True).stdout)
        copy = parse(subprocess.run([objdump, '-D', '-b', 'binary', '-m', 'i386:x86-64',
                                     '--insn-width=15', '--adjust-vma=%#x' % base, blob],
                                    capture_output=True, text=True, check=True).stdout)
        funcs = []
        for l in lines[1:]:
            if l[0] == 'F':
                funcs.append(([int(x, 16) for x in l[1:]], []))
            else:
                funcs[-1][1].append((int(l[1], 16), int(l[2], 16)))
        for (addr, keep, length, at, copylen), insns in funcs:
            end = addr + keep + length
            errs = []
            last_falls = True
            for k, (oa, ca) in enumerate(insns):
                o = orig.get(oa)
                c = copy.get(ca)
                if o is None or c is None:
                    errs.append('%#x/%#x: no instruction in objdump' % (oa, ca))
                    break
                olen, omn, oops, otgt = o
                b = base_mn(omn)
                if b.startswith('call'):
                    seq = [copy.get(ca)]
                    nxt = ca + seq[0][0]
                    for _ in range(2):
                        seq.append(copy.get(nxt))
                        if seq[-1] is None:
                            break
                        nxt += seq[-1][0]
                    if None in seq or [base_mn(s[1]) for s in seq] != ['push', 'movl', 'jmp']:
                        errs.append('%#x: call not copied as push, movl, jmp' % oa)
                        break
                    lo = int(seq[0][2].split('$')[1], 16)
                    hi = int(seq[1][2].split('$')[1].split(',')[0], 16)
                    ret = (hi << 32) | (lo & 0xffffffff)
                    want = oa + olen if oa + olen >= end else nxt
                    jops = seq[2][2]
                    if ret != want or seq[2][3] != otgt or jops != oops:
                        errs.append('%#x: call -> ret %#x (want %#x), jmp %s %s (want %s %s)'
                                    % (oa, ret, want, jops, seq[2][3], oops, otgt))
                    last_falls = oa + olen < end
                    continue
                cmn = c[1]
                if b.startswith('jrcxz') or b.startswith('loop'):
                    sj = copy.get(ca + c[0])
                    fj = sj and copy.get(ca + c[0] + sj[0])
                    if cmn != omn or not fj or fj[3] != otgt or base_mn(fj[1]) != 'jmp':
                        errs.append('%#x: %s not copied over a jmp to %s' % (oa, omn, otgt))
                    continue
                if (cmn, c[2], c[3]) != (omn, oops, otgt):
                    errs.append('%#x: %s %s %s copied as %s %s %s' % (oa, omn, oops, otgt,
                                                                     cmn, c[2], c[3]))
                last_falls = falls_through(omn)
            if not errs and last_falls:
                # the jmp back follows the copy of the last instruction
                oa, ca = insns[-1]
                nxt = ca
                while nxt < at + copylen and copy.get(nxt):
                    last = copy[nxt]
                    nxt += last[0]
                if base_mn(last[1]) != 'jmp' or last[3] != end:
                    errs.append('no jmp back to %#x at the end of the copy' % end)
            checked += 1
            if errs:
                failures += 1
                if failures <= 20:
                    print('FAIL %s %#x: %s' % (path, addr, '; '.join(errs)))
        print('%s: %d relocated entries checked' % (path, len(funcs)))
    print('%d checked, %d failed' % (checked, failures))
    return 1 if failures else 0


sys.exit(main())
