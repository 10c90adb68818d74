// The server's API (docs/api.md): JSON fetches, and a cache of track tiles.
//
// A tile is what one track holds over a power-of-two span of time at a fixed pixel
// width, so panning reuses tiles and only fetches the new edge, and zooming by less
// than 2x reuses the same level. Requests go through a small queue: the browser
// never stalls them behind its connection limit (so their timings are real), the
// same tile is fetched once however often it is asked for (coalescing), and tiles
// no longer wanted by the latest frame are dropped or aborted (stale requests).
// While the view moves, a tile seen by only one frame is not fetched: a fast pan or
// zoom passes over hundreds of tiles that would be gone before they arrived, and
// fetching them (about 10 ms of CPU each across the page's worker, the browser and
// the server) took a core from the frames (BENCHMARKS.md, "Frame times").
// Tiles are fetched and parsed in a worker (tileworker.js) and arrive as typed arrays.

/** @typedef {import('./types.js').SliceTile} SliceTile */
/** @typedef {import('./types.js').CounterTile} CounterTile */

/** Pixels a tile is fetched for. */
export const TILE_PX = 512;
/** Smallest level: a tile never spans less than 2^6 ns. */
export const MIN_LEVEL = 6;
/** Requests in flight at once (below the browser's 6 per host). */
export const MAX_INFLIGHT = 4;
/** ... while the view moves: each answer costs the frames CPU (the worker, the
 * browser's network threads, the server), and a burst of them made the slow frames. */
export const MOVING_INFLIGHT = 2;
/** Tiles kept in memory, least recently used dropped first: a few screens' worth. */
export const MAX_TILES = 600;
/** While the view moves, a tile is fetched once a second frame still wants it, or
 * after this many ms without a new frame (the motion stopped). */
export const SETTLE_MS = 40;

/**
 * The tile level for a scale: tiles span 2^level ns and are fetched at TILE_PX
 * pixels, so a tile's resolution is never coarser than the screen's.
 * @param {number} nsPerPx
 */
export function tileLevel(nsPerPx) {
  return Math.max(MIN_LEVEL, Math.floor(Math.log2(Math.max(1e-9, nsPerPx) * TILE_PX)));
}

/**
 * Indexes of the tiles of `level` covering [t0, t1].
 * @param {number} t0
 * @param {number} t1
 * @param {number} level
 * @returns {number[]}
 */
export function tileRange(t0, t1, level) {
  const w = 2 ** level;
  const out = [];
  for (let i = Math.floor(t0 / w); i * w <= t1; i++) out.push(i);
  return out;
}

/**
 * @template T
 * @typedef {{key: string, track: string, level: number, index: number,
 *   state: 'queued'|'loading'|'ready'|'error', data: T|null, used: number,
 *   ctrl: AbortController|null, prepared: unknown, stale?: boolean, asked: number}} Tile
 */

/**
 * Fetch JSON; throws with the server's error message on a non-2xx status.
 * @param {string} url
 * @param {AbortSignal} [signal]
 */
export async function getJSON(url, signal) {
  const res = await fetch(url, { signal });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error((body && body.error) || `${res.status} ${res.statusText} for ${url}`);
  return body;
}

/**
 * A range of the analysis: times, the tracks it is limited to (null: all), and
 * optionally one slice name ("select all with this name").
 * @typedef {{t0: number, t1: number, tracks: string[]|null, name: string|null,
 *   by: import('./types.js').GroupBy}} RangeQuery
 * @typedef {{t0: number|null, t1: number|null, tracks: string[]|null,
 *   view: 'top-down'|'bottom-up'|'functions'|'sandwich', maxNodes?: number,
 *   source?: 'samples'|'slices', threads?: number[]|null, filter?: string, regex?: boolean,
 *   fn?: {name: string, url: string|null, line: number, column: number}}} ProfileQuery
 */

/**
 * Query string of a range request (docs/api.md, "Range analysis"): integer times
 * covering the range, optional tracks and name.
 * @param {RangeQuery} q
 */
export function rangeParams(q) {
  const p = new URLSearchParams({ t0: String(Math.floor(q.t0)), t1: String(Math.ceil(q.t1)), by: q.by });
  if (q.tracks) p.set('tracks', q.tracks.join(','));
  if (q.name !== null) p.set('name', q.name);
  return p.toString();
}

/**
 * @typedef {{q: string, regex: boolean, offset?: number, limit?: number, sort?: 'time'|'duration',
 *   order?: 'asc'|'desc', until?: 'page'|'done', wait?: number, fields?: string}} SearchQuery
 */

/**
 * Query string of a search request.
 * @param {SearchQuery} q
 */
export function searchParams(q) {
  const p = new URLSearchParams({ q: q.q, regex: q.regex ? '1' : '0' });
  for (const k of /** @type {const} */ (['offset', 'limit', 'sort', 'order', 'until', 'wait', 'fields'])) {
    const v = q[k];
    if (v !== undefined) p.set(k, String(v));
  }
  return p.toString();
}

/**
 * Query string of a profile request; no times means the whole trace.
 * @param {ProfileQuery} q
 */
export function profileParams(q) {
  const p = new URLSearchParams();
  if (q.t0 !== null && q.t1 !== null) {
    p.set('t0', String(Math.floor(q.t0)));
    p.set('t1', String(Math.ceil(q.t1)));
  }
  if (q.tracks) p.set('tracks', q.tracks.join(','));
  if (q.threads) p.set('threads', q.threads.join(','));
  if (q.source) p.set('source', q.source);
  if (q.filter) {
    p.set('filter', q.filter);
    if (q.regex) p.set('regex', '1');
  }
  p.set('view', q.view);
  if (q.fn) {
    p.set('name', q.fn.name);
    if (q.fn.url) p.set('url', q.fn.url);
    if (q.fn.line >= 0) p.set('line', String(q.fn.line));
    if (q.fn.column >= 0) p.set('column', String(q.fn.column));
  }
  p.set('max_nodes', String(q.maxNodes ?? 20000));
  return p.toString();
}

export class Api {
  /** @param {string} [base] */
  constructor(base = '') {
    this.base = base;
    /** @type {Map<string, Tile<any>>} */
    this.tiles = new Map();
    /** @type {Tile<any>[]} */
    this.queue = [];
    this.inflight = 0;
    this.frame = 0;
    /** Whether the view moved in the current frame (its new tiles wait: SETTLE_MS). */
    this.moving = false;
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.settleTimer = null;
    /** Called when a tile arrives (the timeline redraws). */
    this.onTile = () => {};
    /** @type {Map<string, Promise<any>>} answers that never change, by path ("/api/slice/12") */
    this.details = new Map();
    /** @type {Array<() => void>} */
    this.idleWaiters = [];
    /** @type {Map<string, (m: {data?: any, error?: string, ms: number}) => void>} */
    this.replies = new Map();
    /** Request times in ms (fetch to last byte, measured in the worker), for benchmarks. */
    /** @type {number[]|null} */
    this.timings = null;
    /** @type {{postMessage: (m: unknown) => void, onmessage: ((e: MessageEvent) => void) | null} | null} */
    this.worker = null;
    /** @type {Array<{key: string, url?: string, abort?: boolean}>} messages for the worker, sent
     * together at the end of pump(): each message wakes the worker's thread, which on a
     * busy two-core machine took the CPU from the frame being drawn */
    this.outbox = [];
  }

  /** The tile worker, started on first use. */
  tileWorker() {
    if (!this.worker) {
      this.worker = this.makeWorker();
      this.worker.onmessage = (e) => {
        const f = this.replies.get(e.data.key);
        this.replies.delete(e.data.key);
        if (f) f(e.data);
      };
    }
    return this.worker;
  }

  /** @returns {{postMessage: (m: unknown) => void, onmessage: ((e: MessageEvent) => void) | null}} */
  makeWorker() {
    return new Worker(new URL('./tileworker.js', import.meta.url));
  }

  /**
   * Start a frame: tiles asked for from now on are the wanted ones.
   * @param {boolean} [moving] the view moved since the last frame: tiles first
   *   wanted now are fetched only if the next frame wants them too (or the motion stops)
   */
  beginFrame(moving = false) {
    this.frame++;
    this.moving = moving;
  }

  /**
   * The tile if loaded; otherwise asks for it (once) and returns null.
   * @param {string} track
   * @param {number} level
   * @param {number} index
   * @returns {Tile<any> | null}
   */
  tile(track, level, index) {
    const key = `${track}|${level}|${index}`;
    let t = this.tiles.get(key);
    if (!t) {
      t = { key, track, level, index, state: 'queued', data: null, used: this.frame, ctrl: null, prepared: null, asked: this.moving ? this.frame : -1 };
      this.tiles.set(key, t);
      this.queue.push(t);
    }
    t.used = this.frame;
    if (t.state === 'error' && t.data === null) return null;
    return t.state === 'ready' ? t : null;
  }

  /**
   * A loaded tile without asking for it (used for fallbacks while loading).
   * @param {string} track
   * @param {number} level
   * @param {number} index
   */
  peek(track, level, index) {
    const t = this.tiles.get(`${track}|${level}|${index}`);
    if (t && t.state === 'ready') {
      t.used = this.frame;
      return t;
    }
    return null;
  }

  /** End a frame: drop stale requests, start wanted ones, evict old tiles. */
  endFrame() {
    const frame = this.frame;
    this.queue = this.queue.filter((t) => {
      if (t.used >= frame) return true;
      this.tiles.delete(t.key);
      return false;
    });
    for (const t of this.tiles.values()) {
      // In flight for a view left two frames ago: abort, the answer would be unused.
      if (t.state === 'loading' && t.used < frame - 1 && t.ctrl) {
        t.ctrl.abort();
      }
    }
    this.pump();
    if (this.settleTimer !== null) clearTimeout(this.settleTimer);
    this.settleTimer = null;
    if (this.queue.some((t) => t.asked === frame)) {
      // No frame after this one (the motion stopped): fetch what it wanted.
      this.settleTimer = setTimeout(() => {
        this.settleTimer = null;
        if (this.frame !== frame) return;
        for (const t of this.queue) t.asked = -1;
        this.pump();
      }, SETTLE_MS);
    }
    if (this.tiles.size > MAX_TILES) {
      const ready = [...this.tiles.values()].filter((t) => t.state === 'ready' && t.used < frame);
      ready.sort((a, b) => a.used - b.used);
      for (const t of ready.slice(0, this.tiles.size - MAX_TILES)) this.tiles.delete(t.key);
    }
    this.checkIdle();
  }

  /**
   * The trace has a new version (`view --follow`): every tile and detail may have
   * changed. Loaded tiles stay drawn while their new answer is fetched again (no
   * blank frame); answers cached by id are dropped (ids may now name other items).
   */
  refresh() {
    this.details.clear();
    for (const t of this.tiles.values()) {
      if (t.state === 'ready' && !t.ctrl) {
        t.stale = true;
        if (!this.queue.includes(t)) this.queue.push(t);
      } else if (t.state === 'loading' && t.ctrl) {
        t.ctrl.abort();
      } else if (t.state === 'error') {
        this.tiles.delete(t.key);
      }
    }
    this.pump();
  }

  /** Start queued requests up to the in-flight limit, in order, except tiles
   * only the current frame of a moving view asked for. */
  pump() {
    const limit = this.moving ? MOVING_INFLIGHT : MAX_INFLIGHT;
    for (let k = 0; this.inflight < limit && k < this.queue.length; ) {
      const t = this.queue[k];
      if (t.asked === this.frame) {
        k++;
        continue;
      }
      this.queue.splice(k, 1);
      this.load(t);
    }
    if (this.outbox.length) {
      this.tileWorker().postMessage(this.outbox);
      this.outbox = [];
    }
  }

  /** @param {Tile<any>} t */
  async load(t) {
    const w = 2 ** t.level;
    const t0 = t.index * w;
    const url = new URL(`${this.base}/api/track/${encodeURIComponent(t.track)}?t0=${t0}&t1=${t0 + w}&px=${TILE_PX}`, globalThis.location?.href ?? 'http://localhost/').href;
    // A stale tile stays drawn (ready) until its new answer replaces it.
    if (!t.stale) t.state = 'loading';
    this.inflight++;
    /** @type {{data?: any, error?: string, ms: number}} */
    const reply = await new Promise((resolve) => {
      this.replies.set(t.key, resolve);
      t.ctrl = new AbortController();
      t.ctrl.signal.addEventListener('abort', () => {
        this.outbox.push({ key: t.key, abort: true });
        this.replies.delete(t.key);
        resolve({ error: 'abort', ms: 0 });
      });
      this.outbox.push({ key: t.key, url });
    });
    t.ctrl = null;
    this.inflight--;
    if (this.timings && reply.error !== 'abort') this.timings.push(reply.ms);
    if (t.stale && reply.error !== undefined) {
      // Kept as it was; asked again at the next new version.
      t.stale = false;
    } else if (reply.error === 'abort') {
      if (this.tiles.get(t.key) === t) this.tiles.delete(t.key);
    } else if (reply.error !== undefined) {
      // Kept as an error so it is not fetched again in a loop; shown as empty.
      t.state = 'error';
      console.warn(`tile ${url}: ${reply.error}`);
    } else {
      t.data = reply.data;
      t.prepared = null;
      t.stale = false;
      t.state = 'ready';
      this.onTile();
    }
    this.pump();
    this.checkIdle();
  }

  /** True when nothing is queued or in flight. */
  isIdle() {
    return this.inflight === 0 && this.queue.length === 0;
  }

  checkIdle() {
    if (!this.isIdle()) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  /** Resolves when no request is pending. @returns {Promise<void>} */
  whenIdle() {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** @returns {Promise<import('./types.js').Summary>} */
  summary() {
    return getJSON(`${this.base}/api/summary`);
  }

  /**
   * Details of a slice or async item, cached (they never change).
   * @param {'slice'|'async'} kind
   * @param {number} id
   * @returns {Promise<import('./types.js').Details>}
   */
  item(kind, id) {
    return this.cached(`/api/${kind}/${id}`);
  }

  /**
   * A JSON answer that never changes, fetched once (a failure is not kept).
   * @param {string} path
   */
  cached(path) {
    let p = this.details.get(path);
    if (!p) {
      p = getJSON(`${this.base}${path}`);
      p.catch(() => this.details.delete(path));
      this.details.set(path, p);
    }
    return p;
  }

  /**
   * Details of an instant, cached.
   * @param {number} id
   * @returns {Promise<import('./types.js').InstantDetails>}
   */
  instant(id) {
    return this.cached(`/api/instant/${id}`);
  }

  /**
   * A page of a search's matches: `/api/search` (the server keeps the search while
   * its pages are asked for).
   * @param {SearchQuery} q
   * @param {AbortSignal} [signal]
   * @returns {Promise<import('./types.js').SearchAnswer>}
   */
  search(q, signal) {
    return getJSON(`${this.base}/api/search?${searchParams(q)}`, signal);
  }

  /**
   * Statistics of the slices (and counters) in a range: `/api/range`.
   * @param {RangeQuery} q
   * @param {AbortSignal} [signal]
   * @returns {Promise<import('./types.js').RangeAnswer>}
   */
  range(q, signal) {
    return getJSON(`${this.base}/api/range?${rangeParams(q)}`, signal);
  }

  /**
   * The slices of one group of a range: `/api/range/slices`.
   * @param {RangeQuery} q
   * @param {string} key the group's key (for by=thread: the thread id)
   * @param {number} limit
   * @param {AbortSignal} [signal]
   * @returns {Promise<import('./types.js').RangeSlicesAnswer>}
   */
  rangeSlices(q, key, limit, signal) {
    return getJSON(`${this.base}/api/range/slices?${rangeParams(q)}&key=${encodeURIComponent(key)}&limit=${limit}`, signal);
  }

  /**
   * A call tree, a function table or a sandwich: `/api/profile`.
   * @param {ProfileQuery} q
   * @param {AbortSignal} [signal]
   * @returns {Promise<any>} ProfileAnswer, FunctionsAnswer or SandwichAnswer by view
   */
  profile(q, signal) {
    return getJSON(`${this.base}/api/profile?${profileParams(q)}`, signal);
  }

  /**
   * An object instance with its snapshots, cached.
   * @param {number} id
   * @returns {Promise<import('./types.js').ObjectAnswer>}
   */
  object(id) {
    return this.cached(`/api/object/${id}`);
  }

  /**
   * @param {number} t0
   * @param {number} t1
   * @param {AbortSignal} [signal]
   * @returns {Promise<import('./types.js').FlowsAnswer>}
   */
  flows(t0, t1, signal) {
    return getJSON(`${this.base}/api/flows?t0=${Math.floor(t0)}&t1=${Math.ceil(t1)}`, signal);
  }
}
