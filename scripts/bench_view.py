#!/usr/bin/env python3
"""Latency of the viewer's API on a big trace, the way the page uses it.

Usage: scripts/bench_view.py TRACE [TRACESCOPE_BIN]

Starts `tracescope view --no-open TRACE`, waits for it, then asks every track for
the whole trace at 1500 px, a 1/10 window and a 1/1000 window (several positions
each), searches, flows and details, over one keep-alive connection with gzip like a
browser. Prints the worst and 95th percentile latency per kind of request and the
server's startup report (index build time and memory).
"""
import http.client, json, subprocess, sys, time, re

from viewserver import start_view

trace = sys.argv[1]
binary = sys.argv[2] if len(sys.argv) > 2 else "target/release/tracescope"
t_start = time.time()
proc, port = start_view(binary, trace)
ready = time.time() - t_start
conn = http.client.HTTPConnection("127.0.0.1", port)
times = {}

def get(kind, path):
    t = time.perf_counter()
    conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
    r = conn.getresponse()
    body = r.read()
    dt = (time.perf_counter() - t) * 1e3
    if r.status != 200:
        sys.exit(f"{path}: {r.status} {body[:200]}")
    times.setdefault(kind, []).append((dt, path, len(body)))
    return body

import gzip
summary = json.loads(gzip.decompress(get("summary", "/api/summary")))
t0, t1 = summary["start_ns"], summary["end_ns"]
tracks = []
for p in summary["processes"]:
    tracks += [t["id"] for t in p["tracks"]]
    for th in p["threads"]:
        tracks += [t["id"] for t in th["tracks"]]
span = t1 - t0
# Two passes: the first right after startup, the second in steady state.
for rnd in (1, 2):
    for zoom, name in [(1, "whole"), (10, "1/10"), (1000, "1/1000")]:
        w = span // zoom
        starts = [t0] if zoom == 1 else [t0 + (span - w) * k // 4 for k in range(5)]
        for s in starts:
            for tr in tracks:
                get(f"track {name} pass {rnd}", f"/api/track/{tr}?t0={s}&t1={s + w}&px=1500")
for q in ["Task", "a", "%5ERun.*Task%24&regex=1", "nothing-matches"]:
    get("search", f"/api/search?q={q}")
for zoom in [1, 10, 1000]:
    get("flows", f"/api/flows?t0={t0}&t1={t0 + span // zoom}")
n = summary["stats"]["slices"]
for k in range(20):
    get("details", f"/api/slice/{k * (n // 20)}")
print(f"trace: {trace}: {summary['events']} events, {n} slices, {len(tracks)} tracks; server ready after {ready:.1f} s")
print(f"{'request':<24}{'count':>6}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}  slowest")
for kind, v in times.items():
    d = sorted(x[0] for x in v)
    worst = max(v)
    print(f"{kind:<24}{len(d):>6}{d[len(d)//2]:>9.2f}{d[min(len(d)-1, int(len(d)*0.95))]:>9.2f}{worst[0]:>9.2f}  {worst[1]} ({worst[2]} B gz)")
proc.send_signal(2)
proc.wait(timeout=10)
print("server:", "".join(l for l in proc.stderr.read().splitlines(True) if "indexes" in l).strip())
