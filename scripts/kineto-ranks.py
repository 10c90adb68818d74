#!/usr/bin/env python3
"""Eight kineto traces of ~30 MB, as from the ranks of one PyTorch job, and one file
of all their events (issue 17's benchmark: `view`/`stats` of the eight vs the one).

    scripts/kineto-ranks.py OUT_DIR     # writes rank0.json .. rank7.json, all.json

Each rank repeats the events of tests/fixtures/kineto-base.json, 3 ms apart, with
pids of its own (2856 + rank for the host, rank for the GPU) and flow ids of its own
(so the one file is the same trace as the eight read together)."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
d = json.load(open(os.path.join(here, "..", "tests", "fixtures", "kineto-base.json")))
meta = [e for e in d["traceEvents"] if e["ph"] == "M"]
body = [e for e in d["traceEvents"] if e["ph"] != "M"]
TARGET = 30_000_000
RANKS = 8


def rank_events(r):
    pids = {2856: 2856 + r, 0: r}
    out = []
    for e in meta:
        e = dict(e, pid=pids.get(e["pid"], e["pid"]))
        out.append(json.dumps(e))
    size, k = 0, 0
    while size < TARGET:
        for e in body:
            e = dict(e, pid=pids.get(e["pid"], e["pid"]), ts=e["ts"] + k * 3000)
            if "id" in e:
                e["id"] = e["id"] + k * 1000 + r * 10**8 if isinstance(e["id"], int) else f"{e['id']}-{r}-{k}"
            s = json.dumps(e)
            out.append(s)
            size += len(s) + 2
        k += 1
    return out


def write(path, events, top):
    with open(path, "w") as f:
        f.write('{"traceEvents":[\n' + ",\n".join(events) + "\n],\n" + json.dumps(top)[1:])


out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
top = {k: v for k, v in d.items() if k != "traceEvents"}
every = []
for r in range(RANKS):
    events = rank_events(r)
    every.extend(events)
    write(f"{out_dir}/rank{r}.json", events, dict(top, distributedInfo={"backend": "nccl", "rank": r, "world_size": RANKS}))
write(f"{out_dir}/all.json", every, dict(top, distributedInfo={"backend": "nccl", "rank": 0, "world_size": RANKS}))
