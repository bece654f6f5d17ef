#!/bin/sh
# The processes of a run share one time line: a forked child's timeline is
# anchored to the wall clock as its parent's is, so that no effect is drawn
# before its cause (progs/forktime.c: jobs and replies over pipes).  Before
# (QA s15 W1 F1), a process's wall-clock anchor was read tens of us before
# its clock's (the child's raw file made between them): the child received
# jobs up to 100 us before they were sent.  Sampled and exact time, record
# and libcalls (the same runtime start).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

cc -O1 -finstrument-functions -o traced "$here/progs/forktime.c" &&
	cc -O1 -o plain "$here/progs/forktime.c" || fail "build"

# causal NAME STORE CAUSE EFFECT...: each EFFECT i enters after its CAUSE i entered
causal() {
	"$ZOND" export -i "$2" -f chrome -o "$1.json" || { fail "$1: export"; return; }
	python3 - "$1.json" "$3" "$4" "$5" "$6" <<'PY' && pass || fail "$1: $(cat "$1.why")"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
def starts(name):
    return sorted(e["ts"] for e in ev if e.get("ph") == "X" and e["name"] == name)
bad = []
for cause, effect in ((sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5])):
    c, e = starts(cause), starts(effect)
    if len(c) != 20 or len(e) != 20:
        bad.append("%s %d, %s %d on the timeline, want 20 each" % (cause, len(c), effect, len(e)))
        continue
    early = [round(b - a, 3) for a, b in zip(c, e) if b <= a]
    if early:
        bad.append("%d %s before their %s (by up to %.3f us)" % (len(early), effect, cause, -min(early)))
open(sys.argv[1].replace(".json", ".why"), "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}

for mode in sampled exact; do
	"$ZOND" record -q --timeline --time "$mode" -o "r$mode.db" -- ./traced >out.txt 2>err.txt ||
		fail "record $mode: $(cat err.txt)"
	check_eq "record $mode: output" "$(cat out.txt)" "jobs 20"
	causal "record-$mode" "r$mode.db" send_job got_job send_reply got_reply
done
"$ZOND" libcalls -q --timeline -o lc.db -- ./plain >out.txt 2>err.txt || fail "libcalls: $(cat err.txt)"
check_eq "libcalls: output" "$(cat out.txt)" "jobs 20"
# the library calls: the parent's write of a job before the child's read returns, and back
"$ZOND" export -i lc.db -f chrome -o lc.json || fail "libcalls: export"
python3 - lc.json <<'PY' && pass || fail "libcalls: a read returned before its write"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
procs = sorted({e["pid"] for e in ev})
if len(procs) != 2:
    sys.exit("processes %s" % procs)
first = {p: min(e["ts"] for e in ev if e["pid"] == p) for p in procs}
parent, child = sorted(procs, key=lambda p: first[p])
def calls(pid, name):
    return sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e["pid"] == pid and e["name"] == name)
writes, reads = calls(parent, "write"), calls(child, "read")
# every read the child finished (one per job, then the one that saw the end) ends after the
# write that fed it began
ok = len(writes) >= 20 and len(reads) >= 20 and all(r[1] > w[0] for w, r in zip(writes, reads))
sys.exit(0 if ok else 1)
PY
finish
