#!/bin/sh
# Static programs: LD_PRELOAD cannot reach them, so one without the runtime
# is refused with a clear message naming the flags to link it with, and one
# linked with -lzond is recorded.  `zond config --static --libs` links -static
# and -static-pie programs (no rpath: glibc's static-pie start-up dies of one,
# before main); a program that died before zond's runtime started in it is
# said to have, with its signal, and zond ends as it did.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

check_error "static without runtime" "is statically linked without zond's runtime" \
	"$ZOND" record -o s.db -- "$TINY_STATIC"
check_error "static without runtime: the flags" "link it with \$(zond config --static --libs)" \
	"$ZOND" record -o s.db -- "$TINY_STATIC"
"$ZOND" record -q -o s.db -- "$TINY_STATIC_ZOND"
check_eq "static with -lzond: exit status" "$?" 0
"$ZOND" dump -i s.db >dump.txt
printf 'threads 1\ncall - -> main calls=1\ncall main -> add calls=3\ncontext main calls=1\ncontext main;add calls=3\nfunction add calls=3\nfunction main calls=1\n' >want.txt
check_same "static with -lzond: profile" dump.txt want.txt

libs=$("$ZOND" config --static --libs) || fail "config --static --libs"
case $libs in
*rpath*) fail "config --static --libs has an rpath: $libs" ;;
*/libzond.a*) pass ;;
*) fail "config --static --libs names no libzond.a: $libs" ;;
esac
check_error "config --static for a bare-metal target" "--static is for the Linux runtime" \
	"$ZOND" config --static --target rv32imac --libs
tiny=$here/progs/tiny.c
# shellcheck disable=SC2086 # the flags are words
for link in -static -static-pie; do
	if [ $link = -static-pie ] && ! echo 'int main(void){return 0;}' | cc -static-pie -x c -o probe - 2>/dev/null; then
		echo "no -static-pie link here: that part is skipped"
		continue
	fi
	cc -O0 $("$ZOND" config --cflags) $link -o "t$link" "$tiny" $libs || { fail "build $link"; continue; }
	"./t$link"
	check_eq "$link with config --static --libs: runs" "$?" 0
	rm -f l.db
	"$ZOND" record -q -o l.db -- "./t$link"
	check_eq "$link with config --static --libs: recorded" "$?" 0
	"$ZOND" dump -i l.db >dump.txt
	check_same "$link with config --static --libs: profile" dump.txt want.txt
	# the dynamic flags' rpath in a static-pie program: glibc's start-up dies of it
	[ $link = -static-pie ] || continue
	dir=$(dirname "${libs%% *}")
	# (what else the archive needs: the words after it, a sanitizer build's -lubsan)
	cc -O0 $("$ZOND" config --cflags) $link -o rp "$tiny" -L"$dir" -Wl,-rpath,"$dir" -lzond \
		${libs#* } || {
		fail "build static-pie with an rpath"
		continue
	}
	./rp 2>/dev/null
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "this C library starts a static-pie program with an rpath: that part is skipped"
		continue
	fi
	# (zond dies of the program's signal: the shell may add its own line)
	"$ZOND" record -o rp.db -- ./rp >/dev/null 2>err.txt
	check_eq "died before the runtime started: zond's status is the program's" "$?" "$rc"
	check_eq "died before the runtime started: said so" "$(grep -c \
		"no run stored: .*before zond's runtime started in it (before main): nothing of it ran under zond" \
		err.txt)" 1
	check_eq "died before the runtime started: its signal named, the flags" "$(grep -c \
		"killed by signal $((rc - 128)) .*config --static --libs" err.txt)" 1
	check_eq "died before the runtime started: instrumentation not blamed" \
		"$(grep -c finstrument err.txt)" 0
done
finish
