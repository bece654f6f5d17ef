"""json_stacks.py - reads a zond JSON export with Python's json module and
prints the stacks its calling contexts describe, one per line:
"stack a;b;c calls self incl" for the document's contexts, then
"thread INDEX" and its own contexts' stacks, indented by one space.

A context's parent must come before it in its list; the first event's
costs are printed.
"""
import json
import sys


def stacks(contexts, nodes, event, indent):
    paths = []
    for i, c in enumerate(contexts):
        assert c["id"] == i, (c["id"], i)
        parent = c["parent"]
        assert parent is None or parent < i, (parent, i)
        name = nodes[c["node"]]["name"]
        paths.append(name if parent is None else paths[parent] + ";" + name)
        cost = [c[k][event] if event else "-" for k in ("self", "incl")]
        print(indent + "stack", paths[i], c["calls"], *cost)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        d = json.load(f)
    event = d["events"][0]["name"] if d["events"] else None
    stacks(d["contexts"], d["nodes"], event, "")
    for t in d["threads"]:
        print("thread", t["index"])
        stacks(t["contexts"], d["nodes"], event, " ")


main()
