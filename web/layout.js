// The vertical layout: processes as collapsible groups, each with its process-level
// tracks then its threads' tracks, in the server's display order.

/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {import('./types.js').Track} Track */
/** @typedef {import('./types.js').Process} Process */

/** Height of the time ruler above the tracks. */
export const RULER_H = 26;
export const ROW_H = 18;
export const HEADER_H = 24;
export const COUNTER_H = 40;
export const EMPTY_H = 20;
export const TRACK_PAD = 4;

/**
 * @typedef {{kind: 'process'|'track'|'empty', y: number, h: number, label: string,
 *   sub: string, process: Process, processIndex: number, thread: number|null,
 *   track: Track|null, collapsed: boolean}} Row
 * @typedef {{rows: Row[], height: number, byTrack: Map<string, Row>,
 *   groups: Map<number, {y0: number, y1: number}>}} Layout
 */

/**
 * Height of a track's row.
 * @param {Track} track
 */
export function trackHeight(track) {
  if (track.kind === 'counter') return COUNTER_H;
  return Math.max(1, track.rows) * ROW_H + TRACK_PAD;
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

/**
 * Lay out every track top to bottom.
 * @param {Summary} summary
 * @param {Set<number>} collapsed process ids whose group is folded
 * @returns {Layout}
 */
export function buildLayout(summary, collapsed) {
  /** @type {Row[]} */
  const rows = [];
  /** @type {Map<string, Row>} */
  const byTrack = new Map();
  /** @type {Map<number, {y0: number, y1: number}>} */
  const groups = new Map();
  let y = 0;
  summary.processes.forEach((p, processIndex) => {
    const folded = collapsed.has(p.id);
    const y0 = y;
    /** @param {Omit<Row, 'y'|'process'|'processIndex'|'collapsed'>} r */
    const push = (r) => {
      const row = { ...r, y, process: p, processIndex, collapsed: folded };
      rows.push(row);
      if (row.track) byTrack.set(row.track.id, row);
      y += row.h;
    };
    push({ kind: 'process', h: HEADER_H, label: processLabel(p), sub: '', thread: null, track: null });
    if (!folded) {
      for (const t of p.tracks) {
        push({ kind: 'track', h: trackHeight(t), label: t.name, sub: t.kind, thread: null, track: t });
      }
      for (const th of p.threads) {
        if (th.tracks.length === 0) {
          // A thread known only by name still shows, so its name is visible.
          push({ kind: 'empty', h: EMPTY_H, label: th.label, sub: '', thread: th.id, track: null });
        }
        th.tracks.forEach((t, i) => {
          const label = i === 0 ? th.label : `${th.label} · ${t.name}`;
          push({ kind: 'track', h: trackHeight(t), label, sub: i === 0 ? '' : t.kind, thread: th.id, track: t });
        });
      }
    }
    groups.set(p.id, { y0, y1: y });
  });
  return { rows, height: y, byTrack, groups };
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
