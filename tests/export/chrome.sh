#!/bin/sh
# chrome.sh - the Chrome trace event export of the timeline fixture
# (tests/export/fixture.h) read by Python's json module (chrome_check.py:
# the format's grammar, each thread's calls nested as in the fixture) and,
# when NPM_DIR has it (speedscope_install.sh), by speedscope's own importer
# of that format: per thread, every function's self and total time and every
# stack's self time in microseconds, as worked out by hand from the fixture.
#
# Usage: chrome.sh WRITE_FIXTURE WORKDIR NPM_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
write_fixture=$1
work=$2
npm_dir=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$write_fixture" timeline-chrome 0 tl.json || exit 1
check_eq "python json: threads and nested calls" "$(python3 "$here/chrome_check.py" tl.json | tr '\n' '|')" \
"thread 300 300 main|thread 300 301 worker|\
300/300 0 main 0.000 10.000|300/300 1 f 1.000 3.000|300/300 2 g 1.500 1.000|\
300/300 1 f 5.000 4.000|300/300 2 g 6.000 2.000|300/300 3 f 6.500 1.000|300/300 2 g 8.000 0.500|\
300/301 0 worker 2.000 4.000|300/301 1 f 3.000 2.000|\
events 300/300 7|events 300/301 2|"

release=$npm_dir/node_modules/speedscope/dist/release
if ! command -v node >/dev/null 2>&1 || ! [ -d "$release" ]; then
	echo "note: speedscope's importer not run (node or $release missing)"
	finish
	exit
fi
check_eq "speedscope: per thread, functions and stacks in us" \
	"$(node "$here/speedscope_load.mjs" "$release" tl.json 2>&1 | tr '\n' '|')" \
"group tl.json|\
profile ./timeline (pid 300), main (tid 300) unit microseconds total 10|\
frame f self 4.5 total 7|frame g self 2.5 total 3.5|frame main self 3 total 10|\
stack main 3|stack main;f 3.5|stack main;f;g 2.5|stack main;f;g;f 1|\
profile ./timeline (pid 300), worker (tid 301) unit microseconds total 4|\
frame f self 2 total 2|frame worker self 2 total 4|\
stack worker 2|stack worker;f 2|"
finish
