// The track filter box: a case-insensitive substring or a `/regex/`, compiled once
// per text, and what it matches in each process, computed once per process and
// text. Every name a filter tests is lower-cased once per summary; a substring
// that extends an earlier one (`worker12` after `worker1`) tests only what the
// earlier one matched, so typing costs what the last keystroke left, not 10,000
// tracks.

/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {import('./types.js').Process} Process */
/** @typedef {import('./types.js').Thread} Thread */
/** @typedef {import('./types.js').Track} Track */

/**
 * A compiled filter. `key` names what it matches (`s:` and the lower-cased
 * substring, `r:` and the regex), `low` is the substring of a plain filter, `re`
 * the regex of a `/re/` one; a bad regex matches nothing and says why in `error`.
 * @typedef {{key: string, low: string|null, re: RegExp|null, error: string|null}} Filter
 */

/**
 * What a filter matches in one process: `all` when the process's own label
 * matches (it then shows everything), `hit[i]` when its i-th name matches (null:
 * none does). Two filters that match the same in a process share one Match (when
 * one extends the other: `wo` after `w`), so `id` names the process's rows.
 * @typedef {{id: number, all: boolean, hit: Uint8Array|null}} Match
 */

/** Nothing matches (shared by every filter and process). @type {Match} */
const NONE = Object.freeze({ id: 0, all: false, hit: null });
let nextId = 1;

/**
 * The names a filter tests in one process, in a fixed order (its tracks, its
 * threads' tracks, its threads without tracks), lower-cased, and where each is.
 * @typedef {{label: string, low: string, names: string[], lows: string[], at: Map<string, number>}} ProcessNames
 */

/** @type {Map<string, Filter|null>} */
const compiled = new Map();

/**
 * Compile the text of the filter box, once per text (null: no filter).
 * @param {string} text
 * @returns {Filter|null}
 */
export function compileFilter(text) {
  let f = compiled.get(text);
  if (f !== undefined) return f;
  if (compiled.size > 256) compiled.clear();
  f = compile(text);
  compiled.set(text, f);
  return f;
}

/** @param {string} text @returns {Filter|null} */
function compile(text) {
  const t = text.trim();
  if (t === '') return null;
  const m = t.match(/^\/(.+)\/([a-z]*)$/);
  if (!m) {
    const low = t.toLowerCase();
    return { key: `s:${low}`, low, re: null, error: null };
  }
  const flags = m[2].includes('i') ? m[2] : `${m[2]}i`;
  try {
    // Without `g` or `y` a regex keeps no state between tests.
    const re = new RegExp(m[1], flags.replace(/[gy]/g, ''));
    return { key: `r:${re}`, low: null, re, error: null };
  } catch (e) {
    return { key: `e:${t}`, low: null, re: null, error: /** @type {Error} */ (e).message };
  }
}

/**
 * Whether a compiled filter matches a name (`low`: the name lower-cased).
 * @param {Filter} f
 * @param {string} name
 * @param {string} low
 */
export function filterMatches(f, name, low) {
  if (f.low !== null) return low.includes(f.low);
  return f.re !== null && f.re.test(name);
}

/**
 * The filter box's test on one name: a case-insensitive substring, or a regex
 * written `/re/`.
 * @param {string} filter
 * @returns {{test: ((s: string) => boolean)|null, error: string|null}}
 */
export function filterTest(filter) {
  const f = compileFilter(filter);
  if (!f) return { test: null, error: null };
  return { test: (s) => filterMatches(f, s, s.toLowerCase()), error: f.error };
}

/**
 * A track's label: its thread's label on the thread's first track, later tracks
 * add their own name.
 * @param {Thread} th @param {Track} t @param {number} i the track's place in `th.tracks`
 */
export const trackLabel = (th, t, i) => (i === 0 ? th.label : `${th.label} · ${t.name}`);

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

/** A thread's key (for hiding, ordering, and its name in `ProcessNames`). @param {Thread} th */
export const threadKey = (th) => `T${th.id}`;

/** @type {WeakMap<Summary, Map<Process, ProcessNames>>} */
const namesCache = new WeakMap();

/**
 * The names of every process, once per summary.
 * @param {Summary} summary
 * @returns {Map<Process, ProcessNames>}
 */
export function namesOf(summary) {
  let out = namesCache.get(summary);
  if (out) return out;
  out = new Map(summary.processes.map((p) => {
    /** @type {Array<[string, string]>} */
    const list = [];
    for (const t of p.tracks) list.push([t.id, t.name]);
    for (const th of p.threads) {
      if (th.tracks.length === 0) list.push([threadKey(th), th.label]);
      th.tracks.forEach((t, i) => list.push([t.id, trackLabel(th, t, i)]));
    }
    const label = processLabel(p);
    const names = list.map((x) => x[1]);
    return [p, { label, low: label.toLowerCase(), names, lows: names.map((s) => s.toLowerCase()), at: new Map(list.map((x, i) => [x[0], i])) }];
  }));
  namesCache.set(summary, out);
  return out;
}

/**
 * Match results of the filters used lately, by filter key, per summary (a few:
 * retyping or deleting a character finds them again).
 * @type {WeakMap<Summary, Map<string, Map<Process, Match>>>}
 */
const matchCache = new WeakMap();
const KEEP = 16;

/**
 * What `f` matches in every process, once per summary and filter.
 * @param {Summary} summary
 * @param {Filter} f
 * @returns {Map<Process, Match>}
 */
export function matchesOf(summary, f) {
  let cache = matchCache.get(summary);
  if (!cache) matchCache.set(summary, (cache = new Map()));
  const had = cache.get(f.key);
  if (had) {
    cache.delete(f.key);
    cache.set(f.key, had);
    return had;
  }
  const names = namesOf(summary);
  // A substring inside this one matched everything this one can: test only that.
  /** @type {Map<Process, Match>|null} */
  let within = null;
  let best = -1;
  if (f.low !== null) {
    for (const [key, m] of cache) {
      const low = key.slice(2);
      if (key.startsWith('s:') && low.length > best && f.low.includes(low)) {
        within = m;
        best = low.length;
      }
    }
  }
  /** @type {Map<Process, Match>} */
  const out = new Map();
  for (const [p, n] of names) out.set(p, matchProcess(n, f, within ? within.get(p) ?? null : null));
  cache.set(f.key, out);
  if (cache.size > KEEP) cache.delete(/** @type {string} */ (cache.keys().next().value));
  return out;
}

/**
 * @param {ProcessNames} n
 * @param {Filter} f
 * @param {Match|null} within what a substring of `f` matched here (null: test all)
 * @returns {Match}
 */
function matchProcess(n, f, within) {
  if (within === NONE) return NONE;
  const all = (!within || within.all) && filterMatches(f, n.label, n.low);
  /** @type {Uint8Array|null} */
  let hit = null;
  const was = within ? within.hit : null;
  let lost = within !== null && within.all !== all;
  for (let i = 0; i < n.names.length; i++) {
    if (was && !was[i]) continue;
    if (!filterMatches(f, n.names[i], n.lows[i])) {
      lost = true;
      continue;
    }
    if (!hit) hit = new Uint8Array(n.names.length);
    hit[i] = 1;
  }
  if (within && !lost) return within;
  return !all && hit === null ? NONE : { id: nextId++, all, hit };
}
