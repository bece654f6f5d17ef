# tmpfs.sh - sourced by the runtime's shell tests.
#
# mount_tmpfs DIR SIZE: a tmpfs of SIZE (mount's size=, e.g. 2m) at DIR, unmounted when the
# test exits; status 1 when this user may not mount one (not root, container limits): the
# caller skips that part.
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o size="$2" zondtest "$1" 2>/dev/null || return 1
	# shellcheck disable=SC2064
	trap "umount '$1'" EXIT
}
