// The timeline's margins: track labels on the left, the time ruler on top (ticks,
// global instant markers, the marked range and its length).
import { ROW_H, TRACK_PAD, RULER_H } from './layout.js';
import { fitText } from './tracks.js';
import { formatDuration } from './format.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./layout.js').Row} Row */

/**
 * The track labels on the left.
 * @param {Timeline} tl
 * @param {Row[]} rows
 */
export function drawLabels(tl, rows) {
  const { ctx, theme } = tl;
  const lw = tl.labelW;
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, RULER_H, lw, tl.h - RULER_H);
  ctx.clip();
  ctx.fillStyle = theme.labelBg;
  ctx.fillRect(0, RULER_H, lw, tl.h - RULER_H);
  for (const row of rows) {
    const y = tl.cy(row.y);
    ctx.fillStyle = theme.grid;
    ctx.fillRect(0, y + row.h - 1, lw, 1);
    if (row.kind === 'process') {
      ctx.fillStyle = theme.headerBg;
      ctx.fillRect(0, y, lw, row.h - 1);
      ctx.fillStyle = theme.fg;
      ctx.font = 'bold 12px system-ui, sans-serif';
      ctx.fillText(row.collapsed ? '▸' : '▾', 6, y + row.h / 2);
      const t = fitText(ctx, row.label, lw - 26);
      if (t) ctx.fillText(t, 20, y + row.h / 2);
    } else {
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillStyle = row.kind === 'empty' ? theme.muted : theme.fg;
      const t = fitText(ctx, row.label, lw - 24);
      if (t) ctx.fillText(t, 18, y + Math.min(row.h, ROW_H + TRACK_PAD) / 2);
    }
  }
  ctx.restore();
  ctx.fillStyle = theme.grid;
  ctx.fillRect(lw - 1, RULER_H, 1, tl.h - RULER_H);
  ctx.font = '11px system-ui, sans-serif';
}

/**
 * The time ruler on top: ticks, global instants, the marked range.
 * @param {Timeline} tl
 * @param {import('./timescale.js').Tick[]} ticks
 */
export function drawRuler(tl, ticks) {
  const { ctx, theme, scale } = tl;
  const x0 = tl.labelW;
  ctx.fillStyle = theme.headerBg;
  ctx.fillRect(0, 0, tl.w, RULER_H);
  ctx.fillStyle = theme.grid;
  ctx.fillRect(0, RULER_H - 1, tl.w, 1);
  ctx.save();
  ctx.beginPath();
  ctx.rect(x0, 0, tl.w - x0, RULER_H);
  ctx.clip();
  ctx.fillStyle = theme.fg;
  for (const t of ticks) {
    ctx.fillRect(Math.round(x0 + t.px), RULER_H - 7, 1, 6);
    ctx.fillText(t.label, x0 + t.px + 3, RULER_H / 2 - 2);
  }
  for (const g of tl.globals) {
    const x = x0 + g.x;
    ctx.fillStyle = g.fill;
    ctx.beginPath();
    ctx.moveTo(x - 5, RULER_H - 9);
    ctx.lineTo(x + 5, RULER_H - 9);
    ctx.lineTo(x, RULER_H - 1);
    ctx.fill();
  }
  if (tl.mark) {
    const a = x0 + scale.toPx(tl.mark.t0);
    const b = x0 + scale.toPx(tl.mark.t1);
    ctx.fillStyle = theme.select;
    ctx.fillRect(a, RULER_H - 3, Math.max(1, b - a), 3);
    const label = formatDuration(tl.mark.t1 - tl.mark.t0);
    ctx.fillText(label, Math.max(x0 + 2, (a + b) / 2 - 20), RULER_H - 9);
  }
  ctx.restore();
  ctx.fillStyle = theme.muted;
  ctx.fillText(`${tl.summary.name}`.slice(0, 40), 6, RULER_H / 2);
}
