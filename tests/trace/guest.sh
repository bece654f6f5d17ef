# guest.sh - sourced by harden.sh and fork.sh with NAME set: their arguments (ZOND ARCH
# WORKDIR SRCDIR), the guest's compiler and QEMU (exit 77 when missing), a clean work
# directory WORKDIR/NAME-ARCH, fail() and calls().
set -u
zond=$1 arch=$2 dir=$3/$name-$2 src=$4/scenarios
cc=$arch-linux-gnu-gcc
[ $arch = x86_64 ] && cc=gcc
qemu=qemu-$arch
command -v "$cc" >/dev/null && command -v $qemu >/dev/null || exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db ./*.ztrace ./*.ztrace.*
status=0
fail() { echo "FAIL ($arch): $*"; status=1; }

# calls FUNC DB [THREAD]: FUNC's calls in the store's last run (one thread: PID/TID).
calls() { "$zond" dump -i "$2" ${3:+--tid "$3"} | sed -n "s/^function $1 calls=\([0-9]*\).*/\1/p"; }
