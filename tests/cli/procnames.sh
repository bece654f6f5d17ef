#!/bin/sh
# Names of processes and threads (QA s13 T F1; progs/execname.c): a forked
# child that makes a call before it execs is named by the image it exec'ed
# (was its parent's: `--tid NAME` found nothing), chrome's process_name of
# each process is its own (was the run's command for every one), a main
# thread renamed with prctl(PR_SET_NAME) after its first call is seen as a
# worker renamed with pthread_setname_np is; under libcalls too.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# the child's image: a copy named "execchild", so that its name is not the parent's
cp "$EXECNAME" ./execparent && cp "$EXECNAME" ./execchild || fail "copy"
"$ZOND" record -q --timeline -o ex.db -- ./execparent ./execchild >/dev/null 2>err.txt ||
	fail "record: $(cat err.txt)"
"$ZOND" report -i ex.db --per-thread | sed -n 's/^thread [0-9]*\/[0-9]* (\(.*\)): .*/\1/p' | sort >names.txt
printf 'execchild\nexecparent\n' >want.txt
check_same "record: thread names" names.txt want.txt
"$ZOND" report -i ex.db --tid execchild >tid.txt 2>&1 || fail "--tid execchild: $(cat tid.txt)"
grep -q 'child_work$' tid.txt && pass || fail "--tid execchild: no child_work"
grep -q 'before_exec$' tid.txt && pass || fail "--tid execchild: no before_exec (the call before its exec)"
"$ZOND" export -i ex.db -f chrome -o ex.json || fail "export chrome"
python3 - ex.json >meta.txt <<'PY' || fail "chrome: metadata"
import json, sys
d = json.load(open(sys.argv[1]))
m = [e for e in d["traceEvents"] if e.get("ph") == "M"]
first = min(e["pid"] for e in m)
for e in sorted(m, key=lambda e: (e["pid"] != first, e["name"])):
    print("first" if e["pid"] == first else "child", e["name"], e["args"]["name"])
PY
cat >want.txt <<'END'
first process_name ./execparent ./execchild
first thread_name execparent
child process_name execchild
child thread_name execchild
END
check_same "chrome: process and thread names" meta.txt want.txt

for collector in record libcalls; do
	"$ZOND" $collector -q -o $collector.db -- "$EXECNAME" >/dev/null 2>err.txt ||
		fail "$collector: $(cat err.txt)"
	"$ZOND" report -i $collector.db --per-thread |
		sed -n 's/^thread [0-9]*\/[0-9]* (\(.*\)): .*/\1/p' | sort >names.txt
	printf 'mainrenamed\nworker7\n' >want.txt
	check_same "$collector: prctl and pthread_setname_np renames" names.txt want.txt
done
finish
