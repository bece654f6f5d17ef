"""pty_run.py - runs a command on a terminal of its own, as from a user's
shell, and keeps every byte the terminal received.

usage: pty_run.py [--stderr FILE | --stderr-pipe FILE] TRANSCRIPT GO WHEN -- CMD ARGS...

The command leads a new session whose controlling terminal is a fresh pty,
in the foreground; stdin, stdout and stderr are the pty, but stderr goes to
FILE with --stderr, or through a pipe copied into FILE with --stderr-pipe.
GO (a file) is created once WHEN holds:
  re:REGEX    the bytes the terminal received so far match REGEX
  file:PATH   PATH exists, and 3 s (six progress intervals: room for a loaded machine) have passed
When WHEN has not held after 60 s, GO is created all the same and the
result says "timeout".  Prints how the command ended ("exit N", "signal N")
and writes what the terminal received to TRANSCRIPT, as received.
"""
import os
import pty
import re
import select
import sys
import time

args = sys.argv[1:]
err_file = err_pipe = None
if args[0] == "--stderr":
    err_file, args = args[1], args[2:]
elif args[0] == "--stderr-pipe":
    err_pipe, args = args[1], args[2:]
transcript, go, when = args[0], args[1], args[2]
cmd = args[4:]

pipe_r = None
if err_pipe:
    pipe_r, pipe_w = os.pipe()
pid, master = pty.fork()
if pid == 0:
    if err_file:
        fd = os.open(err_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 2)
    elif err_pipe:
        os.dup2(pipe_w, 2)
    os.execvp(cmd[0], cmd)
if err_pipe:
    os.close(pipe_w)

received, errbytes = b"", b""
start, ready_at, went, timeout = time.time(), None, False, False
open_fds = [master] + ([pipe_r] if pipe_r is not None else [])
while open_fds:
    for fd in select.select(open_fds, [], [], 0.05)[0]:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: every writer of the terminal is gone
            data = b""
        if not data:
            open_fds.remove(fd)
        elif fd == master:
            received += data
        else:
            errbytes += data
    if went:
        continue
    if when.startswith("re:"):
        hold = re.search(when[3:].encode(), received) is not None
    else:
        if ready_at is None and os.path.exists(when[5:]):
            ready_at = time.time()
        hold = ready_at is not None and time.time() - ready_at >= 3.0
    if hold or time.time() - start > 60:
        timeout = not hold
        open(go, "w").close()
        went = True

_, status = os.waitpid(pid, 0)
with open(transcript, "wb") as f:
    f.write(received)
if err_pipe:
    with open(err_pipe, "wb") as f:
        f.write(errbytes)
if timeout:
    print("timeout")
elif os.WIFSIGNALED(status):
    print("signal %d" % os.WTERMSIG(status))
else:
    print("exit %d" % os.WEXITSTATUS(status))
