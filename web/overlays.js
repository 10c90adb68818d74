// Overlays on the timeline: the selected range (over all tracks, or only over the
// tracks it was dragged across), outlines of highlighted slices (a group of the
// range table), flow arrows, and which global instants to draw.
import { RULER_H, ROW_H } from './layout.js';
import { colorFor } from './colors.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./types.js').RangeSlicesAnswer} RangeSlicesAnswer */

/**
 * Shade the marked range: full height, or the rows of its tracks.
 * @param {Timeline} tl
 */
export function drawMark(tl) {
  const m = tl.mark;
  if (!m) return;
  const { ctx, theme, scale } = tl;
  const a = tl.labelW + scale.toPx(m.t0);
  const w = Math.max(1, scale.toPx(m.t1) - scale.toPx(m.t0));
  ctx.fillStyle = theme.mark;
  if (!m.tracks) {
    ctx.fillRect(a, RULER_H, w, tl.h);
    return;
  }
  for (const id of m.tracks) {
    const r = tl.layout.byTrack.get(id);
    if (!r) continue;
    const y = tl.rowTop(r);
    if (y > tl.h || y + r.h < RULER_H) continue;
    ctx.fillRect(a, y, w, r.h);
  }
  // Its edges, so a narrow range over a few tracks is still visible.
  ctx.fillStyle = theme.select;
  ctx.fillRect(a, RULER_H, 1, tl.h);
  ctx.fillRect(a + w - 1, RULER_H, 1, tl.h);
}

/**
 * Outline the highlighted slices that are in view (at least 3 px wide).
 * @param {Timeline} tl
 */
export function drawHighlights(tl) {
  const h = tl.highlight;
  if (!h) return;
  const { ctx, theme, scale } = tl;
  ctx.strokeStyle = theme.hl;
  ctx.lineWidth = 2;
  for (let i = 0; i < h.id.length; i++) {
    const a = scale.toPx(h.ts[i]);
    const b = scale.toPx(h.ts[i] + h.dur[i]);
    if (b < -3 || a > scale.width + 3) continue;
    const y = tl.rowY(h.track[i], h.row[i]);
    if (y === null || y < RULER_H - ROW_H || y > tl.h + ROW_H) continue;
    const xa = Math.max(-3, a);
    const xb = Math.min(scale.width + 3, Math.max(b, a + 3));
    ctx.strokeRect(tl.labelW + xa - 1, y - ROW_H / 2, xb - xa + 2, ROW_H - 1);
  }
}

/**
 * Global instants in view, at most one per 3 pixels, from a time-sorted index
 * built once (a trace may hold many thousands).
 * @param {Timeline} tl
 * @returns {Array<{x: number, fill: string}>}
 */
export function visibleGlobals(tl) {
  const gi = tl.summary.global_instants;
  if (!tl.globalOrder) {
    tl.globalOrder = Array.from(gi.ts, (_, i) => i).sort((a, b) => gi.ts[a] - gi.ts[b]);
  }
  const order = tl.globalOrder;
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (gi.ts[order[mid]] < tl.scale.t0) lo = mid + 1;
    else hi = mid;
  }
  const out = [];
  let last = -Infinity;
  for (let k = lo; k < order.length && out.length < 2000; k++) {
    const i = order[k];
    if (gi.ts[i] > tl.scale.t1) break;
    const x = tl.scale.toPx(gi.ts[i]);
    if (x - last < 3) continue;
    last = x;
    out.push({ x, fill: colorFor(gi.name[i], null, tl.theme.dark) });
  }
  return out;
}

/** A flow arrow as a curve with a head. @param {Timeline} tl @param {import('./timeline.js').Arrow} a @param {string} color */
export function drawArrow(tl, a, color) {
  const { ctx, scale } = tl;
  const y1 = tl.rowY(a.fromTrack, a.fromRow);
  const y2 = tl.rowY(a.toTrack, a.toRow);
  if (y1 === null || y2 === null) return;
  const x1 = tl.labelW + scale.toPx(a.fromTs);
  const x2 = tl.labelW + scale.toPx(a.toTs);
  const dx = Math.max(20, Math.abs(x2 - x1) / 2);
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.bezierCurveTo(x1 + dx, y1, x2 - dx, y2, x2, y2);
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(x2, y2);
  ctx.lineTo(x2 - 7, y2 - 4);
  ctx.lineTo(x2 - 7, y2 + 4);
  ctx.closePath();
  ctx.fill();
}
