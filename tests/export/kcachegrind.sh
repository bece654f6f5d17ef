#!/bin/sh
# kcachegrind.sh - KCachegrind loads the Callgrind export without complaint.
#
# Usage: kcachegrind.sh WRITE_FIXTURE WORKDIR
#
# KCachegrind is a GUI: it runs headless (offscreen), and once it reports
# the function it selected after loading, it is stopped.  Loading problems
# show on stderr as 'Loading "FILE" : LINE : message'.
set -u
write_fixture=$1
dir=$2
status=0

check() {
	nevents=$1
	file=$dir/kcachegrind-$nevents.out
	log=$dir/kcachegrind-$nevents.log
	"$write_fixture" callgrind "$nevents" "$file" || return 1
	: >"$log"
	QT_QPA_PLATFORM=offscreen timeout -k 5 30 dbus-run-session -- kcachegrind "$file" \
		>"$log" 2>&1 &
	runner=$!
	i=0
	while [ $i -lt 300 ] && ! grep -q '^Selected' "$log"; do
		sleep 0.1
		i=$((i + 1))
	done
	# Stop the kcachegrind this test started: the child of its dbus-run-session.
	session=$(pgrep -P "$runner")
	[ -n "$session" ] && app=$(pgrep -x -P "$session" kcachegrind) && kill "$app"
	wait "$runner"
	if grep -q '^Loading' "$log"; then
		echo "kcachegrind complained about the $nevents-event export:"
		grep '^Loading' "$log"
		return 1
	fi
	# The function KCachegrind picks first is the one of highest inclusive cost.
	if ! grep -q '^Selected  "main"' "$log"; then
		echo "kcachegrind did not load the $nevents-event export:"
		cat "$log"
		return 1
	fi
	echo "kcachegrind loaded the $nevents-event export"
}

for n in 0 1 2; do
	check "$n" || status=1
done
exit $status
