// The vertical layout: pinned tracks on top, then each process as a foldable group:
// its filmstrip, its threads (the server's order: main thread first, busy ones
// next), its name-only threads behind an "N empty threads" toggle, its counters,
// async tracks and objects in foldable groups (folded when there are many tracks
// or rows).
// Processes with nothing to draw wait behind an "N empty processes" toggle at the
// end. Hidden tracks, the track filter and the order the user dragged rows into
// apply here; nothing else decides where a track is.

/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {import('./types.js').Track} Track */
/** @typedef {import('./types.js').Process} Process */
/** @typedef {import('./types.js').Thread} Thread */

/** Height of the time ruler above the tracks. */
export const RULER_H = 26;
export const ROW_H = 18;
export const HEADER_H = 24;
export const COUNTER_H = 40;
export const EMPTY_H = 20;
export const TRACK_PAD = 4;
/** The thin row of a thread's instants, above its slices. */
export const INSTANT_H = 10;
/** A filmstrip of screenshots. */
export const FILM_H = 56;
export const GROUP_H = 22;
export const TOGGLE_H = 20;
/** A group with more tracks than this starts folded. */
export const MANY = 6;

/**
 * A row of the layout. `key` names it for pinning, hiding and folding (a track's
 * id, `P<id>` for a process, `P<id>:async` for a group); `move` is what a drag of
 * this row moves among its siblings (`parent` the list it reorders).
 * @typedef {{kind: 'process'|'track'|'group'|'empty'|'toggle', key: string, y: number, h: number,
 *   label: string, sub: string, process: Process, thread: number|null, track: Track|null,
 *   collapsed: boolean, indent: number, pinned: boolean, count: number,
 *   move: {parent: string, key: string}|null}} Row
 * @typedef {{rows: Row[], height: number, pinned: Row[], pinnedH: number,
 *   byTrack: Map<string, Row>, groups: Map<number, {y0: number, y1: number}>,
 *   filterError: string|null}} Layout
 * @typedef {{pinned: string[], hidden: string[], folds: Record<string, boolean>,
 *   order: Record<string, string[]>, filter: string}} LayoutOptions
 */

/** @type {LayoutOptions} */
export const NO_OPTIONS = { pinned: [], hidden: [], folds: {}, order: {}, filter: '' };

/**
 * Pixels above a track's first slice row: padding, and the instants row if any.
 * @param {Track} track
 */
export function contentTop(track) {
  return TRACK_PAD / 2 + (track.instants ? INSTANT_H : 0);
}

/**
 * Height of a track's row.
 * @param {Track} track
 */
export function trackHeight(track) {
  if (track.kind === 'counter') return COUNTER_H;
  if (track.kind === 'screenshots') return FILM_H;
  const rows = track.kind === 'slices' && track.instants ? track.rows : Math.max(1, track.rows);
  return rows * ROW_H + TRACK_PAD + (track.instants ? INSTANT_H : 0);
}

/**
 * The process header text: name and pid (the server's label), labels, frame URL.
 * @param {Process} p
 */
export function processLabel(p) {
  const parts = [p.label];
  if (p.labels) parts.push(p.labels);
  // The server's label ends with the frame URL already.
  if (p.frame_url && !p.label.endsWith(p.frame_url)) parts.push(p.frame_url);
  return parts.join(' · ');
}

/** @param {Process} p */
export const processKey = (p) => `P${p.id}`;
/** @param {Thread} th */
export const threadKey = (th) => `T${th.id}`;

/** A process with no track of its own and no thread with one. @param {Process} p */
export function isEmptyProcess(p) {
  return p.tracks.length === 0 && p.threads.every((th) => th.tracks.length === 0);
}

/**
 * The filter box's test: a case-insensitive substring, or a regex written `/re/`.
 * @param {string} filter
 * @returns {{test: ((s: string) => boolean)|null, error: string|null}}
 */
export function filterTest(filter) {
  const f = filter.trim();
  if (f === '') return { test: null, error: null };
  const m = f.match(/^\/(.+)\/([a-z]*)$/);
  if (m) {
    try {
      const re = new RegExp(m[1], m[2].includes('i') ? m[2] : `${m[2]}i`);
      return { test: (s) => re.test(s), error: null };
    } catch (e) {
      return { test: () => false, error: /** @type {Error} */ (e).message };
    }
  }
  const low = f.toLowerCase();
  return { test: (s) => s.toLowerCase().includes(low), error: null };
}

/**
 * `items` in the user's order for `parent` (keys listed there first, in that
 * order), then the rest in their own order.
 * @template T
 * @param {T[]} items
 * @param {(x: T) => string} keyOf
 * @param {string[]|undefined} custom
 * @returns {T[]}
 */
export function ordered(items, keyOf, custom) {
  if (!custom || custom.length === 0) return items;
  const rank = new Map(custom.map((k, i) => [k, i]));
  const at = (/** @type {T} */ x, /** @type {number} */ i) => rank.get(keyOf(x)) ?? custom.length + i;
  return items.map((x, i) => ({ x, r: at(x, i) })).sort((a, b) => a.r - b.r).map((e) => e.x);
}

/**
 * Where every track lives: its process and thread, and the group it is drawn in.
 * @typedef {{track: Track, process: Process, thread: Thread|null, group: string|null}} TrackPlace
 * @param {Summary} summary
 * @returns {Map<string, TrackPlace>}
 */
export function trackPlaces(summary) {
  /** @type {Map<string, TrackPlace>} */
  const out = new Map();
  for (const p of summary.processes) {
    for (const [kind, list] of processGroups(p)) {
      const group = grouped(list) ? `${processKey(p)}:${kind}` : null;
      for (const t of list) out.set(t.id, { track: t, process: p, thread: null, group });
    }
    for (const t of p.tracks) if (!out.has(t.id)) out.set(t.id, { track: t, process: p, thread: null, group: null });
    for (const th of p.threads) for (const t of th.tracks) out.set(t.id, { track: t, process: p, thread: th, group: null });
  }
  return out;
}

/** Process tracks that go in foldable groups, by kind. @param {Process} p @returns {Array<[string, Track[]]>} */
function processGroups(p) {
  return [
    ['counters', p.tracks.filter((t) => t.kind === 'counter')],
    ['async', p.tracks.filter((t) => t.kind === 'async')],
    ['objects', p.tracks.filter((t) => t.kind === 'objects')],
  ];
}

const GROUP_LABEL = /** @type {Record<string, string>} */ ({ counters: 'Counters', async: 'Async', objects: 'Objects' });

/** Rows of a list of tracks. @param {Track[]} list */
const rowsOf = (list) => list.reduce((n, t) => n + Math.max(1, t.rows), 0);

/** Tracks get a group header when there are several, or one very tall. @param {Track[]} list */
const grouped = (list) => list.length > 1 || rowsOf(list) > 2 * MANY;

/** A group starts folded when it holds many tracks or rows (and some thread has work). @param {Track[]} list */
const foldedByDefault = (list) => list.length > MANY || rowsOf(list) > 2 * MANY;

/**
 * A row, always built with the same fields in the same order.
 * @param {Row['kind']} kind @param {string} key @param {number} h @param {string} label @param {string} sub
 * @param {Process} process @param {number|null} thread @param {Track|null} track @param {boolean} collapsed
 * @param {number} indent @param {number} count @param {Row['move']} move
 * @returns {Row}
 */
function mk(kind, key, h, label, sub, process, thread, track, collapsed, indent, count, move) {
  return { kind, key, y: 0, h, label, sub, process, thread, track, collapsed, indent, pinned: false, count, move };
}

/**
 * Rows of earlier layouts of a summary, by key, to reuse: a relayout (a pin, a
 * keystroke in the filter) then allocates almost nothing. A layout replaces the
 * one before it, so sharing its rows is safe.
 * @type {WeakMap<Summary, Map<string, Row>>}
 */
const rowCache = new WeakMap();

/**
 * `mk`, reusing the row of that key from an earlier layout (`cache`).
 * @param {Map<string, Row>} cache
 * @param {Row['kind']} kind @param {string} key @param {number} h @param {string} label @param {string} sub
 * @param {Process} process @param {number|null} thread @param {Track|null} track @param {boolean} collapsed
 * @param {number} indent @param {number} count @param {Row['move']} move
 * @returns {Row}
 */
function reuse(cache, kind, key, h, label, sub, process, thread, track, collapsed, indent, count, move) {
  const r = cache.get(key);
  if (!r || r.kind !== kind) {
    const n = mk(kind, key, h, label, sub, process, thread, track, collapsed, indent, count, move);
    cache.set(key, n);
    return n;
  }
  r.h = h;
  r.label = label;
  r.sub = sub;
  r.process = process;
  r.thread = thread;
  r.track = track;
  r.collapsed = collapsed;
  r.indent = indent;
  r.count = count;
  r.move = move;
  r.pinned = false;
  return r;
}

/**
 * What a drag of a thread's rows moves, by thread id, per summary.
 * @type {WeakMap<Summary, Array<{parent: string, key: string}>>}
 */
const moveCache = new WeakMap();

/**
 * The rows a process had in the last layout, where they started, their height,
 * and the choices they were built for.
 * @typedef {{sig: string, rows: Row[], y0: number, h: number}} Segment
 * @type {WeakMap<Summary, Map<number, Segment>>}
 */
const segmentCache = new WeakMap();

/** @param {Summary} summary */
function segmentsOf(summary) {
  let m = segmentCache.get(summary);
  if (!m) segmentCache.set(summary, (m = new Map()));
  return m;
}

/**
 * The user's choices that concern each process, as text to compare: its hidden
 * and pinned tracks (and itself, its threads), its folds and its orders.
 * @param {Summary} summary
 * @param {LayoutOptions} opts
 * @returns {Map<number, string>} by process id
 */
function choicesByProcess(summary, opts) {
  const places = placesOf(summary);
  /** @type {Map<number, string[]>} */
  const out = new Map();
  const add = (/** @type {number|undefined} */ p, /** @type {string} */ what) => {
    if (p === undefined) return;
    const list = out.get(p);
    if (list) list.push(what);
    else out.set(p, [what]);
  };
  /** @param {string} key the process of a key: `P3`, `P3:async`, `T5`, or a track id */
  const owner = (key) => {
    const m = key.match(/^P(\d+)(?::|$)/);
    if (m) return Number(m[1]);
    const at = places.get(key);
    if (at) return at.process.id;
    const t = key.match(/^T(\d+)$/);
    return t ? threadsOf(summary).get(Number(t[1])) : undefined;
  };
  for (const k of opts.hidden) add(owner(k), `h${k}`);
  for (const k of opts.pinned) add(owner(k), `p${k}`);
  for (const [k, v] of Object.entries(opts.folds)) add(owner(k), `f${k}=${v}`);
  for (const [k, v] of Object.entries(opts.order)) add(owner(k), `o${k}=${v.join('.')}`);
  return new Map([...out].map(([p, list]) => [p, list.join('\u0001')]));
}

/** @type {WeakMap<Summary, Map<number, number>>} */
const threadProcessCache = new WeakMap();

/** Thread id -> process id, once per summary. @param {Summary} summary */
function threadsOf(summary) {
  let m = threadProcessCache.get(summary);
  if (!m) {
    m = new Map();
    for (const p of summary.processes) for (const th of p.threads) m.set(th.id, p.id);
    threadProcessCache.set(summary, m);
  }
  return m;
}

/** @type {WeakMap<Summary, Map<string, TrackPlace>>} */
const placesCache = new WeakMap();

/** `trackPlaces`, once per summary. @param {Summary} summary */
export function placesOf(summary) {
  let m = placesCache.get(summary);
  if (!m) placesCache.set(summary, (m = trackPlaces(summary)));
  return m;
}

/**
 * Lay out every track top to bottom.
 * @param {Summary} summary
 * @param {LayoutOptions} opts
 * @returns {Layout}
 */
export function buildLayout(summary, opts = NO_OPTIONS) {
  const { folds, order } = opts;
  const hidden = new Set(opts.hidden);
  const pinnedSet = new Set(opts.pinned);
  const filter = filterTest(opts.filter);
  const match = filter.test;
  /** @type {Row[]} */
  const rows = [];
  /** @type {Map<string, Row>} */
  const byTrack = new Map();
  /** @type {Map<number, {y0: number, y1: number}>} */
  const groups = new Map();
  const fold = (/** @type {string} */ key, /** @type {boolean} */ dflt) => folds[key] ?? dflt;
  // With no thread doing anything (a trace of objects, async or counters only),
  // the groups are the work: they start open however many tracks they hold.
  const anyBusy = summary.processes.some((p) => p.threads.some((th) => th.tracks.length > 0));
  let y = 0;
  let cache = rowCache.get(summary);
  if (!cache) rowCache.set(summary, (cache = new Map()));
  const rowCacheNow = cache;
  let moves = moveCache.get(summary);
  if (!moves) moveCache.set(summary, (moves = []));
  const threadMoves = moves;
  /**
   * @param {Row['kind']} kind @param {string} key @param {number} h @param {string} label @param {string} sub
   * @param {Process} process @param {number|null} thread @param {Track|null} track @param {boolean} collapsed
   * @param {number} indent @param {number} count @param {Row['move']} move
   */
  const row = (kind, key, h, label, sub, process, thread, track, collapsed, indent, count, move) =>
    reuse(rowCacheNow, kind, key, h, label, sub, process, thread, track, collapsed, indent, count, move);

  /**
   * Place a row. Rows are built with one shape (`mk`) and no copies: 10,000
   * tracks lay out in a few milliseconds.
   * @param {Row} row
   */
  const push = (row) => {
    row.y = y;
    rows.push(row);
    if (row.track) byTrack.set(row.track.id, row);
    y += row.h;
  };
  // Processes with a hidden or pinned track: only their tracks need looking up.
  const places = placesOf(summary);
  const touched = new Set();
  for (const id of [...hidden, ...pinnedSet]) {
    const at = places.get(id);
    if (at) touched.add(at.process);
  }
  /** @param {Track} t */
  const visible = (t) => !hidden.has(t.id) && !pinnedSet.has(t.id);
  /** A thread's label on its first track; later tracks name their kind. @param {Thread} th @param {Track} t @param {number} i */
  const trackLabel = (th, t, i) => (i === 0 ? th.label : `${th.label} · ${t.name}`);

  /**
   * One process: header and, unless folded, its rows. With a filter, only what
   * matches (everything when the process's own name matches).
   * @param {Process} p
   */
  const buildProcess = (p) => {
    const pk = processKey(p);
    if (hidden.has(pk)) return;
    const all = !match || match(processLabel(p));
    /** @param {string} label */
    const shows = (label) => all || /** @type {(s: string) => boolean} */ (match)(label);
    const noneHidden = !touched.has(p);
    const film = p.tracks.filter((t) => t.kind === 'screenshots' && (noneHidden || visible(t)) && shows(t.name));
    const busy = p.threads.filter((th) => th.tracks.length > 0);
    /** Threads shown, and the tracks of each shown (null: all of them). @type {Thread[]} */
    let threads = ordered(busy, threadKey, order[pk]);
    /** @type {Array<Track[]|null>|null} */
    let only = null;
    if (!noneHidden || !all) {
      const kept = [];
      only = [];
      for (const th of threads) {
        const tracks = th.tracks.filter((t, i) => visible(t) && shows(trackLabel(th, t, i)));
        if (tracks.length === 0) continue;
        kept.push(th);
        only.push(tracks.length === th.tracks.length ? null : tracks);
      }
      threads = kept;
    }
    const idle = p.threads.filter((th) => th.tracks.length === 0 && !hidden.has(threadKey(th)) && shows(th.label));
    /** Groups shown, with their tracks shown. @type {Array<[string, Track[], Track[]]>} */
    const groupsShown = [];
    for (const [kind, list] of processGroups(p)) {
      if (list.length === 0) continue;
      const tracks = ordered(list, (t) => t.id, order[`${pk}:${kind}`]).filter((t) => (noneHidden || visible(t)) && shows(t.name));
      if (tracks.length > 0) groupsShown.push([kind, list, tracks]);
    }
    if (!all && film.length + threads.length + idle.length + groupsShown.length === 0) return;
    const y0 = y;
    const folded = match ? false : fold(pk, false);
    push(row('process', pk, HEADER_H, processLabel(p), '', p, null, null, folded, 0, 0, { parent: 'root', key: pk }));
    if (!folded) {
      for (const t of film) push(row('track', t.id, trackHeight(t), t.name, t.kind, p, null, t, false, 1, 0, null));
      for (let k = 0; k < threads.length; k++) {
        const th = threads[k];
        const these = only && only[k];
        const move = threadMoves[th.id] ?? (threadMoves[th.id] = { parent: pk, key: threadKey(th) });
        for (let i = 0; i < th.tracks.length; i++) {
          const t = th.tracks[i];
          if (these && !these.includes(t)) continue;
          push(row('track', t.id, trackHeight(t), trackLabel(th, t, i), i === 0 ? '' : t.kind, p, th.id, t, false, 1, 0, move));
        }
      }
      if (idle.length > 0) {
        const key = `${pk}:empty`;
        // A process with nothing else (behind the "empty processes" toggle) lists
        // its threads at once; with a filter, the ones it found show at once.
        const alone = busy.length === 0 && p.tracks.length === 0;
        const closed = alone || (match && !all) ? false : fold(key, true);
        if (!alone) {
          push(row('toggle', key, TOGGLE_H, `${idle.length} empty thread${idle.length === 1 ? '' : 's'}`, 'metadata only', p, null, null, closed, 1, idle.length, null));
        }
        if (!closed) for (const th of idle) push(row('empty', threadKey(th), EMPTY_H, th.label, '', p, th.id, null, false, alone ? 1 : 2, 0, null));
      }
      for (const [kind, list, tracks] of groupsShown) {
        if (!grouped(list)) {
          const t = tracks[0];
          push(row('track', t.id, trackHeight(t), t.name, t.kind, p, null, t, false, 1, 0, null));
          continue;
        }
        const gk = `${pk}:${kind}`;
        const closed = match && !all ? false : fold(gk, anyBusy && foldedByDefault(list));
        const sub = list.length > 1 ? `${tracks.length} tracks` : `${rowsOf(list)} rows`;
        push(row('group', gk, GROUP_H, GROUP_LABEL[kind], sub, p, null, null, closed, 1, tracks.length, null));
        if (closed) continue;
        for (const t of tracks) push(row('track', t.id, trackHeight(t), t.name, t.kind, p, null, t, false, 2, 0, { parent: gk, key: t.id }));
      }
    }
    groups.set(p.id, { y0, y1: y });
  };

  // A process's rows depend only on the filter, its own hidden and pinned tracks,
  // its folds and its order: when none changed, the rows of the last layout are
  // moved to their new place instead of being built again (pinning one track of
  // 10,000 rebuilds one process).
  const mine = choicesByProcess(summary, opts);
  /** @type {Map<number, Segment>} */
  const segments = segmentsOf(summary);
  /** @param {Process} p */
  const addProcess = (p) => {
    const sig = `${opts.filter}\u0000${mine.get(p.id) ?? ''}`;
    const seg = segments.get(p.id);
    if (seg && seg.sig === sig) {
      const dy = y - seg.y0;
      for (const r of seg.rows) {
        r.y += dy;
        rows.push(r);
        if (r.track) byTrack.set(r.track.id, r);
      }
      if (seg.rows.length) groups.set(p.id, { y0: y, y1: y + seg.h });
      seg.y0 = y;
      y += seg.h;
      return;
    }
    const from = rows.length;
    const y0 = y;
    buildProcess(p);
    segments.set(p.id, { sig, rows: rows.slice(from), y0, h: y - y0 });
  };

  const procs = ordered(summary.processes, processKey, order.root);
  const empty = procs.filter(isEmptyProcess);
  for (const p of procs) if (!isEmptyProcess(p)) addProcess(p);
  const emptyShown = empty.filter((p) => !hidden.has(processKey(p)) && (!match || match(processLabel(p)) || p.threads.some((th) => match(th.label))));
  if (emptyShown.length > 0) {
    const folded = match ? false : fold('empty', true);
    const first = emptyShown[0];
    push(row('toggle', 'empty', TOGGLE_H, `${emptyShown.length} empty process${emptyShown.length === 1 ? '' : 'es'}`, 'metadata only', first, null, null,
      folded, 0, emptyShown.length, null));
    if (!folded) for (const p of emptyShown) addProcess(p);
  }

  // The pinned area, in the order pinned.
  /** @type {Row[]} */
  const pinned = [];
  let py = 0;
  for (const id of opts.pinned) {
    const at = places.get(id);
    if (!at || hidden.has(id)) continue;
    const { track: t, process: p, thread: th } = at;
    const i = th ? th.tracks.indexOf(t) : 0;
    const own = th ? trackLabel(th, t, i) : t.name;
    const r = row('track', `pin|${id}`, trackHeight(t), own, p.name ?? p.label, p, th ? th.id : null, t, false, 0, 0, { parent: 'pinned', key: id });
    r.key = id;
    r.y = py;
    r.pinned = true;
    pinned.push(r);
    byTrack.set(id, r);
    py += r.h;
  }
  return { rows, height: y, pinned, pinnedH: py, byTrack, groups, filterError: filter.error };
}

/**
 * Index of the row containing y, or -1 (binary search: rows are sorted by y).
 * @param {Row[]} rows
 * @param {number} y
 */
export function rowIndexAt(rows, y) {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = rows[mid];
    if (y < r.y) hi = mid - 1;
    else if (y >= r.y + r.h) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/**
 * The rows intersecting [y0, y1).
 * @param {Row[]} rows
 * @param {number} y0
 * @param {number} y1
 */
export function visibleRows(rows, y0, y1) {
  let i = rowIndexAt(rows, Math.max(0, y0));
  if (i < 0) i = 0;
  const out = [];
  for (; i < rows.length && rows[i].y < y1; i++) if (rows[i].y + rows[i].h > y0) out.push(rows[i]);
  return out;
}

/**
 * The folds that would show `track` (its process, its group), or null if it is
 * drawn already or unknown.
 * @param {Map<string, TrackPlace>} places
 * @param {string} track
 * @returns {Record<string, boolean>|null}
 */
export function foldsToShow(places, track) {
  const at = places.get(track);
  if (!at) return null;
  /** @type {Record<string, boolean>} */
  const out = { [processKey(at.process)]: false };
  if (at.group) out[at.group] = false;
  if (isEmptyProcess(at.process)) out.empty = false;
  return out;
}
