#!/bin/sh
# pprof.sh - the pprof export read by go tool pprof: for the contexts
# fixture (tests/export/fixture.h), every function's flat and cum figures in
# time, cycles and calls are those of the fixture's table, the totals are the
# run's, and the stacks (-traces) are exactly the fixture's contexts per
# thread; a run without contexts gives each function its self cost.
#
# Usage: pprof.sh WRITE_FIXTURE WORKDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
write_fixture=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

if ! command -v go >/dev/null 2>&1; then
	echo "SKIP: go is not installed (scripts/install-deps installs golang-go)"
	exit 77
fi
# go tool pprof is part of the Go distribution: no network, no module cache;
# its caches and ~/pprof stay in the work directory.
export HOME="$work" GOCACHE="$work/gocache" GOFLAGS=-mod=mod GOTOOLCHAIN=local \
	PPROF_TMPDIR="$work/pprof"

# "name flat cum" per function, sorted by name, from go tool pprof -top.
top() {
	go tool pprof -top -unit=ns -nodecount=1000 -sample_index="$2" "$1" 2>top.err |
		awk 'f { v1 = $1; v4 = $4; sub(/[a-z]+$/, "", v1); sub(/[a-z]+$/, "", v4)
			 print $6, v1, v4 } /^ *flat *flat%/ { f = 1 }' | sort | tr '\n' '|'
}
# The profile's total as pprof states it ("... of 1200ns total").
total() {
	go tool pprof -top -sample_index="$2" "$1" 2>/dev/null |
		sed -n 's/^Showing nodes accounting for .* of \([0-9.]*\)[a-z]* total$/\1/p'
}
# One "thread:root;...;leaf value" per sample of go tool pprof -traces, sorted.
traces() {
	go tool pprof -traces -unit=ns -sample_index="$2" "$1" 2>/dev/null | awk '
		function flush() { if (n) { s = thread ":" frame[n]
			for (i = n - 1; i >= 1; i--) s = s ";" frame[i]
			print s, value }; n = 0 }
		/^-----/ { flush(); in_samples = 1; next }
		!in_samples { next }
		$1 == "thread:" { thread = $2; next }
		$1 ~ /:$/ { next }
		NF == 2 { v = $1; sub(/[a-z]+$/, "", v); value = v; frame[n = 1] = $2; next }
		NF == 1 && n { frame[++n] = $1 }
		END { flush() }' | sort | tr '\n' '|'
}

# The contexts fixture's table, summed per function (flat = self, cum =
# inclusive of the outermost activations), in ns; cycles are 3 times these.
want_time="A 50 350|B 50 450|C 240 840|X 300 300|Y 300 300|f 40 100|g 60 90|main 100 1000|worker 60 200|"
want_cycles="A 150 1050|B 150 1350|C 720 2520|X 900 900|Y 900 900|f 120 300|g 180 270|main 300 3000|worker 180 600|"
# Calls: flat = the function's calls; cum = the calls of every context at or below it.
want_calls="A 2 8|B 1 7|C 6 15|X 6 6|Y 3 3|f 2 4|g 2 3|main 1 20|worker 1 4|"

"$write_fixture" contexts-pprof 2 ctx2.pb.gz || exit 1
check_eq "gzip stream" "$(gzip -t ctx2.pb.gz && echo ok)" ok
check_eq "time: flat and cum per function" "$(top ctx2.pb.gz time)" "$want_time"
check_eq "time: nothing on stderr" "$(grep -v '^Main binary filename not available' top.err)" ""
check_eq "time: total" "$(total ctx2.pb.gz time)" 1200
check_eq "cycles: flat and cum per function" "$(top ctx2.pb.gz cycles)" "$want_cycles"
check_eq "cycles: total" "$(total ctx2.pb.gz cycles)" 3600
check_eq "calls: flat and cum per function" "$(top ctx2.pb.gz calls)" "$want_calls"
check_eq "calls: total" "$(total ctx2.pb.gz calls)" 24
check_eq "default sample type: the first event" \
	"$(go tool pprof -raw ctx2.pb.gz 2>/dev/null | grep -c 'time/nanoseconds\[dflt\]')" 1
check_eq "stacks: the fixture's contexts per thread, self time" "$(traces ctx2.pb.gz time)" \
	"main:main 100|main:main;A 50|main:main;A;C 100|main:main;A;C;X 200|main:main;B 50|main:main;B;C 100|main:main;B;C;Y 300|main:main;f 10|main:main;f;g 20|main:main;f;g;f 30|main:main;f;g;f;g 40|worker:worker 60|worker:worker;C 40|worker:worker;C;X 100|"
check_eq "stacks: calls per context" "$(traces ctx2.pb.gz calls)" \
	"main:main 1|main:main;A 2|main:main;A;C 2|main:main;A;C;X 4|main:main;B 1|main:main;B;C 3|main:main;B;C;Y 3|main:main;f 1|main:main;f;g 1|main:main;f;g;f 1|main:main;f;g;f;g 1|worker:worker 1|worker:worker;C 1|worker:worker;C;X 2|"
check_eq "locations: function, file and line" \
	"$(go tool pprof -raw ctx2.pb.gz 2>/dev/null | grep -c '^ *4: 0x1400 M=1 X paths.c:50 s=50$')" 1

# A run whose command and other fields the store does not know (NULL): read as any other
# (QA s15 W2 F4: the pprof export crashed); every format writes it
for f in callgrind dot folded json pprof speedscope; do
	"$write_fixture" "unknown-$f" 2 "unknown.$f" || fail "unknown fields: $f: status $?"
done
"$write_fixture" pprof 2 known.pb.gz || exit 1
check_eq "unknown fields: time per function as when known" "$(top unknown.pprof time)" \
	"$(top known.pb.gz time)"

# A counts-only run: the one sample type is calls.
"$write_fixture" contexts-pprof 0 ctx0.pb.gz || exit 1
check_eq "counts only: calls per function" "$(top ctx0.pb.gz calls)" "$want_calls"
check_eq "counts only: one sample type" \
	"$(go tool pprof -raw ctx0.pb.gz 2>/dev/null | sed -n '/^Samples:/{n;p}' | tr -s ' ')" \
	"calls/count[dflt]"

# Without contexts (fixture.h's first profile): one-frame samples of self cost.
"$write_fixture" pprof 1 flat.pb.gz || exit 1
check_eq "no contexts: flat = cum = self" "$(top flat.pb.gz time)" \
	"fact 2400 2400|helper 2600 2600|main 1000 1000|parse 1000 1000|work 6000 6000|worker_main 500 500|"
check_eq "no contexts: calls" "$(top flat.pb.gz calls)" \
	"fact 5 5|helper 11 11|main 1 1|parse 2 2|work 4 4|worker_main 1 1|"
check_eq "no contexts: one frame per sample" "$(traces flat.pb.gz time)" \
	"app:helper 2000|app:main 1000|app:parse 1000|app:work 6000|worker:fact 2400|worker:helper 600|worker:worker_main 500|"
finish
