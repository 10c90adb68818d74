// The vertical layout: pinned tracks on top, then each process as a foldable group:
// its filmstrip, its threads (the server's order: main thread first, busy ones
// next), its name-only threads behind an "N empty threads" toggle, its counters
// and async tracks in foldable groups (folded when there are many), its objects.
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
  if (p.frame_url) parts.push(p.frame_url);
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
      const group = list.length > 1 ? `${processKey(p)}:${kind}` : null;
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
  ];
}

const GROUP_LABEL = /** @type {Record<string, string>} */ ({ counters: 'Counters', async: 'Async' });

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
  let y = 0;

  /** @param {Process} p @param {Omit<Row, 'y'|'process'|'pinned'>} r */
  const push = (p, r) => {
    const row = { ...r, y, process: p, pinned: false };
    rows.push(row);
    if (row.track) byTrack.set(row.track.id, row);
    y += row.h;
  };
  /** @param {Track} t */
  const visible = (t) => !hidden.has(t.id) && !pinnedSet.has(t.id);
  /** A thread's label on its first track; later tracks name their kind. @param {Thread} th @param {Track} t @param {number} i */
  const trackLabel = (th, t, i) => (i === 0 ? th.label : `${th.label} · ${t.name}`);

  /**
   * One process: header and, unless folded, its rows. With a filter, only what
   * matches (everything when the process's own name matches).
   * @param {Process} p
   */
  const addProcess = (p) => {
    const pk = processKey(p);
    if (hidden.has(pk)) return;
    const all = !match || match(processLabel(p));
    const y0 = y;
    /** @type {Array<() => void>} */
    const body = [];
    let shown = 0;
    const film = p.tracks.filter((t) => t.kind === 'screenshots' || t.kind === 'objects');
    for (const t of ordered(film.filter((t) => t.kind === 'screenshots'), (t) => t.id, order[pk])) {
      if (!visible(t) || !(all || match?.(t.name))) continue;
      shown++;
      body.push(() => push(p, { kind: 'track', key: t.id, h: trackHeight(t), label: t.name, sub: t.kind, thread: null, track: t, collapsed: false, indent: 1, count: 0, move: null }));
    }
    const busy = p.threads.filter((th) => th.tracks.length > 0);
    for (const th of ordered(busy, threadKey, order[pk])) {
      const tracks = th.tracks.filter((t, i) => visible(t) && (all || match?.(trackLabel(th, t, i))));
      if (tracks.length === 0) continue;
      shown++;
      body.push(() => th.tracks.forEach((t, i) => {
        if (!tracks.includes(t)) return;
        push(p, { kind: 'track', key: t.id, h: trackHeight(t), label: trackLabel(th, t, i), sub: i === 0 ? '' : t.kind, thread: th.id, track: t,
          collapsed: false, indent: 1, count: 0, move: { parent: pk, key: threadKey(th) } });
      }));
    }
    const idle = p.threads.filter((th) => th.tracks.length === 0 && !hidden.has(threadKey(th)) && (all || match?.(th.label)));
    if (idle.length > 0) {
      shown++;
      body.push(() => {
        const key = `${pk}:empty`;
        // A process with nothing else (behind the "empty processes" toggle) lists
        // its threads at once; with a filter, the ones it found show at once.
        const alone = busy.length === 0 && p.tracks.length === 0;
        const folded = alone || (match && !all) ? false : fold(key, true);
        if (!alone) {
          push(p, { kind: 'toggle', key, h: TOGGLE_H, label: `${idle.length} empty thread${idle.length === 1 ? '' : 's'}`, sub: 'metadata only',
            thread: null, track: null, collapsed: folded, indent: 1, count: idle.length, move: null });
        }
        if (folded) return;
        for (const th of idle) {
          push(p, { kind: 'empty', key: threadKey(th), h: EMPTY_H, label: th.label, sub: '', thread: th.id, track: null, collapsed: false,
            indent: alone ? 1 : 2, count: 0, move: null });
        }
      });
    }
    for (const [kind, list] of processGroups(p)) {
      const gk = `${pk}:${kind}`;
      const tracks = ordered(list, (t) => t.id, order[gk]).filter((t) => visible(t) && (all || match?.(t.name)));
      if (tracks.length === 0) continue;
      shown++;
      if (list.length === 1) {
        const t = tracks[0];
        body.push(() => push(p, { kind: 'track', key: t.id, h: trackHeight(t), label: t.name, sub: t.kind, thread: null, track: t, collapsed: false, indent: 1, count: 0, move: null }));
        continue;
      }
      body.push(() => {
        const folded = match && !all ? false : fold(gk, list.length > MANY);
        push(p, { kind: 'group', key: gk, h: GROUP_H, label: GROUP_LABEL[kind], sub: `${tracks.length} tracks`, thread: null, track: null,
          collapsed: folded, indent: 1, count: tracks.length, move: null });
        if (folded) return;
        for (const t of tracks) {
          push(p, { kind: 'track', key: t.id, h: trackHeight(t), label: t.name, sub: t.kind, thread: null, track: t, collapsed: false, indent: 2, count: 0,
            move: { parent: gk, key: t.id } });
        }
      });
    }
    for (const t of film.filter((t) => t.kind === 'objects')) {
      if (!visible(t) || !(all || match?.(t.name))) continue;
      shown++;
      body.push(() => push(p, { kind: 'track', key: t.id, h: trackHeight(t), label: t.name, sub: t.kind, thread: null, track: t, collapsed: false, indent: 1, count: 0, move: null }));
    }
    if (match && shown === 0 && !all) return;
    const folded = match ? false : fold(pk, false);
    push(p, { kind: 'process', key: pk, h: HEADER_H, label: processLabel(p), sub: '', thread: null, track: null, collapsed: folded, indent: 0, count: 0,
      move: { parent: 'root', key: pk } });
    if (!folded) for (const f of body) f();
    groups.set(p.id, { y0, y1: y });
  };

  const procs = ordered(summary.processes, processKey, order.root);
  const empty = procs.filter(isEmptyProcess);
  for (const p of procs) if (!isEmptyProcess(p)) addProcess(p);
  const emptyShown = empty.filter((p) => !hidden.has(processKey(p)) && (!match || match(processLabel(p)) || p.threads.some((th) => match(th.label))));
  if (emptyShown.length > 0) {
    const folded = match ? false : fold('empty', true);
    const first = emptyShown[0];
    push(first, { kind: 'toggle', key: 'empty', h: TOGGLE_H, label: `${emptyShown.length} empty process${emptyShown.length === 1 ? '' : 'es'}`,
      sub: 'metadata only', thread: null, track: null, collapsed: folded, indent: 0, count: emptyShown.length, move: null });
    if (!folded) for (const p of emptyShown) addProcess(p);
  }

  // The pinned area, in the order pinned.
  const places = trackPlaces(summary);
  /** @type {Row[]} */
  const pinned = [];
  let py = 0;
  for (const id of opts.pinned) {
    const at = places.get(id);
    if (!at || hidden.has(id)) continue;
    const { track: t, process: p, thread: th } = at;
    const i = th ? th.tracks.indexOf(t) : 0;
    const own = th ? trackLabel(th, t, i) : t.name;
    const row = { kind: /** @type {const} */ ('track'), key: id, y: py, h: trackHeight(t), label: `${own}`, sub: p.name ?? p.label, process: p,
      thread: th ? th.id : null, track: t, collapsed: false, indent: 0, pinned: true, count: 0, move: { parent: 'pinned', key: id } };
    pinned.push(row);
    byTrack.set(id, row);
    py += row.h;
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
