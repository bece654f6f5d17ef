#!/bin/sh
# base_names.sh: filter for rawdump's output in the tests.  Callers are named
# after the calling module, "[/path/prog]"; build trees differ from machine to
# machine, so they are renamed to the base name, "[prog]".  rawdump sorts its
# lines by the full path, so the rename can change their order: each run of
# lines of one kind ("call", "function", "stack", ...) is sorted again, in
# byte order, after the rename, and so are the processes' dumps of rawdump -p
# (each from its "threads" line on; the lines before the first stay first).
sed 's|\[/[^]]*/\([^]/]*\)\]|[\1]|g' |
	awk '{ if ($1 != kind) { run++; kind = $1 } printf "%08d %s\n", run, $0 }' |
	LC_ALL=C sort | cut -d ' ' -f 2- |
	awk '$1 == "threads" { if (n++) print "1 " block; block = $0; next }
	     n { block = block "\001" $0; next }
	     { printf "0 %08d %s\n", NR, $0 }
	     END { if (n) print "1 " block }' |
	LC_ALL=C sort | sed 's/^0 [0-9]* //; s/^1 //' | tr '\001' '\n'
