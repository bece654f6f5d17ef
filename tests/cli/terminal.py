"""terminal.py - what a terminal shows of a transcript (pty_run.py), and the
transcript without zond's progress line.

usage: terminal.py screen FILE      the rows a terminal shows at the end, as a
                                    plain terminal draws them: "\\r" to column 0,
                                    "\\n" down a row, other bytes over what is
                                    there; trailing spaces and empty rows dropped
       terminal.py strip CMD FILE   FILE without the progress line's bytes of
                                    'zond CMD' (each redraw, each erasing), as
                                    progress.h says they are written; "draws N" on
                                    stderr
"""
import re
import sys


def screen(data):
    rows, row, col = [[]], 0, 0
    for b in data.decode("utf-8", "replace"):
        if b == "\r":
            col = 0
        elif b == "\n":
            row += 1
            if row == len(rows):
                rows.append([])
        else:
            line = rows[row]
            line.extend(" " * (col + 1 - len(line)))
            line[col] = b
            col += 1
    text = ["".join(r).rstrip() for r in rows]
    while text and not text[-1]:
        text.pop()
    return text


def strip(cmd, data):
    text = (r"zond %s: [0-9]+\.[0-9] s(?:, [0-9]+ (?:calls|instructions))?"
            r"(?:, [0-9]+(?:\.[0-9]+)? [KMG]B (?:raw|written))?"
            r"(?:, [0-9]+ lost)?" % re.escape(cmd)).encode()
    draw = re.compile(b"\r" + text + b"(?: +\r" + text + b")?")
    erase = re.compile(b"\r +\r")
    out, draws = erase.sub(b"", draw.sub(b"", data)), len(draw.findall(data))
    return out, draws


if sys.argv[1] == "screen":
    print("\n".join(screen(open(sys.argv[2], "rb").read())))
else:
    out, draws = strip(sys.argv[2], open(sys.argv[3], "rb").read())
    sys.stdout.buffer.write(out)
    print("draws %d" % draws, file=sys.stderr)
