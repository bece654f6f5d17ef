#!/bin/sh
# speedscope.sh - the speedscope export read by speedscope's own importer
# (npm package speedscope, installed into NPM_DIR by speedscope_install.sh):
# for the contexts
# fixture (tests/export/fixture.h), one profile per thread with its unit and
# total, every function's self and total weight, and every stack with its
# self weight exactly as the fixture's table; counts only; a run without
# contexts (one-frame samples of self cost).
#
# Usage: speedscope.sh WRITE_FIXTURE WORKDIR NPM_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
write_fixture=$1
work=$2
npm_dir=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "SKIP: node and npm are not installed (scripts/install-deps installs them)"
	exit 77
fi
release=$npm_dir/node_modules/speedscope/dist/release
load() { node "$here/speedscope_load.mjs" "$release" "$1" 2>&1; }

"$write_fixture" contexts-speedscope 2 ctx2.json || exit 1
check_eq "time: profiles, functions and stacks of the fixture" "$(load ctx2.json | tr '\n' '|')" \
"group zond run 8: ./paths|\
profile main (pid 200, tid 200) unit nanoseconds total 1000|\
frame A self 50 total 350|frame B self 50 total 450|frame C self 200 total 700|\
frame X self 200 total 200|frame Y self 300 total 300|frame f self 40 total 100|\
frame g self 60 total 90|frame main self 100 total 1000|\
stack main 100|stack main;A 50|stack main;A;C 100|stack main;A;C;X 200|stack main;B 50|\
stack main;B;C 100|stack main;B;C;Y 300|stack main;f 10|stack main;f;g 20|stack main;f;g;f 30|\
stack main;f;g;f;g 40|\
profile worker (pid 200, tid 201) unit nanoseconds total 200|\
frame C self 40 total 140|frame X self 100 total 100|frame worker self 60 total 200|\
stack worker 60|stack worker;C 40|stack worker;C;X 100|"
check_eq "frames: file and line" \
	"$(grep -c '{"name": "X", "file": "paths.c", "line": 50}' ctx2.json)" 1

"$write_fixture" contexts-speedscope 0 ctx0.json || exit 1
check_eq "counts only: calls, unit none" "$(load ctx0.json | grep -v '^frame' | tr '\n' '|')" \
"group zond run 8: ./paths|\
profile main (pid 200, tid 200) unit none total 20|\
stack main 1|stack main;A 2|stack main;A;C 2|stack main;A;C;X 4|stack main;B 1|stack main;B;C 3|\
stack main;B;C;Y 3|stack main;f 1|stack main;f;g 1|stack main;f;g;f 1|stack main;f;g;f;g 1|\
profile worker (pid 200, tid 201) unit none total 4|\
stack worker 1|stack worker;C 1|stack worker;C;X 2|"

"$write_fixture" speedscope 1 flat.json || exit 1
check_eq "no contexts: one-frame samples of self cost" "$(load flat.json | tr '\n' '|')" \
"group zond run 7: ./app --fast|\
profile app (pid 100, tid 100) unit nanoseconds total 10000|\
frame helper self 2000 total 2000|frame main self 1000 total 1000|frame parse self 1000 total 1000|\
frame work self 6000 total 6000|\
stack helper 2000|stack main 1000|stack parse 1000|stack work 6000|\
profile worker (pid 100, tid 101) unit nanoseconds total 3500|\
frame fact self 2400 total 2400|frame helper self 600 total 600|\
frame worker_main self 500 total 500|\
stack fact 2400|stack helper 600|stack worker_main 500|"
finish
