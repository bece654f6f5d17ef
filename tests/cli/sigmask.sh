#!/bin/sh
# The program reads back the signal mask it set (progs/sigmask.c): zond's
# sampling signal, which a mask never really blocks while zond samples, reads
# as blocked where the program blocked it (it read as unblocked: 59 of 60);
# the program's output is the same under record and libcalls as without
# zond, and its time is still sampled with every signal blocked.  Also what
# it reads through syscall(SYS_rt_sigprocmask), and the masks its new
# threads (pthread_create, thrd_create) and processes (posix_spawn, the
# shell of system(), which sets its mask with sigsetmask, fork) start with:
# a new thread's read 59 (the sampling signal unblocked whatever its creator
# had), and so did the spawned processes'.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$SIGMASK" >plain.txt || fail "plain run"
"$ZOND" record -q -o r.db -- "$SIGMASK" >rec.txt 2>err.txt || fail "record: $(cat err.txt)"
check_eq "record: the masks read back" "$(cat rec.txt)" "$(cat plain.txt)"
"$ZOND" libcalls -q --time sampled -o l.db -- "$SIGMASK" >lib.txt 2>err.txt || fail "libcalls: $(cat err.txt)"
check_eq "libcalls: the masks read back" "$(cat lib.txt)" "$(cat plain.txt)"
# an image exec'ed with every signal blocked starts so
"$SIGMASK" exec >plain_exec.txt || fail "plain exec"
check_eq "plainly, exec'ed with all blocked" "$(cat plain_exec.txt)" "started with 60"
"$ZOND" record -q -o x.db -- "$SIGMASK" exec >rec_exec.txt 2>err.txt || fail "record exec"
check_eq "record: exec'ed with all blocked" "$(cat rec_exec.txt)" "started with 60"
# burn_samples DB: burn's samples
burn_samples() {
	"$ZOND" export -f json -i "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(n["self"].get("samples", 0) for n in d["nodes"] if n["name"] == "burn"))'
}
samples=$(burn_samples x.db)
check_eq "the exec'ed image is sampled ($samples samples)" "$([ "${samples:-0}" -ge 3 ] && echo yes)" yes
# burn's time, every signal blocked, is sampled (tens of ms: at least a few samples)
samples=$(burn_samples r.db)
check_eq "burn is sampled ($samples samples)" "$([ "${samples:-0}" -ge 3 ] && echo yes)" yes
finish
