#!/bin/sh
# run_case.sh EXPECTED RAWDUMP RUNTIME [options] -- PROGRAM [ARGS...]
#
# Runs PROGRAM with the runtime preloaded and ZOND_DIR set, then compares
# "status N", the program's stdout and rawdump's text of the raw files with
# EXPECTED.  Options:
#   --linked         PROGRAM is linked with libzond: do not preload it
#   --no-dir         leave ZOND_DIR unset (nothing may be recorded)
#   --trigger SYM    set ZOND_TRIGGER to PROGRAM's function SYM (found with nm)
#   --filter SYM     exclude PROGRAM's function SYM through a ZOND_FILTER file
#   -p, -m           passed to rawdump
set -u
expected=$1 rawdump=$2 runtime=$3
shift 3
preload=$runtime use_dir=1 dump_opts= triggers= filters=
while [ "$1" != "--" ]; do
	case $1 in
	--linked) preload= ;;
	--no-dir) use_dir= ;;
	--trigger) triggers=$2; shift ;;
	--filter) filters="$filters $2"; shift ;;
	*) dump_opts="$dump_opts $1" ;;
	esac
	shift
done
shift
prog=$(realpath "$1")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/raw"

# "ADDRESS SIZE" (hex) of one of the program's function symbols
symbol() {
	nm -S "$prog" | awk -v s="$1" '$4 == s { print $1, $2; exit }'
}

if [ -n "$triggers" ]; then
	read -r addr size <<-END
	$(symbol "$triggers")
	END
	ZOND_TRIGGER="$addr:$prog" && export ZOND_TRIGGER
fi
for f in $filters; do
	read -r addr size <<-END
	$(symbol "$f")
	END
	printf '%x %x %s\n' $((0x$addr)) $((0x$addr + 0x$size)) "$prog" >>"$work/filter"
	ZOND_FILTER=$work/filter && export ZOND_FILTER
done

{
	if [ -n "$use_dir" ]; then
		ZOND_DIR=$work/raw LD_PRELOAD=$preload "$@" 2>"$work/stderr"
	else
		env -u ZOND_DIR LD_PRELOAD=$preload "$@" 2>"$work/stderr"
	fi
	echo "status $?"
} >"$work/output"
{
	tail -n 1 "$work/output"
	echo "--- output"
	sed '$d' "$work/output"
	echo "--- profile"
	"$rawdump" $dump_opts "$work/raw" || echo "rawdump failed"
} >"$work/actual" 2>&1
# ZOND_UPDATE_EXPECTED=1: write the expected file from this run (check it by eye!)
[ "${ZOND_UPDATE_EXPECTED:-}" = 1 ] && cp "$work/actual" "$expected"

if ! diff -u "$expected" "$work/actual"; then
	echo "--- program stderr"
	cat "$work/stderr"
	exit 1
fi
