#!/bin/sh
# Static programs: LD_PRELOAD cannot reach them, so one without the runtime
# is refused with a clear message, and one linked with -lzond is recorded.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

check_error "static without runtime" "is statically linked without zond's runtime" \
	"$ZOND" record -o s.db -- "$TINY_STATIC"
"$ZOND" record -q -o s.db -- "$TINY_STATIC_ZOND"
check_eq "static with -lzond: exit status" "$?" 0
"$ZOND" dump -i s.db >dump.txt
printf 'threads 1\ncall - -> main calls=1\ncall main -> add calls=3\ncontext main calls=1\ncontext main;add calls=3\nfunction add calls=3\nfunction main calls=1\n' >want.txt
check_same "static with -lzond: profile" dump.txt want.txt
finish
