// The expected call trees of a trace's `Profile`/`ProfileChunk` events, computed
// straight from the file by the rules of docs/api.md (/api/profile), to check what
// the page shows against the file rather than against the server's own answer:
// samples get times by adding `timeDeltas` (µs) in file order from the profile's
// `startTime`; a sample weighs the time until the thread's next sample (ties keep
// file order); the last one weighs as much as the one before it.
import fs from 'node:fs';

/** @returns {{frames: Map<number, {name, url, line, column, parent}>, samples: Array<{ts, node}>}} */
export function readProfile(file) {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const events = Array.isArray(doc) ? doc : doc.traceEvents;
  const frames = new Map();
  const samples = [];
  let t = null;
  for (const e of events) {
    const data = e.args?.data;
    if (e.ph !== 'P' || !data) continue;
    if (e.name === 'Profile') t = data.startTime;
    if (e.name !== 'ProfileChunk') continue;
    const cp = data.cpuProfile || {};
    for (const n of cp.nodes || []) {
      const f = n.callFrame;
      // 1-based line and column as shown (the file's are 0-based, -1 unknown).
      frames.set(n.id, { name: f.functionName, url: f.url || null, line: f.lineNumber < 0 ? -1 : f.lineNumber + 1,
        column: f.columnNumber < 0 ? -1 : f.columnNumber + 1, parent: n.parent ?? null, children: n.children || [] });
    }
    (cp.samples || []).forEach((node, i) => {
      t += (data.timeDeltas || [])[i] ?? 0;
      samples.push({ ts: t * 1000, node });
    });
  }
  // Parents from the children lists (nodes may come before their children).
  for (const [id, f] of frames) for (const c of f.children) if (frames.has(c)) frames.get(c).parent = id;
  samples.sort((a, b) => a.ts - b.ts);
  return { frames, samples };
}

/**
 * The bottom-up roots: every function with its self and total time and the
 * samples it is on, by self time, then total, then name.
 */
export function bottomUpRoots(p) {
  const by = new Map();
  const get = (name) => {
    if (!by.has(name)) by.set(name, { name, self: 0, total: 0, samples: 0 });
    return by.get(name);
  };
  p.samples.forEach((s, i) => {
    const w = i + 1 < p.samples.length ? p.samples[i + 1].ts - s.ts : i > 0 ? s.ts - p.samples[i - 1].ts : 0;
    get(p.frames.get(s.node).name).self += w;
    const seen = new Set();
    for (let id = s.node; id !== null && id !== undefined; id = p.frames.get(id).parent) seen.add(p.frames.get(id).name);
    for (const name of seen) {
      get(name).total += w;
      get(name).samples++;
    }
  });
  return [...by.values()].sort((a, b) => b.self - a.self || b.total - a.total || (a.name < b.name ? -1 : 1));
}

/** Every node of the top-down tree as [name, depth, total, samples], pre-order. */
export function topDownRows(p) {
  const root = { kids: new Map(), total: 0, n: 0 };
  p.samples.forEach((s, i) => {
    const w = i + 1 < p.samples.length ? p.samples[i + 1].ts - s.ts : i > 0 ? s.ts - p.samples[i - 1].ts : 0;
    const stack = [];
    for (let id = s.node; id !== null && id !== undefined; id = p.frames.get(id).parent) stack.unshift(p.frames.get(id).name);
    let n = root;
    for (const name of stack) {
      if (!n.kids.has(name)) n.kids.set(name, { name, kids: new Map(), total: 0, n: 0 });
      n = n.kids.get(name);
      n.total += w;
      n.n++;
    }
  });
  const out = [];
  const walk = (n, d) => {
    for (const k of [...n.kids.values()].sort((a, b) => b.total - a.total || (a.name < b.name ? -1 : 1))) {
      out.push([k.name, d, k.total, k.n]);
      walk(k, d + 1);
    }
  };
  walk(root, 0);
  return out;
}
