// A selected range: its time span and the tracks it covers (null: all of them),
// and how those tracks become the `tracks=` of the range and profile requests.
import { rowIndexAt } from './layout.js';

/** @typedef {import('./layout.js').Row} Row */
/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {{t0: number, t1: number, tracks: string[]|null}} Range */

/**
 * Every track id of the trace, in display order (collapsed processes included).
 * @param {Summary} summary
 */
export function allTracks(summary) {
  const out = [];
  for (const p of summary.processes) {
    for (const t of p.tracks) out.push(t.id);
    for (const th of p.threads) for (const t of th.tracks) out.push(t.id);
  }
  return out;
}

/**
 * The tracks under a drag from content y `ya` to `yb` (either order): the track
 * rows it touches, and every track of a folded process whose header it touches.
 * Null when that is every track of the trace (no need to name them).
 * @param {Row[]} rows the layout's rows
 * @param {Summary} summary
 * @param {number} ya
 * @param {number} yb
 * @returns {string[]|null}
 */
export function tracksUnder(rows, summary, ya, yb) {
  const y0 = Math.min(ya, yb);
  const y1 = Math.max(ya, yb);
  let i = rowIndexAt(rows, Math.max(0, y0));
  if (i < 0) i = y0 < 0 ? 0 : rows.length;
  /** @type {Set<string>} */
  const got = new Set();
  for (; i < rows.length && rows[i].y <= y1; i++) {
    const r = rows[i];
    if (r.track) got.add(r.track.id);
    else if (r.kind === 'process' && r.collapsed) {
      for (const t of r.process.tracks) got.add(t.id);
      for (const th of r.process.threads) for (const t of th.tracks) got.add(t.id);
    }
  }
  const all = allTracks(summary);
  if (all.every((t) => got.has(t))) return null;
  return all.filter((t) => got.has(t));
}

/**
 * The tracks a range request accepts (thread slices, samples, counters) among
 * `tracks`; null stays null (every track).
 * @param {string[]|null} tracks
 */
export function rangeTracks(tracks) {
  return tracks && tracks.filter((t) => /^(s:\d+:\d+|p:\d+|c:\d+)$/.test(t));
}

/**
 * The samples tracks of the threads among `tracks` (a thread's slice track stands
 * for its samples too), limited to those that exist; null stays null.
 * @param {string[]|null} tracks
 * @param {Set<string>} samplesTracks every `p:` track of the trace
 */
export function profileTracks(tracks, samplesTracks) {
  if (!tracks) return null;
  const out = new Set();
  for (const t of tracks) {
    const m = t.match(/^(?:s:(\d+):\d+|p:(\d+))$/);
    if (!m) continue;
    const p = `p:${m[1] ?? m[2]}`;
    if (samplesTracks.has(p)) out.add(p);
  }
  return [...out];
}

/**
 * The range of a selected item (M): its span over every track; an instant gets
 * the nanosecond it is at.
 * @param {{ts: number, dur: number}} sel
 * @returns {Range}
 */
export function rangeOf(sel) {
  return { t0: sel.ts, t1: sel.ts + Math.max(1, sel.dur), tracks: null };
}
