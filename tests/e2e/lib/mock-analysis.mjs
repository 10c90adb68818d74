// The analysis endpoints of docs/api.md (range statistics, range slices, profile
// call trees, objects) over a MockModel, for page tests without the Rust server.
// Straightforward and slow on purpose: every answer is computed from the items.

const overlaps = (it, t0, t1) => (it.dur === 0 ? t0 <= it.ts && it.ts < t1 : it.ts < t1 && it.ts + it.dur > t0);

/** Thread slices of the model in a range query, with their group key. */
function rangeItems(model, q) {
  const threads = new Map();
  for (const p of model.summary.processes) for (const th of p.threads) threads.set(th.id, th.label);
  const out = [];
  for (const it of model.items) {
    if (it.kind !== 'slice' || !overlaps(it, q.t0, q.t1)) continue;
    if (q.tracks && !q.tracks.includes(it.track)) continue;
    if (q.name !== null && it.name !== q.name) continue;
    const thread = Number(it.track.split(':')[1]);
    const key = q.by === 'thread' ? threads.get(thread) : q.by === 'category' ? it.cat ?? '' : it.name;
    out.push({ it, key, thread });
  }
  return out;
}

/** Self time: the duration minus the children's (the mock's items never overlap siblings). */
function selfOf(model, it) {
  const kids = model.items.filter((c) => c.kind === 'slice' && c.track === it.track && c.row === it.row + 1 && c.ts >= it.ts && c.ts + c.dur <= it.ts + it.dur);
  return it.dur - kids.reduce((n, c) => n + c.dur, 0);
}

/** GET /api/range */
export function range(model, q) {
  const groups = new Map();
  const items = rangeItems(model, q);
  for (const { it, key, thread } of items) {
    const gk = q.by === 'thread' ? String(thread) : key;
    if (!groups.has(gk)) groups.set(gk, { key, thread: q.by === 'thread' ? thread : -1, list: [] });
    groups.get(gk).list.push(it);
  }
  const rows = [...groups.values()].map((g) => {
    const d = g.list.map((x) => x.dur);
    return {
      key: g.key, thread: g.thread, count: d.length, total: d.reduce((a, b) => a + b, 0),
      self: g.list.reduce((n, x) => n + selfOf(model, x), 0),
      in_range: g.list.reduce((n, x) => n + Math.max(0, Math.min(q.t1, x.ts + x.dur) - Math.max(q.t0, x.ts)), 0),
      thread_total: -1, min: Math.min(...d), max: Math.max(...d), did_not_finish: g.list.filter((x) => x.flags & 1).length,
    };
  });
  rows.sort((a, b) => b.total - a.total || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const col = (k) => rows.map((r) => r[k]);
  const counters = { track: [], name: [], count: [], min: [], max: [], avg: [], first: [], last: [], delta: [] };
  for (const [track, c] of Object.entries(model.counters)) {
    if (q.tracks && !q.tracks.includes(track)) continue;
    const idx = c.ts.map((_, i) => i);
    const before = idx.filter((i) => c.ts[i] <= q.t0).pop();
    const inside = idx.filter((i) => c.ts[i] >= q.t0 && c.ts[i] < q.t1);
    const held = [...(before !== undefined && c.ts[before] < q.t0 ? [before] : []), ...inside];
    if (held.length === 0) continue;
    const v = held.map((i) => c.value[i]);
    let area = 0;
    let span = 0;
    held.forEach((i, k) => {
      const a = Math.max(q.t0, c.ts[i]);
      const b = k + 1 < held.length ? c.ts[held[k + 1]] : q.t1;
      area += c.value[i] * (b - a);
      span += b - a;
    });
    const name = findTrack(model, track)?.name ?? track;
    counters.track.push(track); counters.name.push(name); counters.count.push(inside.length);
    counters.min.push(Math.min(...v)); counters.max.push(Math.max(...v)); counters.avg.push(span ? area / span : v[0]);
    counters.first.push(v[0]); counters.last.push(v[v.length - 1]); counters.delta.push(v[v.length - 1] - v[0]);
  }
  return {
    t0: q.t0, t1: q.t1, by: q.by, slices: items.length,
    groups: { key: col('key'), thread: col('thread'), count: col('count'), total: col('total'), self: col('self'), in_range: col('in_range'),
      thread_total: col('thread_total'), avg: rows.map((r) => Math.floor(r.total / r.count)), min: col('min'), max: col('max'), did_not_finish: col('did_not_finish') },
    counters,
  };
}

/** GET /api/range/slices */
export function rangeSlices(model, q, key, limit) {
  const hits = rangeItems(model, q).filter((x) => (q.by === 'thread' ? String(x.thread) : x.key) === key).map((x) => x.it);
  hits.sort((a, b) => a.ts - b.ts || a.id - b.id);
  const h = hits.slice(0, limit);
  return { total: hits.length, id: h.map((x) => x.id), ts: h.map((x) => x.ts), dur: h.map((x) => x.dur), track: h.map((x) => x.track), row: h.map((x) => x.row) };
}

export function findTrack(model, id) {
  for (const p of model.summary.processes) {
    for (const t of p.tracks) if (t.id === id) return t;
    for (const th of p.threads) for (const t of th.tracks) if (t.id === id) return t;
  }
  return null;
}

/**
 * GET /api/profile over `profiles`: {track: {frames: [{name, url, line, column}],
 * samples: [{ts, stack: [frame ids, outermost first]}]}}.
 */
export function profile(profiles, q) {
  const weighted = [];
  for (const [track, p] of Object.entries(profiles)) {
    if (q.tracks && !q.tracks.includes(track)) continue;
    const s = p.samples;
    s.forEach((x, i) => {
      const w = i + 1 < s.length ? s[i + 1].ts - x.ts : i > 0 ? x.ts - s[i - 1].ts : 0;
      if (q.t0 === null || (x.ts >= q.t0 && x.ts < q.t1)) weighted.push({ w, stack: x.stack.map((f) => p.frames[f]) });
    });
  }
  // A trie of paths: top-down, each stack; bottom-up, for every function of a
  // stack, it and its callers (the function's self counts only where it ran).
  const root = { kids: new Map(), self: 0, total: 0, selfN: 0, totalN: 0 };
  const add = (path, w, own) => {
    let n = root;
    path.forEach((f, k) => {
      const key = `${f.name}|${f.url}|${f.line}|${f.column}`;
      if (!n.kids.has(key)) n.kids.set(key, { f, kids: new Map(), self: 0, total: 0, selfN: 0, totalN: 0 });
      n = n.kids.get(key);
      n.total += w;
      n.totalN++;
      if (own(k)) {
        n.self += w;
        n.selfN++;
      }
    });
  };
  for (const { w, stack } of weighted) {
    if (q.view === 'top-down') add(stack, w, (k) => k === stack.length - 1);
    else stack.forEach((_, k) => add(stack.slice(0, k + 1).reverse(), w, () => k === stack.length - 1));
  }
  const strings = [];
  const sid = (x) => {
    let i = strings.indexOf(x);
    if (i < 0) i = strings.push(x) - 1;
    return i;
  };
  const nodes = { parent: [], depth: [], name: [], url: [], line: [], column: [], self: [], total: [], self_samples: [], total_samples: [] };
  const walk = (n, parent, depth) => {
    // Bottom-up roots by self time, everything else by total (then the other, then name).
    const bySelf = q.view === 'bottom-up' && depth === 0;
    const kids = [...n.kids.values()].sort((a, b) => (bySelf ? b.self - a.self || b.total - a.total : b.total - a.total || b.self - a.self) ||
      (a.f.name < b.f.name ? -1 : 1));
    for (const k of kids) {
      const i = nodes.parent.length;
      nodes.parent.push(parent); nodes.depth.push(depth); nodes.name.push(sid(k.f.name)); nodes.url.push(k.f.url ? sid(k.f.url) : -1);
      nodes.line.push(k.f.line); nodes.column.push(k.f.column); nodes.self.push(k.self); nodes.total.push(k.total);
      nodes.self_samples.push(k.selfN); nodes.total_samples.push(k.totalN);
      walk(k, i, depth + 1);
    }
  };
  walk(root, -1, 0);
  return { samples: weighted.length, total_ns: weighted.reduce((a, x) => a + x.w, 0), view: q.view, truncated: false, nodes, strings };
}

/** Items of a samples track: runs of consecutive samples with the same frames down to a depth. */
export function sampleItems(p, track) {
  const items = [];
  const open = [];
  const s = p.samples;
  const weight = (i) => (i + 1 < s.length ? s[i + 1].ts - s[i].ts : i > 0 ? s[i].ts - s[i - 1].ts : 0);
  s.forEach((x, i) => {
    const end = x.ts + weight(i);
    let same = true;
    x.stack.forEach((f, d) => {
      if (same && open[d] && open[d].id === f) {
        open[d].dur = end - open[d].ts;
        return;
      }
      same = false;
      open[d] = { id: f, kind: 'frame', track, row: d, name: p.frames[f].name, ts: x.ts, dur: end - x.ts, flags: 0, color: null };
      items.push(open[d]);
    });
    open.length = x.stack.length;
  });
  return items;
}

/** The demo fixture plus a CPU profile on CrRendererMain and an object with two snapshots. */
export function analysisSpec(demo) {
  const frames = [
    { name: '(root)', url: '', line: -1, column: -1 },
    { name: 'main', url: 'https://example.com/app.js', line: 1, column: 1 },
    { name: 'work', url: 'https://example.com/app.js', line: 10, column: 5 },
    { name: 'gc', url: '', line: -1, column: -1 },
  ];
  const samples = [];
  for (let i = 0; i < 80; i++) {
    const stack = i % 10 < 6 ? [0, 1, 2] : i % 10 < 8 ? [0, 1] : i % 10 < 9 ? [0, 3] : [0];
    samples.push({ ts: 1_000_000 + i * 100_000, stack });
  }
  const prof = { frames, samples };
  const spec = { ...demo, profiles: { 'p:0': prof } };
  const p0 = spec.summary.processes[0];
  p0.tracks.push({ id: 'o:0', kind: 'objects', name: 'Objects', rows: 1 });
  p0.threads[0].tracks.push({ id: 'p:0', kind: 'samples', name: 'CPU samples', rows: 3 });
  spec.extraItems = [
    ...sampleItems(prof, 'p:0'),
    { id: 0, kind: 'object', track: 'o:0', row: 0, name: 'Widget', ts: 2_000_000, dur: 10_000_000, flags: 0, color: null },
  ];
  spec.objects = [{ id: 0, name: 'Widget', cat: 'ui', object_id: 'w-1', process: 0, start: 2_000_000, end: 12_000_000, alive_at_end: false,
    snapshots: [{ ts: 3_000_000, args: { width: 200, height: 100, color: 'blue' } }, { ts: 8_000_000, args: { width: 300, height: 100, color: 'red' } }],
    raw_snapshots: ['{}', '{}'] }];
  spec.snapshots = { 'o:0': { ts: [3_000_000, 8_000_000], row: [0, 0], object: [0, 0], index: [0, 1] } };
  return spec;
}
