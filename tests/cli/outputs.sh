#!/bin/sh
# Outputs: no command writes over a profile store, a program, a directory or
# a file it reads, and an output that cannot be written completely leaves the
# old file as it was (written through a temporary file renamed into place).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$ZOND" record -q -- "$SHOP" >/dev/null 2>&1 || fail "record"
cp zond.db before.db
for f in folded json callgrind dot; do
	check_error "export -f $f over its store" "zond.db: is an input of this command" \
		"$ZOND" export -f $f -o zond.db
done
check_same "the store is untouched" zond.db before.db
check_error "export over another store" "before.db: is a profile store" \
	"$ZOND" export -f json -o before.db
ln -s zond.db link.db
check_error "export over a link to its store" "link.db: is the same file as zond.db" \
	"$ZOND" export -f json -o link.db
cp "$SHOP" victim
check_error "export over a program" "victim: is an ELF file" "$ZOND" export -f json -o victim
check_same "the program is untouched" victim "$SHOP"
printf '#!/bin/sh\necho hi\n' >script.sh && chmod +x script.sh
check_error "export over a script" "script.sh: is an executable file" \
	"$ZOND" export -f json -o script.sh
mkdir adir
check_error "export into a directory" "adir: is a directory" "$ZOND" export -f json -o adir
check_error "export to /proc/version" "/proc/version" "$ZOND" export -f json -o /proc/version
"$ZOND" export -f json -o /dev/null && pass || fail "export to /dev/null"

# A good export replaces an old one; one that fails half way leaves it whole.
echo old >out.json
"$ZOND" export -f json -o out.json && pass || fail "export -o out.json"
python3 -c 'import json; json.load(open("out.json"))' && pass || fail "out.json is not json"
cp out.json good.json
(trap '' XFSZ; ulimit -f 8; "$ZOND" export -f json -o out.json) 2>err.txt
check_eq "a failed export: one line" "$(grep -c 'out.json: write failed' err.txt)" 1
check_same "a failed export leaves the old file" out.json good.json
check_eq "no temporary file left" "$(ls -A | grep -c zond-)" 0

# record and libcalls: the store is checked before the program runs.
check_error "record -o a program" "victim: exists and is an ELF file, not a profile store" \
	"$ZOND" record -o victim -- "$SHOP"
check_error "record -o the program itself" "is an input of this command" \
	"$ZOND" record -o "$SHOP" -- "$SHOP"
check_error "record -o a directory" "adir: is a directory" "$ZOND" record -o adir -- "$SHOP"
check_error "record -o a text file" "good.json: exists and is some other file" \
	"$ZOND" record -o good.json -- "$SHOP"
check_error "record -o nowhere" "/nonexistent/x.db: cannot create" \
	"$ZOND" record -o /nonexistent/x.db -- "$SHOP"
check_eq "the program did not run" "$(cat out.txt)" ""
check_error "libcalls -o nowhere" "/nonexistent/x.db: cannot create" \
	"$ZOND" libcalls -o /nonexistent/x.db -- "$SHOP"
# a store zond cannot add to is refused before the program runs, not after
cp zond.db newer.db && sqlite3 newer.db "UPDATE zond_meta SET value = '99' WHERE key = 'schema_version'"
check_error "record -o a store of a newer schema" "newer.db: written by a newer zond (schema 99" \
	"$ZOND" record -o newer.db -- "$SHOP"
check_eq "the program did not run" "$(cat out.txt)" ""
head -c 20000 zond.db >cut.db
check_error "libcalls -o a damaged store" "cut.db: damaged zond profile store" \
	"$ZOND" libcalls -o cut.db -- "$SHOP"
check_eq "the program did not run" "$(cat out.txt)" ""
sqlite3 foreign.db "CREATE TABLE t(x);"
check_error "record -o another SQLite database" "foreign.db: not a zond profile store" \
	"$ZOND" record -o foreign.db -- "$SHOP"
check_eq "the program did not run" "$(cat out.txt)" ""
# The check before the program runs looks where the store's own open will: through links.
# Refused were a plain missing directory and a link to an existing store; a link leading
# nowhere, links in a loop or a file taken for a directory passed, the program ran, and
# the run was lost or left for zond recover.
ln -s /nonexistent/x.db dangling.db
for c in record libcalls; do
	check_error "$c -o a link to a missing directory" \
		"dangling.db (a symbolic link to /nonexistent/x.db): cannot create: /nonexistent: No such file or directory" \
		"$ZOND" $c -o dangling.db -- "$SHOP"
	check_eq "the program did not run" "$(cat out.txt)" ""
done
ln -s loop2.db loop1.db && ln -s loop1.db loop2.db
check_error "record -o a loop of links" "loop1.db: a loop of symbolic links" \
	"$ZOND" record -o loop1.db -- "$SHOP"
check_eq "the program did not run" "$(cat out.txt)" ""
ln -s good.json/x.db underfile.db
check_error "libcalls -o a link through a file" "underfile.db: Not a directory" \
	"$ZOND" libcalls -o underfile.db -- "$SHOP"
check_eq "the program did not run" "$(cat out.txt)" ""
ln -s elsewhere/new.db later.db && mkdir elsewhere
"$ZOND" record -q -o later.db -- "$SHOP" >/dev/null 2>err.txt || fail "record -o a link to a new store: $(cat err.txt)"
check_eq "a link to a new store: made where it leads" "$([ -L later.db ] && "$ZOND" runs -i elsewhere/new.db | grep -c ' record ')" 1
# a directory the store's journal cannot be made in (root may write anywhere: checked as nobody)
as_user() {
	if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi
}
mkdir shut open && cp zond.db shut/old.db && chmod 666 shut/old.db && chmod 555 shut && chmod 777 open
ln -s ../shut/new.db open/new.db && ln -s ../shut/old.db open/old.db
if as_user test -x "$PWD/open" 2>/dev/null && ! as_user test -w "$PWD/shut"; then
	cd open
	check_error "record -o a link into a directory not writable" \
		"new.db (a symbolic link to ../shut/new.db): cannot create: ../shut: Permission denied" \
		as_user "$ZOND" record -o new.db -- "$SHOP"
	check_eq "the program did not run" "$(cat out.txt)" ""
	check_error "libcalls -o a link to a store in a directory not writable" \
		"old.db (a symbolic link to ../shut/old.db): the profile store's directory ../shut is not writable (its journal goes there)" \
		as_user "$ZOND" libcalls -o old.db -- "$SHOP"
	check_eq "the program did not run" "$(cat out.txt)" ""
	# deleting a run writes too: the same cause named (QA s13 S F5: "attempt to write a
	# readonly database")
	check_error "runs -d of a store in a directory not writable" \
		"old.db (a symbolic link to ../shut/old.db): the profile store's directory ../shut is not writable (its journal goes there)" \
		as_user "$ZOND" runs -i old.db -d 1
	cd ..
else
	echo "note: no other user to run as here: a directory not writable is not checked"
fi
chmod 755 shut

# trace: record, convert and report outputs.
cp "$SHOP" a64
printf '\267\000' | dd of=a64 bs=1 seek=18 conv=notrunc 2>/dev/null # e_machine: EM_AARCH64
check_error "trace record -o a store" "zond.db: is a profile store" \
	"$ZOND" trace record -o zond.db -- ./a64
check_error "trace record -o the program" "a64: is the same file as" \
	"$ZOND" trace record -o a64 -- ./a64
check_error "trace record --online -o a program" "victim: exists and is an ELF file" \
	"$ZOND" trace record --online -o victim -- ./a64
check_error "trace record --online -o a link to a missing directory" \
	"dangling.db (a symbolic link to /nonexistent/x.db): cannot create" \
	"$ZOND" trace record --online -o dangling.db -- ./a64
echo "not a trace" >in.ztrace
check_error "trace convert -o a store" "zond.db: is a profile store" \
	"$ZOND" trace convert -o zond.db in.ztrace
check_error "trace convert -o its input" "in.ztrace: is an input of this command" \
	"$ZOND" trace convert -o in.ztrace in.ztrace
check_error "trace report -o its input" "in.ztrace: is an input of this command" \
	"$ZOND" trace report -o in.ztrace in.ztrace
check_error "trace report -o a program" "victim: exists and is an ELF file" \
	"$ZOND" trace report -o victim in.ztrace
check_same "the store is still untouched" zond.db before.db
check_same "the program is still untouched" victim "$SHOP"
# -o - is standard output, as for perf and most tools, not a file named -
"$ZOND" export -i zond.db -f folded -o - >dash.out 2>err.txt
check_eq "export -o -: on standard output" "$([ -s dash.out ] && [ ! -e ./- ] && echo yes)" yes

# -o names a file: its links are followed and kept, its mode kept; zond's own
# standard output named by a path (-o /dev/stdout > file) is written, never
# replaced or truncated (QA s13 S F7: /dev/stdout became a regular file)
"$ZOND" export -i zond.db -f folded -o - >folded.want 2>/dev/null
ln -s /proc/self/fd/1 mystdout
"$ZOND" export -i zond.db -f folded -o mystdout >redirected.txt 2>err.txt
check_eq "-o a link to fd 1: the link stays" "$([ -L mystdout ] && echo link)" link
check_same "-o a link to fd 1: written to standard output" redirected.txt folded.want
# (links of the test's own, as /dev/stdout is: a zond that replaced the link
# must not replace the system's)
echo first >appended.txt
"$ZOND" export -i zond.db -f folded -o mystdout >>appended.txt 2>err.txt
check_eq "-o a link to fd 1 >> file: appended" "$(head -1 appended.txt)" first
check_eq "-o a link to fd 1 >> file: all of it" "$(tail -n +2 appended.txt | cmp - folded.want && echo same)" same
ln -s /proc/self/fd/2 mystderr
"$ZOND" export -i zond.db -f folded -o mystderr 2>stderr.txt >/dev/null
check_same "-o a link to fd 2: written to standard error" stderr.txt folded.want
"$ZOND" export -i zond.db -f folded -o /proc/self/fd/1 >procfd.txt 2>err.txt
check_same "-o /proc/self/fd/1: written to standard output" procfd.txt folded.want
mkdir real && echo old >real/out.folded && ln -s real/out.folded linked.folded
"$ZOND" export -i zond.db -f folded -o linked.folded && pass || fail "export -o a link"
check_eq "-o a link: the link stays" "$([ -L linked.folded ] && echo link)" link
check_same "-o a link: its target written" real/out.folded folded.want
echo old >private.folded && chmod 600 private.folded
"$ZOND" export -i zond.db -f folded -o private.folded && pass || fail "export -o a 600 file"
check_eq "-o keeps the mode" "$(stat -c %a private.folded)" 600
echo old >hard.folded && ln hard.folded hard2.folded
"$ZOND" export -i zond.db -f folded -o hard.folded && pass || fail "export -o a hard link"
check_same "-o a file of two names: both see it" hard2.folded folded.want
ln -s real/new.folded dangling.folded
"$ZOND" export -i zond.db -f folded -o dangling.folded && pass || fail "export -o a dangling link"
check_same "-o a link to nothing yet: made where it points" real/new.folded folded.want
long=$(printf '%0250d' 0)
"$ZOND" export -i zond.db -f folded -o "$long" 2>err.txt && pass || fail "export -o a 250-byte name: $(cat err.txt)"
check_same "-o a 250-byte name" "$long" folded.want
rm -f "$long"
# store names: the file of that name, never SQLite's special ones; a name too
# long for the journal refused before the program runs (QA s13 S F4, F9)
"$ZOND" record -q -o :memory: -- "$SHOP" >/dev/null 2>&1 || fail "record -o :memory:"
check_eq "-o :memory: is a file" "$("$ZOND" runs -i ./:memory: 2>&1 | grep -c shop)" 1
"$ZOND" record -q -o file:u.db -- "$SHOP" >/dev/null 2>&1 || fail "record -o file:u.db"
check_eq "-o file:u.db is that file" "$("$ZOND" runs -i ./file:u.db 2>&1 | grep -c shop)$([ -e u.db ] && echo \" and u.db\")" 1
check_error "record -o a name too long for its journal" "would be longer than 255 bytes" \
	"$ZOND" record -q -o "$(printf '%0250d' 0).db" -- "$SHOP"
check_eq "...refused before the program ran" "$(ls | grep -c '^0000')" 0
finish
