// The timeline's margins: track labels on the left, the time ruler on top (ticks,
// global instant markers, the marked range and its length).
import { ROW_H, TRACK_PAD, RULER_H } from './layout.js';
import { fitText, textWidth } from './tracks.js';
import { formatDuration } from './format.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./layout.js').Row} Row */

/** Width of a label-column button (pin, hide), px. */
export const BUTTON_W = 18;

/**
 * The buttons at the right end of a row's label: pin (tracks) and hide (tracks
 * and processes), as x ranges in the label column.
 * @param {Timeline} tl
 * @param {Row} row
 * @returns {Array<{action: 'pin'|'hide', x: number}>}
 */
export function labelButtons(tl, row) {
  if (row.kind === 'track') return [{ action: 'pin', x: tl.labelW - 2 * BUTTON_W - 4 }, { action: 'hide', x: tl.labelW - BUTTON_W - 4 }];
  if (row.kind === 'process') return [{ action: 'hide', x: tl.labelW - BUTTON_W - 4 }];
  return [];
}

/**
 * A pushpin: a filled head and a needle, centred at (x, y).
 * @param {CanvasRenderingContext2D} ctx @param {number} x @param {number} y @param {string} color @param {boolean} filled
 */
function drawPin(ctx, x, y, color, filled) {
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.arc(x, y - 2, 3.5, 0, Math.PI * 2);
  if (filled) ctx.fill();
  else ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(x, y + 1.5);
  ctx.lineTo(x, y + 6);
  ctx.stroke();
}

/**
 * The label of one row: fold triangle, indent, name, and on hover its buttons.
 * @param {Timeline} tl
 * @param {Row} row
 * @param {number} y canvas y of the row's top
 */
function drawLabel(tl, row, y) {
  const { ctx, theme } = tl;
  const lw = tl.labelW;
  ctx.fillStyle = theme.grid;
  ctx.fillRect(0, y + row.h - 1, lw, 1);
  const hovered = tl.hoverKey === row.key;
  const buttons = hovered || row.pinned ? labelButtons(tl, row) : [];
  const room = lw - (buttons.length ? 2 * BUTTON_W + 8 : 6);
  const x = 6 + row.indent * 12;
  const mid = y + Math.min(row.h, ROW_H + TRACK_PAD) / 2;
  if (row.kind === 'process') {
    ctx.fillStyle = theme.headerBg;
    ctx.fillRect(0, y, lw, row.h - 1);
    ctx.fillStyle = theme.fg;
    ctx.font = 'bold 12px system-ui, sans-serif';
    ctx.fillText(row.collapsed ? '▸' : '▾', 6, y + row.h / 2);
    const t = fitText(ctx, row.label, room - 20);
    if (t) ctx.fillText(t, 20, y + row.h / 2);
  } else if (row.kind === 'group' || row.kind === 'toggle') {
    ctx.font = row.kind === 'group' ? '600 11px system-ui, sans-serif' : 'italic 11px system-ui, sans-serif';
    ctx.fillStyle = row.kind === 'group' ? theme.fg : theme.muted;
    ctx.fillText(row.collapsed ? '▸' : '▾', x, y + row.h / 2);
    const t = fitText(ctx, row.label, room - x - 14);
    if (t) {
      ctx.fillText(t, x + 13, y + row.h / 2);
      if (row.kind === 'group') {
        const w = textWidth(ctx, t);
        ctx.font = '11px system-ui, sans-serif';
        ctx.fillStyle = theme.muted;
        const s = fitText(ctx, row.sub, room - x - 20 - w);
        if (s) ctx.fillText(s, x + 19 + w, y + row.h / 2);
      }
    }
  } else {
    ctx.font = row.thread !== null && row.process.threads.find((th) => th.id === row.thread)?.main ? '600 11px system-ui, sans-serif' : '11px system-ui, sans-serif';
    ctx.fillStyle = row.kind === 'empty' ? theme.muted : theme.fg;
    const t = fitText(ctx, row.label, room - x);
    if (t) ctx.fillText(t, x, mid);
    if (t && row.pinned) {
      const w = textWidth(ctx, t);
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillStyle = theme.muted;
      const s = fitText(ctx, row.sub, room - x - w - 8);
      if (s) ctx.fillText(s, x + w + 6, mid);
    }
  }
  for (const b of buttons) {
    const cx = b.x + BUTTON_W / 2;
    const cy = row.kind === 'process' ? y + row.h / 2 : mid;
    if (b.action === 'pin') drawPin(ctx, cx, cy, row.pinned ? theme.select : theme.muted, row.pinned);
    else if (hovered) {
      ctx.font = '14px system-ui, sans-serif';
      ctx.fillStyle = theme.muted;
      ctx.fillText('×', cx - 4, cy);
    }
  }
}

/**
 * The track labels on the left: the pinned area's, then the scrolling ones'.
 * @param {Timeline} tl
 * @param {Row[]} main
 * @param {Row[]} pinned
 */
export function drawLabels(tl, main, pinned) {
  const { ctx, theme } = tl;
  const lw = tl.labelW;
  for (const [rows, top, h] of /** @type {Array<[Row[], number, number]>} */ ([[main, tl.mainTop, tl.h - tl.mainTop], [pinned, RULER_H, tl.layout.pinnedH]])) {
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, top, lw, h);
    ctx.clip();
    ctx.fillStyle = theme.labelBg;
    ctx.fillRect(0, top, lw, h);
    for (const row of rows) drawLabel(tl, row, tl.rowTop(row));
    ctx.restore();
  }
  if (pinned.length) {
    ctx.fillStyle = theme.muted;
    ctx.fillRect(0, tl.mainTop - 1, lw, 2);
  }
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
  if (tl.noTime) ctx.fillText('no event has a time: nothing to draw on an axis', x0 + 8, RULER_H / 2);
}
