#!/usr/bin/env python3
"""Issue 17's floor for `view --follow`, end to end over HTTP: a 10 MB append to a
growing 1 GB file is visible within 1 s.

Usage: scripts/bench_follow.py BIG.json SMALL.json [TRACESCOPE_BIN] [--appends N]

BIG.json is cut before its closing `]` (a file being written) into a temp
directory and followed; once the server has settled (3 s: it rehearses the next
version's build while the user looks at the first), SMALL.json's events (no metadata, no CPU profile) are moved after BIG's
end and appended in one write, N times (3 by default). For each append it times,
from the end of the write, as the page sees it:
- the answer to `GET /api/version?after=V` (what the page waits on);
- then `/api/summary` showing the new end, and a tile of the appended time range of
  the first thread that holds slices there (what the page fetches next).
"""
import http.client, json, os, re, shutil, sys, tempfile, threading, time

from viewserver import start_view

args = [a for a in sys.argv[1:] if not a.startswith("--")]
appends = 3
if "--appends" in sys.argv:
    appends = int(sys.argv[sys.argv.index("--appends") + 1])
    args = [a for a in args if a != str(appends)]
big, small = args[0], args[1]
binary = args[2] if len(args) > 2 else "target/release/tracescope"

tmp = tempfile.mkdtemp(prefix="bench-follow-")
live = os.path.join(tmp, "live.json")
data = open(big, "rb").read()
open(live, "wb").write(data[: data.rindex(b"\n],\n") + 1])
end = max(float(m) for m in re.findall(rb'"ts":([0-9.]+)', data[-200000:]))
del data
lines = open(small).read().split("\n")
events = [l.rstrip(",") for l in lines if '"ph":' in l and '"ph":"M"' not in l and '"ph":"P"' not in l]
chunks = []
chunks_events = events
for k in range(1, appends + 1):
    shift = end + k * 200000
    moved = (re.sub(r'"ts":([0-9.]+)', lambda m: '"ts":%.3f' % (float(m.group(1)) + shift), e) for e in events)
    chunks.append((shift, ",\n" + ",\n".join(moved) + "\n"))

proc, port = start_view(binary, live, "--follow")


def get(path, timeout=60):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return json.loads(body)


try:
    time.sleep(3)
    v = get("/api/version")["version"]
    print(f"trace: {os.path.getsize(live):,} bytes cut from {big}; appends of {len(chunks[0][1]):,} bytes")
    print("| append | version answered | summary with the new end | tile with new slices | server build |")
    print("|---|---|---|---|---|")
    events = get("/api/version")["events"]
    for k, (shift, text) in enumerate(chunks, 1):
        answer = {}

        def wait_for_all():
            # The server may see the write half done: wait for the version holding all of it.
            after, give_up = v, time.time() + 60
            while time.time() < give_up:
                answer.update(get(f"/api/version?after={after}"))
                after = answer["version"]
                if answer["events"] >= events + len(chunks_events):
                    return
            sys.exit(f"append {k}: {answer['events'] - events} of {len(chunks_events)} events seen")

        waiter = threading.Thread(target=wait_for_all)
        waiter.start()
        time.sleep(0.3)  # the request is waiting before the write
        with open(live, "a") as f:
            f.write(text)
        t0 = time.perf_counter()
        waiter.join()
        t_version = time.perf_counter() - t0
        events = answer["events"]
        v = answer["version"]
        summary = get("/api/summary")
        t_summary = time.perf_counter() - t0
        t0_ns, t1_ns = int(shift * 1000), summary["end_ns"] + 1
        found = None
        for p in summary["processes"]:
            for th in p["threads"]:
                tile = get(f"/api/track/s:{th['id']}:0?t0={t0_ns}&t1={t1_ns}&px=1000")
                if tile["ts"]:
                    found = time.perf_counter() - t0
                    break
            if found:
                break
        tile_ms = f"{found * 1000:.0f} ms" if found else "none found"
        print(f"| {k} | {t_version * 1000:.0f} ms | {t_summary * 1000:.0f} ms | {tile_ms} | {answer['build_ms']:.0f} ms |")
    hwm = next(l for l in open(f"/proc/{proc.pid}/status") if l.startswith("VmHWM"))
    print(f"server peak RSS: {int(hwm.split()[1]) / 1e6:.2f} GB")
finally:
    proc.terminate()
    proc.wait()
    shutil.rmtree(tmp)
