// Overlays of the analysis on the timeline: the selected range (over all tracks,
// or only over the tracks it was dragged across) and the outlines of highlighted
// slices (a group of the range table).
import { RULER_H, ROW_H } from './layout.js';

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
    const y = tl.cy(r.y);
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
