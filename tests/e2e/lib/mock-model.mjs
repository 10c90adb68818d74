// A small in-memory model answering docs/api.md, for developing and testing the
// page without the Rust server: the demo fixture below, or a synthetic large trace.

/**
 * Items of a track, per row sorted by ts (rows never overlap within themselves).
 * @typedef {{id:number, ts:number, dur:number, row:number, name:string, flags:number, color:string|null}} Item
 */

/** Merge sub-pixel neighbours of one row (the server's level of detail). */
function lod(items, t0, t1, px) {
  const r = (t1 - t0) / px;
  const out = [];
  let cur = null;
  for (const it of items) {
    if (it.ts > t1 || it.ts + it.dur < t0) continue;
    const small = it.dur < r;
    if (cur && small && cur.small && it.ts - (cur.ts + cur.dur) < r) {
      cur.dur = Math.max(cur.dur, it.ts + it.dur - cur.ts);
      cur.count++;
      cur.id = -1;
      continue;
    }
    cur = { ...it, count: 1, small };
    out.push(cur);
  }
  return out;
}

/** Binary search: first index in a row whose end >= t. */
function firstEnding(row, t) {
  let lo = 0;
  let hi = row.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (row[m].ts + row[m].dur < t) lo = m + 1;
    else hi = m;
  }
  return lo;
}

export class MockModel {
  constructor(spec) {
    this.summary = spec.summary;
    /** @type {Map<string, Item[][]>} rows of items per track */
    this.rows = new Map();
    this.items = spec.slices; // by id
    this.instants = spec.instants || {}; // track -> [{ts,name,id,scope}]
    this.counters = spec.counters || {}; // track -> {ts, value}
    this.flowList = spec.flows || [];
    this.details = spec.details || {};
    // The analysis fixture's samples and objects tracks (mock-analysis.mjs).
    this.profiles = spec.profiles || {};
    this.objects = spec.objects || [];
    this.snapshots = spec.snapshots || {};
    for (const it of [...spec.slices, ...(spec.extraItems || [])]) {
      if (!this.rows.has(it.track)) this.rows.set(it.track, []);
      const rows = this.rows.get(it.track);
      while (rows.length <= it.row) rows.push([]);
      rows[it.row].push(it);
    }
    for (const rows of this.rows.values()) for (const r of rows) r.sort((a, b) => a.ts - b.ts);
  }

  track(id, t0, t1, px) {
    if (this.counters[id]) {
      const c = this.counters[id];
      const out = { ts: [], value: [], min: [], max: [] };
      const r = (t1 - t0) / px;
      let lastBucket = null;
      for (let i = 0; i < c.ts.length; i++) {
        if (c.ts[i] < t0 || c.ts[i] > t1) continue;
        const b = Math.floor((c.ts[i] - t0) / r);
        if (b === lastBucket) {
          const k = out.ts.length - 1;
          out.value[k] = c.value[i];
          out.min[k] = Math.min(out.min[k], c.value[i]);
          out.max[k] = Math.max(out.max[k], c.value[i]);
        } else {
          out.ts.push(c.ts[i]);
          out.value.push(c.value[i]);
          out.min.push(c.value[i]);
          out.max.push(c.value[i]);
          lastBucket = b;
        }
      }
      return out;
    }
    const rows = this.rows.get(id);
    if (!rows && !this.instants[id] && !this.exists(id)) return null;
    const strings = [];
    const sidx = new Map();
    const s = (x) => {
      if (!sidx.has(x)) {
        sidx.set(x, strings.length);
        strings.push(x);
      }
      return sidx.get(x);
    };
    const out = { ts: [], dur: [], row: [], id: [], name: [], count: [], flags: [], color: [], strings };
    for (const row of rows || []) {
      const start = firstEnding(row, t0);
      let end = start;
      while (end < row.length && row[end].ts <= t1) end++;
      for (const it of lod(row.slice(start, end), t0, t1, px)) {
        out.ts.push(it.ts);
        out.dur.push(it.dur);
        out.row.push(it.row);
        out.id.push(it.id);
        out.name.push(s(it.name));
        out.count.push(it.count);
        out.flags.push(it.flags || 0);
        out.color.push(it.color ? s(it.color) : -1);
      }
    }
    const sn = this.snapshots[id];
    if (sn) {
      const keep = sn.ts.map((_, i) => i).filter((i) => sn.ts[i] >= t0 && sn.ts[i] < t1);
      out.snapshots = { ts: keep.map((i) => sn.ts[i]), row: keep.map((i) => sn.row[i]), object: keep.map((i) => sn.object[i]), index: keep.map((i) => sn.index[i]) };
    }
    if (id.startsWith('s:')) {
      const ins = (this.instants[id] || []).filter((x) => x.ts >= t0 && x.ts <= t1);
      out.instants = { ts: ins.map((x) => x.ts), name: ins.map((x) => s(x.name)), id: ins.map((x) => x.id), scope: ins.map((x) => x.scope) };
    }
    return out;
  }

  exists(id) {
    for (const p of this.summary.processes) {
      if (p.tracks.some((t) => t.id === id)) return true;
      if (p.threads.some((th) => th.tracks.some((t) => t.id === id))) return true;
    }
    return false;
  }

  item(kind, id) {
    const it = this.items[id];
    if (!it || it.kind !== kind) return null;
    const same = this.items.filter((x) => x.track === it.track && x.kind === kind);
    const contains = (p, c) => p.ts <= c.ts && c.ts + c.dur <= p.ts + p.dur && p.row < c.row;
    const parents = same.filter((p) => contains(p, it)).sort((a, b) => b.row - a.row);
    const children = same.filter((c) => c.row === it.row + 1 && contains(it, c)).sort((a, b) => a.ts - b.ts);
    const ref = (x) => ({ id: x.id, name: x.name, ts: x.ts, dur: x.dur });
    const flow = (f) => ({ id: f.id, from: { kind: 'slice', id: f.from, name: this.items[f.from].name, ts: f.from_ts, thread: null },
      to: { kind: 'slice', id: f.to, name: this.items[f.to].name, ts: f.to_ts, thread: null }, from_ts: f.from_ts, to_ts: f.to_ts });
    return {
      id, name: it.name, cat: it.cat ?? null, ts: it.ts, dur: it.dur, self: it.dur - children.reduce((n, c) => n + c.dur, 0),
      tts: null, tdur: null, depth: it.row, did_not_finish: !!(it.flags & 1), overlap: !!(it.flags & 2),
      process: null, thread: null, track: it.track, args: it.args ?? null,
      parents: parents.map(ref), children: children.map(ref),
      flows_in: this.flowList.filter((f) => f.to === id).map(flow), flows_out: this.flowList.filter((f) => f.from === id).map(flow),
      raw: JSON.stringify({ name: it.name, ph: 'X' }),
    };
  }

  flows(t0, t1) {
    const out = { from_ts: [], to_ts: [], from_track: [], from_row: [], to_track: [], to_row: [], from_id: [], to_id: [] };
    for (const f of this.flowList) {
      if (!((f.from_ts >= t0 && f.from_ts <= t1) || (f.to_ts >= t0 && f.to_ts <= t1))) continue;
      const a = this.items[f.from];
      const b = this.items[f.to];
      out.from_ts.push(f.from_ts); out.to_ts.push(f.to_ts);
      out.from_track.push(a.track); out.from_row.push(a.row);
      out.to_track.push(b.track); out.to_row.push(b.row);
      out.from_id.push(f.from); out.to_id.push(f.to);
    }
    return out;
  }

  /** GET /api/search: names only, every match known at once (`done`), paged. */
  search(q, { offset = 0, limit = 1000, sort = 'time', order } = {}) {
    const ql = q.toLowerCase();
    const hits = [];
    for (const it of this.items) if (it.name.toLowerCase().includes(ql)) hits.push({ kind: it.kind, id: it.id, track: it.track, row: it.row, ts: it.ts, dur: it.dur, name: it.name });
    for (const [track, list] of Object.entries(this.instants)) for (const x of list) if (x.name.toLowerCase().includes(ql)) hits.push({ kind: 'instant', id: x.id, track, row: 0, ts: x.ts, dur: 0, name: x.name });
    hits.sort((a, b) => a.ts - b.ts);
    const desc = order ? order === 'desc' : sort === 'duration';
    if (sort === 'duration') hits.sort((a, b) => b.dur - a.dur || a.ts - b.ts);
    if (desc !== (sort === 'duration')) hits.reverse();
    const h = hits.slice(offset, offset + limit);
    return { search: 1, done: true, capped: false, total: hits.length, offset, sort, order: desc ? 'desc' : 'asc',
      ts: h.map((x) => x.ts), dur: h.map((x) => x.dur), kind: h.map((x) => x.kind), id: h.map((x) => x.id),
      track: h.map((x) => x.track), row: h.map((x) => x.row), name: h.map((x) => x.name), field: h.map(() => 'name') };
  }
}

/** The demo fixture: two processes, nesting, did-not-finish, overlap, instants of
 * every scope, a counter, an async lane, a flow, diagnostics. Times in ns. */
export function demoSpec() {
  const slices = [];
  const add = (track, row, name, ts, dur, extra = {}) => {
    const it = { id: slices.length, kind: track.startsWith('a:') ? 'async' : 'slice', track, row, name, ts, dur, flags: 0, color: null, ...extra };
    slices.push(it);
    return it.id;
  };
  const T = 's:0:0';
  const R = 's:1:0';
  const main = add(T, 0, 'RunTask', 1_000_000, 8_000_000, { cat: 'toplevel', args: { src_file: 'task.cc', data: { frame: 'F1', sizes: [1, 2, 3] } } });
  add(T, 1, 'ParseHTML', 1_200_000, 3_000_000, { cat: 'devtools' });
  add(T, 2, 'EvaluateScript', 1_500_000, 2_000_000);
  add(T, 1, 'Layout', 4_500_000, 2_000_000, { color: 'rail_load' });
  const send = add(T, 1, 'PostMessage', 7_000_000, 500_000);
  add(T, 0, 'RunTask', 10_000_000, 3_000_000);
  add(T, 0, 'Unfinished', 14_000_000, 6_000_000, { flags: 1 });
  const recv = add(R, 0, 'OnMessage', 8_000_000, 4_000_000, { args: { port: 3 } });
  add(R, 1, 'Paint', 8_500_000, 1_000_000, { color: 'good' });
  add(R, 2, 'Overlapping', 9_000_000, 4_000_000, { flags: 2 });
  add('a:0', 0, 'LoadResource', 2_000_000, 12_000_000);
  add('a:0', 1, 'LoadResource', 5_000_000, 9_000_000);
  const cTs = [];
  const cV = [];
  for (let i = 0; i <= 40; i++) {
    cTs.push(500_000 * i);
    cV.push(Math.round(50 + 40 * Math.sin(i / 4)));
  }
  const summary = {
    name: 'demo.json', format: 'json-object', bytes: 4321, events: 64, start_ns: 0, end_ns: 20_000_000, display_time_unit: null,
    processes: [
      { id: 0, pid: 1, name: 'Renderer', label: 'Renderer (pid 1)', sort_index: null, labels: 'example.com', frame_url: 'https://example.com/',
        tracks: [{ id: 'a:0', kind: 'async', name: 'LoadResource', rows: 2 }, { id: 'c:0', kind: 'counter', name: 'JSHeapUsed', rows: 1, min: 10, max: 90 }],
        threads: [{ id: 0, tid: 7, name: 'CrRendererMain', label: 'CrRendererMain (tid 7)', main: true, tracks: [{ id: T, kind: 'slices', name: 'CrRendererMain', rows: 3, instants: 2 }] },
          { id: 2, tid: 9, name: 'Compositor', label: 'Compositor (tid 9)', tracks: [] }] },
      { id: 1, pid: 2, name: 'Browser', label: 'Browser (pid 2)', sort_index: null, labels: null, frame_url: null, tracks: [],
        threads: [{ id: 1, tid: 1, name: 'CrBrowserMain', label: 'CrBrowserMain (tid 1)', tracks: [{ id: R, kind: 'slices', name: 'CrBrowserMain', rows: 3 }] }] },
    ],
    global_instants: { ts: [13_500_000], name: ['NavigationStart'], id: [0] },
    diagnostics: [
      { kind: 'overlap', severity: 'warning', count: 1, offset: 812, example: '{"ph":"X","name":"Overlapping"}', description: 'a slice overlapping a sibling moved to an extra row' },
      { kind: 'misplaced_end', severity: 'warning', count: 2, offset: 1024, example: '{"ph":"E"}', description: 'an E closing an outer slice' },
    ],
    stats: {},
  };
  return {
    summary, slices,
    instants: { [T]: [{ ts: 500_000, name: 'marker-start', id: 0, scope: 't' }, { ts: 9_500_000, name: 'FirstPaint', id: 1, scope: 'p' }] },
    counters: { 'c:0': { ts: cTs, value: cV } },
    flows: [{ id: 0, from: send, to: recv, from_ts: 7_200_000, to_ts: 8_100_000 }],
  };
}

/** A synthetic large trace: `threads` threads of nested slices, about `n` slices. */
export function syntheticSpec(n, threads = 16) {
  const slices = [];
  const per = Math.ceil(n / threads);
  const procs = [];
  let seed = 1;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const names = ['RunTask', 'Layout', 'Paint', 'ParseHTML', 'EvaluateScript', 'GC', 'Composite', 'FunctionCall', 'V8.Execute', 'Decode'];
  for (let t = 0; t < threads; t++) {
    const track = `s:${t}:0`;
    let ts = 0;
    let maxRow = 0;
    let count = 0;
    while (count < per) {
      // A top-level task with a small random tree under it.
      const dur = 20_000 + Math.floor(rnd() * 200_000);
      const emit = (row, start, d) => {
        slices.push({ id: slices.length, kind: 'slice', track, row, name: names[Math.floor(rnd() * names.length)], ts: start, dur: d, flags: 0, color: null });
        count++;
        maxRow = Math.max(maxRow, row);
        if (row < 6 && d > 2000) {
          let s = start + Math.floor(d * 0.05);
          while (s < start + d * 0.9 && count < per) {
            const cd = Math.floor(d * (0.1 + rnd() * 0.3));
            if (s + cd > start + d) break;
            emit(row + 1, s, cd);
            s += cd + Math.floor(d * 0.03);
          }
        }
      };
      emit(0, ts, dur);
      ts += dur + Math.floor(rnd() * 50_000);
    }
    procs.push({ id: t, pid: 100 + t, name: `proc${t}`, label: `proc${t} (pid ${100 + t})`, sort_index: null, labels: null, frame_url: null, tracks: [],
      threads: [{ id: t, tid: t + 1, name: `worker${t}`, label: `worker${t} (tid ${t + 1})`, tracks: [{ id: track, kind: 'slices', name: `worker${t}`, rows: maxRow + 1 }] }] });
  }
  const end = slices.reduce((m, s) => Math.max(m, s.ts + s.dur), 0);
  return { summary: { name: `synthetic-${n}.json`, format: 'json-array', bytes: 0, events: slices.length, start_ns: 0, end_ns: end, display_time_unit: null,
    processes: procs, global_instants: { ts: [], name: [], id: [] }, diagnostics: [], stats: {} }, slices };
}
