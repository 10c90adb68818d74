// Object snapshots on `objects` tracks: a small diamond at each snapshot's time on
// its object's lane, and which one lies under the pointer.
import { ROW_H } from './layout.js';

/** @typedef {import('./types.js').TileSnapshots} TileSnapshots */
/** @typedef {import('./timescale.js').TimeScale} TimeScale */

/** Half the diamond's width, px. */
export const DIAMOND = 5;

/**
 * Index of the snapshot on `row` nearest to `t` within `tol` ns, or -1.
 * @param {TileSnapshots} snaps
 * @param {number} row
 * @param {number} t
 * @param {number} tol
 */
export function hitSnapshot(snaps, row, t, tol) {
  let best = -1;
  let bestDist = Infinity;
  for (let i = 0; i < snaps.ts.length; i++) {
    if (snaps.row[i] !== row) continue;
    const d = Math.abs(snaps.ts[i] - t);
    if (d <= tol && d < bestDist) {
      best = i;
      bestDist = d;
    }
  }
  return best;
}

/**
 * Diamonds for the snapshots of an objects track whose top is `y` (canvas px),
 * the time axis starting at `x0`, its first row at `y`. A snapshot in two tiles is drawn once.
 * @param {CanvasRenderingContext2D} ctx
 * @param {Array<{data: {snapshots?: TileSnapshots}}>} tiles
 * @param {TimeScale} scale
 * @param {number} x0
 * @param {number} y
 * @param {{fg: string, bg: string}} theme
 */
export function drawSnapshots(ctx, tiles, scale, x0, y, theme) {
  const seen = new Set();
  ctx.fillStyle = theme.bg;
  ctx.strokeStyle = theme.fg;
  ctx.lineWidth = 1.5;
  for (const tile of tiles) {
    const s = tile.data.snapshots;
    if (!s) continue;
    for (let i = 0; i < s.ts.length; i++) {
      const key = `${s.object[i]}:${s.index[i]}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const x = scale.toPx(s.ts[i]);
      if (x < -DIAMOND || x > scale.width + DIAMOND) continue;
      const cx = x0 + x;
      const cy = y + s.row[i] * ROW_H + ROW_H / 2 - 0.5;
      ctx.beginPath();
      ctx.moveTo(cx, cy - DIAMOND);
      ctx.lineTo(cx + DIAMOND, cy);
      ctx.lineTo(cx, cy + DIAMOND);
      ctx.lineTo(cx - DIAMOND, cy);
      ctx.closePath();
      ctx.fill();
      ctx.stroke();
    }
  }
}

/**
 * A selected snapshot: a ring around its diamond.
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} cx
 * @param {number} cy
 * @param {string} color
 */
export function outlineDiamond(ctx, cx, cy, color) {
  const r = DIAMOND + 3;
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(cx, cy - r);
  ctx.lineTo(cx + r, cy);
  ctx.lineTo(cx, cy + r);
  ctx.lineTo(cx - r, cy);
  ctx.closePath();
  ctx.stroke();
}
