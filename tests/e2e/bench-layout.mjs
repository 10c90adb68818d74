// CPU time of the track layout alone (web/layout.js in node, no browser) on the
// summary of the 10,000-thread trace of `bench.mjs --tracks` (100 processes of 100
// threads, a counter each): the relayouts of its phases, a keystroke per step.
//
//   node tests/e2e/bench-layout.mjs [--web DIR] [--steps N]
//
// --web: the web/ folder whose layout.js to time (e.g. an older checkout's, to
// compare). Prints, per phase, the CPU time of all its steps (process.cpuUsage:
// user + system, less noisy than wall time on a shared machine) and the wall
// time per step (p50 / p95 / max).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (/** @type {string} */ name, /** @type {string} */ dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const web = path.resolve(opt('--web', path.join(HERE, '../../web')));
const steps = Number(opt('--steps', '2000'));
const { buildLayout, NO_OPTIONS } = await import(pathToFileURL(path.join(web, 'layout.js')).href);

/** The server's summary of lib/many-tracks.mjs's trace, as far as the layout reads it. */
function summary() {
  const processes = [];
  for (let p = 0; p < 100; p++) {
    const pid = 1000 + p;
    const threads = [];
    for (let k = 0; k < 100; k++) {
      const t = p * 100 + k;
      const name = `worker${t}`;
      threads.push({ id: t, tid: 10_000 + t, name, label: `${name} (tid ${10_000 + t})`, tracks: [{ id: `s:${t}:0`, kind: 'slices', name, rows: 3, instants: 1 }] });
    }
    processes.push({ id: p, pid, name: `proc${pid}`, label: `proc${pid} (pid ${pid})`, labels: null, frame_url: null,
      tracks: [{ id: `c:${p}`, kind: 'counter', name: 'load', rows: 1 }], threads });
  }
  return { processes };
}

const s = summary();
const ids = s.processes.flatMap((p) => p.threads.map((th) => th.tracks[0].id));
// bench.mjs's filters, one per frame; then typing: words a keystroke at a time,
// deleted again, each word new.
const cycle = ['worker1', 'worker12', 'worker123', '/^worker\\d{2}\\b/', 'proc10', 'GC', 'w', ''];
const typed = [];
for (let k = 0; typed.length < steps; k++) {
  const word = `worker${(k * 7919) % 10_000}`;
  for (let i = 1; i <= word.length; i++) typed.push(word.slice(0, i));
  for (let i = word.length - 1; i >= 0; i--) typed.push(word.slice(0, i));
}
let pinned = /** @type {string[]} */ ([]);
const phases = {
  /** bench.mjs's filter phase. */
  filter: (/** @type {number} */ k) => buildLayout(s, { ...NO_OPTIONS, filter: cycle[k % cycle.length] }),
  /** Words typed and deleted, a keystroke per step. */
  typing: (/** @type {number} */ k) => buildLayout(s, { ...NO_OPTIONS, filter: typed[k] }),
  /** Every filter new: `worker<k>`. */
  unseen: (/** @type {number} */ k) => buildLayout(s, { ...NO_OPTIONS, filter: `worker${(k * 7919) % 10_000}` }),
  /** bench.mjs's pin phase: a track pinned or unpinned per step, at most 6 pinned. */
  pin: (/** @type {number} */ k) => {
    const id = ids[(k * 7919) % ids.length];
    pinned = pinned.includes(id) ? pinned.filter((x) => x !== id) : [...pinned.slice(-5), id];
    return buildLayout(s, { ...NO_OPTIONS, pinned });
  },
  /** Nothing changed (a relayout for the label column's width). */
  same: () => buildLayout(s, { ...NO_OPTIONS, pinned }),
};

const pct = (/** @type {number[]} */ xs, /** @type {number} */ p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const first = performance.now();
buildLayout(s, NO_OPTIONS);
console.log(`${web}/layout.js, ${ids.length} threads: first layout ${(performance.now() - first).toFixed(1)} ms; ${steps} steps a phase`);
for (const [name, step] of Object.entries(phases)) {
  const wall = [];
  const cpu0 = process.cpuUsage();
  for (let k = 0; k < steps; k++) {
    const t0 = performance.now();
    step(k);
    wall.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  wall.sort((a, b) => a - b);
  const ms = (cpu.user + cpu.system) / 1000;
  console.log(`${name.padEnd(7)} CPU ${(ms / steps).toFixed(3)} ms a step; wall p50 ${pct(wall, 50).toFixed(2)} ms, p95 ${pct(wall, 95).toFixed(2)} ms, max ${wall[wall.length - 1].toFixed(1)} ms`);
}
