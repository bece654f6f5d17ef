#!/bin/sh
# messages.sh - what zond record says of a bare-metal run is about bare metal: a pool that
# overflowed is sized when the runtime is built (-DZOND_BARE_DEPTH=N, not Linux's --depth,
# which a bare-metal target refuses, as --timeline); calls made by interrupt handlers inside zond's probes
# are interrupt handlers' (not signal handlers'); QEMU run by a script without --elf is told
# to give --elf.
#
# Usage: messages.sh ZOND XLEN WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 xlen=$2 src=$4
dir=$3/messages-rv$xlen
. "$src/../cli/lib.sh"
. "$src/build.sh"

# 200 frames deep, 128 kept: the advice names the runtime's macro
riscv64-unknown-elf-gcc $flags $cflags -o deep.elf "$src/progs/deep.c" $libs || exit 1
"$zond" record -q -o m.db -- $run -kernel deep.elf >out.txt 2>err.txt
check_eq "deep: status" $? 0
check_eq "deep: output" "$(cat out.txt)" "deep=200 r=199"
grep -q "^zond record: warning: lost_frames = .*-DZOND_BARE_DEPTH=N.*doc/bare-metal.md" err.txt ||
	fail "deep: no advice to rebuild the runtime: $(cat err.txt)"
grep -q -- "--depth" err.txt && fail "deep: Linux's --depth advised: $(cat err.txt)"
"$zond" report -i m.db --raw >report.txt || fail "report deep"
check_eq "deep: calls" "$(awk '$NF == "deep" { print $1 }' report.txt)" 200

# interrupts inside zond's hooks: their handler's calls counted without a stack
riscv64-unknown-elf-gcc $flags $cflags -DISR_IN_PROBES -o probes.elf "$src/progs/isr.c" $libs || exit 1
"$zond" record -q -o m.db -- $run -kernel probes.elf >out.txt 2>err.txt
check_eq "probes: status" $? 0
check_eq "probes: output" "$(cat out.txt)" "handled=6 ticked=6"
grep -q "^zond record: warning: unstacked_calls = [0-9]* (calls interrupt handlers made while a probe" err.txt ||
	fail "probes: no interrupt handlers' warning: $(cat err.txt)"
"$zond" report -i m.db --raw -n 0 >report.txt || fail "report probes"
grep -q "^warning: *unstacked_calls = [0-9]* (calls interrupt handlers made" report.txt ||
	fail "probes: the header does not speak of interrupt handlers: $(head -20 report.txt)"
check_eq "probes: handler calls" "$(awk '$NF == "on_timer" { print $1 }' report.txt)" 6
check_eq "probes: every handler call and its callee's inside a probe" "$(sed -n 's/^warning: *unstacked_calls = \([0-9]*\) .*/\1/p' report.txt)" 12

# options the bare runtime has nothing for are refused, --timeline too (QA s15 W3 F2: a run
# stored without a word, its export then saying "record it with --timeline")
for opt in --timeline "--timeline-size 100" "--timeline-keep newest" "--time sampled"; do
	check_error "a bare-metal target: $opt" "a bare-metal target takes none of" \
		"$zond" record -q -o opt.db $opt -- $run -kernel deep.elf
done
[ -e opt.db ] && fail "a refused option left a store"

# QEMU behind a script, no --elf: nothing recorded, and zond says to give --elf
printf '#!/bin/sh\nexec %s -kernel "$1"\n' "$(echo $run)" >wrap.sh
chmod +x wrap.sh
check_error "a script without --elf" "deep.elf is a bare-metal program with zond's runtime: give --elf deep.elf" \
	"$zond" record -q -o m.db -- ./wrap.sh deep.elf
finish
