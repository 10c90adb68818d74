// Finding what lies under the pointer, from the same tile data that is drawn.

/** @typedef {import('./types.js').SliceTile} SliceTile */

/**
 * Index of the item of `tile` on `row` under time `t`, or -1. Items narrower than
 * the tolerance are widened to it (a 1-pixel slice is still clickable); among
 * several candidates the one whose body contains `t` wins, then the nearest.
 * @param {SliceTile} tile
 * @param {number} row
 * @param {number} t ns
 * @param {number} tol ns (a few pixels' worth)
 */
export function hitItem(tile, row, t, tol) {
  let best = -1;
  let bestDist = Infinity;
  const n = tile.ts.length;
  for (let i = 0; i < n; i++) {
    if (tile.row[i] !== row) continue;
    const s = tile.ts[i];
    const e = s + tile.dur[i];
    const inside = t >= s && t < e;
    const d = inside ? 0 : t < s ? s - t : t - e;
    if ((inside || d < tol) && d < bestDist) {
      best = i;
      bestDist = d;
    }
  }
  return best;
}

/**
 * Index of the instant nearest to `t` within `tol`, or -1.
 * @param {{ts: number[]}} instants
 * @param {number} t
 * @param {number} tol
 */
export function hitInstant(instants, t, tol) {
  let best = -1;
  let bestDist = Infinity;
  for (let i = 0; i < instants.ts.length; i++) {
    const d = Math.abs(instants.ts[i] - t);
    if (d <= tol && d < bestDist) {
      best = i;
      bestDist = d;
    }
  }
  return best;
}

/**
 * The counter value in effect at `t`: the last point at or before it, or null.
 * Points are sorted by time.
 * @param {{ts: number[], value: number[]}} pts
 * @param {number} t
 */
export function counterValueAt(pts, t) {
  let lo = 0;
  let hi = pts.ts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (pts.ts[mid] <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? null : pts.value[found];
}

/**
 * Which sub-row of a track a y offset (from the track's top) falls in, or -1.
 * @param {number} dy
 * @param {number} rowH
 * @param {number} rows
 * @param {number} pad top padding of the track
 */
export function rowAt(dy, rowH, rows, pad) {
  const r = Math.floor((dy - pad) / rowH);
  return r >= 0 && r < rows ? r : -1;
}
