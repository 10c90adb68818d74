// A generated trace with many threads, for the frame-time benchmark of the track
// layout (pinning, filtering, scrolling 10,000 tracks): `threads` threads in
// processes of 100, each with a few nested slices and an instant, and a counter
// per process.
import fs from 'node:fs';

/**
 * Write the trace to `file`.
 * @param {string} file
 * @param {number} threads
 */
export function writeManyTracks(file, threads) {
  const out = fs.openSync(file, 'w');
  const write = (s) => fs.writeSync(out, s);
  write('{"traceEvents":[\n');
  let first = true;
  const ev = (e) => {
    write(`${first ? '' : ',\n'}${JSON.stringify(e)}`);
    first = false;
  };
  const perProcess = 100;
  for (let t = 0; t < threads; t++) {
    const pid = 1000 + Math.floor(t / perProcess);
    const tid = 10_000 + t;
    if (t % perProcess === 0) {
      ev({ ph: 'M', name: 'process_name', pid, tid, args: { name: `proc${pid}` } });
      for (let k = 0; k < 20; k++) ev({ ph: 'C', name: 'load', pid, tid, ts: k * 5000, args: { v: (k * 7 + pid) % 13 } });
    }
    ev({ ph: 'M', name: 'thread_name', pid, tid, args: { name: `worker${t}` } });
    // A staggered run of tasks with two levels under each.
    for (let k = 0; k < 4; k++) {
      const ts = ((t * 37) % 1000) * 10 + k * 25_000;
      ev({ ph: 'X', name: 'RunTask', pid, tid, ts, dur: 20_000 });
      ev({ ph: 'X', name: k % 2 ? 'Layout' : 'Script', pid, tid, ts: ts + 1000, dur: 12_000 });
      ev({ ph: 'X', name: 'GC', pid, tid, ts: ts + 2000, dur: 4000 });
    }
    ev({ ph: 'i', s: 't', name: 'Mark', pid, tid, ts: ((t * 13) % 1000) * 100 });
  }
  write('\n]}\n');
  fs.closeSync(out);
}
