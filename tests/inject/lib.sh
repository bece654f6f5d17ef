# lib.sh - sourced by the inject tests run on programs that count their own
# calls: fail, compare_counts against zond dump, and code (patched yet?).  Sets
# status=0.
status=0
fail() { echo "FAIL: $*"; status=1; }

# compare_counts OUT DUMP: every "count NAME N" of OUT is "function NAME calls=N" in DUMP.
compare_counts() {
	grep '^count ' "$1" | while read -r _ name n; do
		grep -qx "function $name calls=$n" "$2" ||
			{ echo "FAIL: $name: program counted $n, zond: $(grep " $name " "$2")"; exit 1; }
	done || status=1
}

# code PID EXE [FUNC]: "same" when FUNC's (work's) first bytes in process PID are the
# file's, else "patched": zond has attached and patched it (waited for by the tests that
# must act while it measures, as no sleep can be long enough on a loaded machine)
code() {
	python3 - "$1" "$2" "${3:-work}" <<'PY'
import subprocess, sys
pid, exe, func = int(sys.argv[1]), sys.argv[2], sys.argv[3]
base = next(int(l.split()[0].split("-")[0], 16) for l in open(f"/proc/{pid}/maps")
            if l.split()[-1] == exe and int(l.split()[2], 16) == 0)
addr = next(int(f[0], 16) for f in (l.split() for l in subprocess.check_output(
            ["nm", exe], text=True).splitlines()) if len(f) == 3 and f[2] == func)
with open(f"/proc/{pid}/mem", "rb") as m:
    m.seek(base + addr)
    live = m.read(8)
print("same" if live == open(exe, "rb").read()[addr:addr + 8] else "patched")
PY
}
