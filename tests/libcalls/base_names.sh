#!/bin/sh
# base_names.sh: filter for rawdump's output in the tests.  Callers are named
# after the calling module, "[/path/prog]"; build trees differ from machine to
# machine, so they are renamed to the base name, "[prog]".  rawdump sorts its
# lines by the full path, so the rename can change their order: each run of
# lines of one kind ("call", "function", "stack", ...) is sorted again, in
# byte order, after the rename.
sed 's|\[/[^]]*/\([^]/]*\)\]|[\1]|g' |
	awk '{ if ($1 != kind) { run++; kind = $1 } printf "%08d %s\n", run, $0 }' |
	LC_ALL=C sort | cut -d ' ' -f 2-
