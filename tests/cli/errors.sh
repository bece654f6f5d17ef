#!/bin/sh
# Bad input to every command: one clear line on stderr and a non-zero exit.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

check_error "report without a store" "zond.db: no such file" "$ZOND" report
check_error "runs without a store" "nope.db: no such file" "$ZOND" runs -i nope.db
echo "just text" >text.db
check_error "a text file as store" "text.db: not a zond profile store" "$ZOND" report -i text.db
: >empty.db
check_error "an empty store" "empty.db" "$ZOND" report -i empty.db
sqlite3 other.db "create table t(x); insert into t values (1);"
check_error "another sqlite file" "other.db: not a zond profile store" "$ZOND" report -i other.db
check_error "program not found" "no-such-program: program not found" \
	"$ZOND" record -o rec.db -- no-such-program
check_error "no program" "no program to run" "$ZOND" record -o rec.db
check_error "unknown command" "'frobnicate' is not a zond command" "$ZOND" frobnicate
check_error "unknown format" "unknown format 'xml'" "$ZOND" export --format xml
check_error "bad sort key" "unknown sort key 'speed'" "$ZOND" report -s speed
check_error "bad limit" "--limit wants a number" "$ZOND" report -n many
printf '#!/bin/sh\necho hi\n' >script.sh && chmod +x script.sh
check_error "trigger on a script" "script.sh: not an ELF file" "$ZOND" record -o rec.db -T main -- ./script.sh

check_error "an empty store name" "an empty store file name" "$ZOND" report -i ''
check_error "an empty output name" "an empty output file name" "$ZOND" export -f json -o ''
# A real store, then wrong references into it.
"$ZOND" record -q -o good.db -- "$SHOP" >/dev/null 2>&1
check_error "unknown run" "no run 99" "$ZOND" report -i good.db -r 99
check_error "unknown thread" "no thread '1'" "$ZOND" report -i good.db --tid 1
check_error "unknown event" "no event 'cycles'" "$ZOND" report -i good.db -e cycles
check_error "unknown function" "no function 'no_such_fn'" "$ZOND" graph -i good.db no_such_fn
check_error "trigger on an unknown function" "no function 'no_such_fn'" \
	"$ZOND" record -o rec.db -T no_such_fn -- "$SHOP"
for share in nan -5 200 inf x; do
	check_error "export --min-share $share" "--min-share wants 0..100, not '$share'" \
		"$ZOND" export -i good.db --format dot --min-share "$share"
done
check_error "export --min-share, not dot" "--min-share is for dot only, not folded" \
	"$ZOND" export -i good.db --format folded --min-share 5
check_error "export to a bad path" "/nonexistent/x.out" \
	"$ZOND" export -i good.db --format json -o /nonexistent/x.out

# recover of a directory whose raw file is not one: one line naming it, the file kept
mkdir -p kept && echo "not raw data" >kept/1.0.zraw
check_error "recover a bad raw file" "kept/1.0.zraw: truncated" "$ZOND" recover -o rec.db kept
check_eq "recover keeps the bad raw file" "$(cat kept/1.0.zraw)" "not raw data"
# a directory recover finds nothing to store in stays, whatever it holds
mkdir -p empty.dir && touch empty.dir/mine
check_error "recover an empty directory" "is it a directory zond kept?" "$ZOND" recover -o rec.db empty.dir
check_eq "recover leaves a directory it stored nothing from" "$(ls empty.dir)" "mine"

# A write cut short (here sqlite3 killed in it) leaves a journal that the next opener rolls
# back; a user who may only read the store cannot, and is told so, not SQLite's "attempt to
# write a readonly database" or "disk I/O error" (a reading command writes nothing).  Root
# may write anything: the reader is nobody then; a user who is not is the reader, with the
# store read-only to them, or writable in a directory that is not (the journal stays).
as_user() {
	if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi
}
mkdir hot && cp good.db hot/zond.db && mkfifo sql.fifo
sqlite3 hot/zond.db <sql.fifo >/dev/null 2>&1 &
writer=$!
exec 3>sql.fifo
echo "PRAGMA cache_size = 1; BEGIN; CREATE TABLE pad(x); INSERT INTO pad VALUES (randomblob(300000));" >&3
for i in 1 2 3 4 5 6 7 8 9 10; do [ -s hot/zond.db-journal ] && break; sleep 0.2; done
kill -9 $writer
wait $writer 2>/dev/null
exec 3>&-
# first the store writable to the reader in a directory that is not, then read-only to them
if [ "$(id -u)" = 0 ]; then chmod 666 hot/zond.db hot/zond.db-journal && chmod 755 hot; else chmod 644 hot/zond.db && chmod 555 hot; fi
if [ -s hot/zond.db-journal ] && as_user test -r "$PWD/hot/zond.db" 2>/dev/null &&
	! as_user test -w "$PWD/hot"; then
	want="hot/zond.db: an interrupted write left hot/zond.db-journal, which a user who may write the store and its directory must roll back first"
	check_error "a reader finds a journal it cannot remove" "$want" as_user "$ZOND" runs -i hot/zond.db
	chmod 444 hot/zond.db
	check_error "a reader finds a journal it cannot roll back" "$want" as_user "$ZOND" report -i hot/zond.db
	chmod 644 hot/zond.db && chmod 755 hot
	"$ZOND" runs -i hot/zond.db >/dev/null 2>err.txt || fail "the owner's read: $(cat err.txt)"
	check_eq "the owner's read rolled it back" "$(ls hot)" "zond.db"
	as_user "$ZOND" report -i hot/zond.db >/dev/null 2>err.txt || fail "read after: $(cat err.txt)"
else
	echo "note: no hot journal, or no other user to read as: a journal left is not checked"
fi
chmod 755 hot

# A bad option: one line naming it (getopt's own message was a second line)
for c in record libcalls info report graph annotate runs diff export dump recover config inject; do
	check_error "$c --bogus" "zond $c: unknown option '--bogus'" "$ZOND" $c --bogus
done
check_error "trace record --bogus" "zond trace: unknown option '--bogus'" "$ZOND" trace record --bogus
check_error "an unknown letter in a group" "unknown option '-z'" "$ZOND" graph --raw -tz
check_error "a missing value" "zond report: '-r' wants a value" "$ZOND" report -r
check_error "a missing long value" "zond record: '--threads' wants a value" "$ZOND" record --threads
# a bad number quotes the value, as every option does
check_error "a bad sample period" "zond record: --sample-period wants a number of ns from 10000 to 10000000000, not '5x'" \
	"$ZOND" record --sample-period 5x -- true
check_error "a value to a flag" "zond report: '--raw' takes no value" "$ZOND" report --raw=3
"$ZOND" help --help | grep -q "usage: zond help" && pass || fail "help --help"

# Every command answers --help with exit 0.
for c in record report graph runs export dump recover; do
	if "$ZOND" "$c" --help | grep -q "usage: zond $c"; then pass; else fail "$c --help"; fi
	if "$ZOND" help "$c" | grep -q "usage: zond $c"; then pass; else fail "help $c"; fi
done
# an empty campaign name: no -C could name its runs (QA s13 S)
for c in record libcalls inject recover "trace record"; do
	check_error "$c -c ''" "-c wants a campaign name, not ''" "$ZOND" $c -c '' -- /bin/true
done
# a run and a campaign at once: a usage error, exit 2 as every other (QA s13 S)
for c in report graph export dump annotate; do
	"$ZOND" $c -r 1 -C c0 >/dev/null 2>err.txt
	check_eq "$c -r 1 -C c0: exit 2, one line" "$? $(wc -l <err.txt) $(grep -c 'not both' err.txt)" "2 1 1"
done
# a campaign's threads are all its runs': its count named as the campaign's
"$ZOND" record -q -o camp.db -c two -- "$SHOP" >/dev/null 2>&1 &&
	"$ZOND" record -q -o camp.db -c two -- "$SHOP" >/dev/null 2>&1 || fail "record -c two"
check_error "--tid of a campaign" "campaign two has 2 threads 'shop': give PID/TID" \
	"$ZOND" report -i camp.db -C two --tid shop
finish
