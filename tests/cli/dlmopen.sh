#!/bin/sh
# An instrumented plugin loaded with dlmopen into a new link-map namespace is
# recorded as one loaded with dlopen (progs/dlmhost.c, dlmplug.c, dlmleaf.c):
# before, its hooks bound to that namespace's C library, whose hooks do
# nothing, and only main was recorded, silently (QA finding F18).  20 rounds
# of dlmopen, run(100), dlclose: more namespaces than glibc has (16), so each
# must be given back; the plugin dlopens and dlcloses a library of its own
# in its namespace; the plugin is named without a directory, found through
# the program's RUNPATH (the program's own call site must reach dlmopen).
# The program's output is unchanged, a failing dlmopen's dlerror() too.  And
# zond libcalls of the same program: the namespaces' library calls are seen.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$DLMHOST" 20 >plain.txt || fail "plain run: $(cat plain.txt)"
cat >want_out.txt <<'END'
missing: not loaded libcli_dlmnone.so: cannot open shared object file: No such file or directory
rounds 20 total 100100
END
check_same "plain output" plain.txt want_out.txt

cat >want_dump.txt <<'END'
call - -> main calls=1
call main -> run calls=20
call run -> dlmleaf_fn calls=200
call run -> dlmplug_helper calls=2000
function dlmleaf_fn calls=200
function dlmplug_helper calls=2000
function main calls=1
function run calls=20
END
for mode in sampled exact no-time; do
	case $mode in no-time) opt=--no-time ;; *) opt="--time $mode" ;; esac
	"$ZOND" record -q $opt -o $mode.db -- "$DLMHOST" 20 >out.txt 2>err.txt ||
		fail "$mode: record: $(cat err.txt)"
	check_same "$mode: output" out.txt want_out.txt
	check_eq "$mode: nothing said" "$(cat err.txt)" ""
	"$ZOND" dump -i $mode.db >dump.txt 2>&1 || fail "$mode: dump"
	grep -E '^(call|function) ' dump.txt >calls.txt
	check_same "$mode: calls and names" calls.txt want_dump.txt
	# each function of the module it was loaded from (module's base name)
	"$ZOND" export -f json -i $mode.db -o profile.json 2>/dev/null || fail "$mode: export"
	check_eq "$mode: modules" "$(python3 -c '
import json, os, sys
d = json.load(open("profile.json"))
# sampled time: a sample while no function was open is "[no function]", no function of a module
print(" ".join(sorted(n["name"] + "@" + os.path.basename(n["module"]) for n in d["nodes"]
                      if n["name"] != "[no function]")))')" \
		"dlmleaf_fn@libcli_dlmleaf.so dlmplug_helper@libcli_dlmplug.so main@cli_dlmhost run@libcli_dlmplug.so"
done

# zond libcalls: the library calls of code in those namespaces (into their own C
# library) are audited as the program's are; before, la_objopen declined every
# object outside the program's namespace and they went unseen, silently
"$ZOND" libcalls -q -o lib.db -- "$DLMHOST" 20 >out.txt 2>err.txt || fail "libcalls: $(cat err.txt)"
check_same "libcalls: output" out.txt want_out.txt
check_eq "libcalls: nothing said" "$(cat err.txt)" ""
"$ZOND" dump -i lib.db >dump.txt 2>&1 || fail "libcalls: dump"
# the calls made from the plugin and its leaf library, callers by base name
sed -n 's|^call \[[^]]*/\(libcli_dlm[a-z]*\.so\)\] -> |\1 -> |p' dump.txt | sort >calls.txt
cat >want_lib.txt <<'END'
libcli_dlmleaf.so -> __cyg_profile_func_enter calls=200
libcli_dlmleaf.so -> __cyg_profile_func_exit calls=200
libcli_dlmplug.so -> __cyg_profile_func_enter calls=2020
libcli_dlmplug.so -> __cyg_profile_func_exit calls=2020
libcli_dlmplug.so -> dlclose calls=20
libcli_dlmplug.so -> dlopen calls=20
libcli_dlmplug.so -> dlsym calls=20
END
check_same "libcalls: the namespaces' calls" calls.txt want_lib.txt
finish
