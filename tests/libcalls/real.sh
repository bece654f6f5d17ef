#!/bin/sh
# real.sh ZOND WORKDIR - zond libcalls on programs from the distribution, as installed:
# output byte-identical with and without zond, exact counts of calls that the
# input fixes, and a clear error for a static program.
set -u
zond=$1 work=$2
. "$(dirname "$0")/../cli/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# 20000 distinct lines in a fixed shuffled order
i=0
while [ $i -lt 20000 ]; do echo "line $(( (i * 7919) % 20000 )) x"; i=$((i + 1)); done >in.txt
sort in.txt >plain.txt
"$zond" libcalls -q -o db -- sort in.txt >zond.txt
check_eq "sort status" $? 0
check_same "sort output" plain.txt zond.txt
"$zond" dump -i db >dump.txt
# one fwrite_unlocked per output line, one memchr per line read plus the end
check_eq "fwrite_unlocked" "$(grep -x 'function fwrite_unlocked calls=[0-9]*' dump.txt)" \
	"function fwrite_unlocked calls=20000"
check_eq "memchr" "$(grep -x 'function memchr calls=[0-9]*' dump.txt)" "function memchr calls=20001"
check_eq "collector" "$("$zond" runs -i db | grep -c libcalls)" 1

# only libc's str* functions
"$zond" libcalls -q -o db2 -l 'libc.so*' -f 'str*' -- sort in.txt >zond2.txt
check_same "filtered sort output" plain.txt zond2.txt
check_eq "only str*" "$("$zond" dump -i db2 | grep '^function' | grep -vc '^function str')" 0

# counting only
"$zond" libcalls -q --no-time -o db3 -- sort in.txt >zond3.txt
check_same "--no-time sort output" plain.txt zond3.txt
check_eq "--no-time fwrite_unlocked" \
	"$("$zond" dump -i db3 | grep -x 'function fwrite_unlocked calls=[0-9]*')" \
	"function fwrite_unlocked calls=20000"

# a script: its interpreter is profiled
printf '#!/bin/sh\necho hi\n' >script.sh && chmod +x script.sh
check_eq "script output" "$("$zond" libcalls -q -o db4 -- ./script.sh)" hi

if [ -n "${TINY_STATIC:-}" ]; then
	check_error "static program" "statically linked" "$zond" libcalls -o db5 -- "$TINY_STATIC"
fi
check_error "no program" "no program to run" "$zond" libcalls -o db5
check_error "missing program" "program not found" "$zond" libcalls -o db5 -- ./nonexistent
finish
