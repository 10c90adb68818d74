#!/usr/bin/env python3
"""Issue 14's server floors, over HTTP as the page asks: call trees of slices and
search.

Usage: scripts/bench_aggregate.py TRACE [TRACESCOPE_BIN] [--repeat N]

Starts `tracescope view --no-open TRACE`, then times (wall time at the client,
one keep-alive connection, gzip like a browser; best and median of N runs):
- /api/profile of slices over the whole trace: top-down, bottom-up, functions,
  and the sandwich of the heaviest function;
- the same top-down tree over a range holding about 1,000,000 slices (the middle of
  the trace), with the number of slices it held;
- searches over names, categories, args and ids: the first page (the request that
  starts the search; at most 1000 matches in time order) and every match found
  (`until=done`, asked right after), each on a fresh query so nothing is reused.
"""
import http.client, json, statistics, sys, time, urllib.parse

from viewserver import start_view

args = [a for a in sys.argv[1:] if not a.startswith("--")]
repeat = 3
if "--repeat" in sys.argv:
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1])
    args = [a for a in args if a != str(repeat)]
trace = args[0]
binary = args[1] if len(args) > 1 else "target/release/tracescope"
proc, port = start_view(binary, trace)
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)


def get(path):
    t = time.perf_counter()
    conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
    r = conn.getresponse()
    body = r.read()
    dt = (time.perf_counter() - t) * 1e3
    if r.status != 200:
        sys.exit(f"{path}: {r.status} {body[:300]}")
    if r.getheader("Content-Encoding") == "gzip":
        import gzip
        body = gzip.decompress(body)
    return dt, json.loads(body)


def row(name, times, note=""):
    print(f"| {name} | {min(times):.0f} ms | {statistics.median(times):.0f} ms | {note} |")


_, summary = get("/api/summary")
start, end = summary["start_ns"], summary["end_ns"]
slices = summary["stats"]["slices"]
print(f"trace: {trace}: {summary['events']:,} events, {slices:,} slices, {(end - start) / 1e9:.2f} s")
print("| request | best | median | answer |")
print("|---|---|---|---|")
q = urllib.parse.quote
for view in ["top-down", "bottom-up", "functions"]:
    times = []
    for _ in range(repeat):
        dt, a = get(f"/api/profile?source=slices&view={view}")
        times.append(dt)
    n = len(a["nodes"]["parent"]) if "nodes" in a else len(a["functions"]["name"])
    row(f"slices, whole trace, {view}", times, f"{a['samples']:,} slices, {n:,} rows")
heaviest = a["strings"][a["functions"]["name"][0]]
times = [get(f"/api/profile?source=slices&view=sandwich&name={q(heaviest)}")[0] for _ in range(repeat)]
row(f"slices, whole trace, sandwich of {heaviest}", times)
# The middle of the trace, wide enough for about 1 M slices (they are spread evenly).
span = (end - start) * min(1.0, 1_000_000 / max(1, slices))
t0 = int(start + (end - start) / 2 - span / 2)
t1 = int(t0 + span)
times = []
for _ in range(repeat):
    dt, a = get(f"/api/profile?source=slices&view=top-down&t0={t0}&t1={t1}")
    times.append(dt)
row("slices, ~1 M slice range, top-down", times, f"{a['samples']:,} slices")

queries = [("Layout", 0), ("react-dom", 0), ("scavenge", 0), ("^render\"Frame\"\\n$", 1), ("no such text zq", 0)]
for text, regex in queries:
    first, done = [], []
    for k in range(repeat):
        # A distinct query each time (a trailing regex no-op or case change), so the
        # server never answers from a kept search.
        qt = text if k == 0 else (text + "(?:)" * k if regex else text.swapcase() if k == 1 else text.lower())
        dt, a = get(f"/api/search?q={q(qt)}&regex={regex}&limit=1000")
        first.append(dt)
        dt2, b = get(f"/api/search?q={q(qt)}&regex={regex}&limit=1&until=done")
        done.append(dt + dt2)
    row(f"search `{text}`{' (regex)' if regex else ''}: first page", first, f"{len(a['ts'])} shown, {a['total']:,} so far")
    row(f"search `{text}`{' (regex)' if regex else ''}: all matches", done, f"{b['total']:,} matches, done={b['done']}")
proc.terminate()
proc.wait()
