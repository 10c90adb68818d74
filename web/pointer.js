// Pointer input on the timeline: what lies under the pointer (pick), drag to pan,
// click to select, wheel to zoom, hover tooltips; in the label column: fold,
// pin and hide buttons, drag a row to reorder it among its siblings, drag the
// column's edge to resize it.
import { rowIndexAt, RULER_H } from './layout.js';
import { hitInstant } from './hittest.js';
import { formatDuration, formatTime, formatValue, esc } from './format.js';
import { tracksUnder } from './range.js';
import { kindOf } from './trackkinds.js';
import { labelButtons, BUTTON_W } from './ruler.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./timeline.js').Selection} Selection */
/** @typedef {import('./layout.js').Row} Row */

/**
 * The row at canvas y: in the pinned area, or among the scrolling rows.
 * @param {Timeline} tl
 * @param {number} y
 * @returns {Row|null}
 */
export function rowAtY(tl, y) {
  if (y < RULER_H) return null;
  if (y < tl.mainTop) {
    const i = rowIndexAt(tl.layout.pinned, y - RULER_H);
    return i < 0 ? null : tl.layout.pinned[i];
  }
  const i = rowIndexAt(tl.layout.rows, y - tl.mainTop + tl.scrollTop);
  return i < 0 ? null : tl.layout.rows[i];
}

/**
 * What lies at canvas point (x, y).
 * @param {Timeline} tl
 * @param {number} x
 * @param {number} y
 * @returns {{row: Row, t: number, hit: Selection|null, value: number|null} | {label: Row} | null}
 */
export function pick(tl, x, y) {
  const row = rowAtY(tl, y);
  if (!row) return null;
  if (x < tl.labelW) return { label: row };
  const t = tl.scale.toNs(x - tl.labelW);
  const track = row.track;
  if (!track) return { row, t, hit: null, value: null };
  const tiles = tl.frameTiles.get(track.id) || [];
  return { row, t, ...kindOf(track).pick(tl, row, tiles, t, y - tl.rowTop(row)) };
}

/**
 * A range dragged with Shift from canvas point (x0, y0) to (x1, y1): its times, and
 * the tracks under it (all of them when it started on the ruler).
 * @param {Timeline} tl
 * @param {number} x0 @param {number} y0 @param {number} x1 @param {number} y1
 * @returns {import('./range.js').Range}
 */
export function dragRange(tl, x0, y0, x1, y1) {
  const ta = tl.scale.toNs(Math.max(0, x0 - tl.labelW));
  const tb = tl.scale.toNs(Math.max(0, x1 - tl.labelW));
  let tracks = null;
  if (y0 >= RULER_H) {
    const [ya, yb] = [Math.min(y0, y1), Math.max(y0, y1)];
    const pinned = tl.layout.pinned.filter((r) => r.track && tl.rowTop(r) < yb && tl.rowTop(r) + r.h > ya).map((r) => /** @type {any} */ (r.track).id);
    const top = tl.scrollTop - tl.mainTop;
    const main = yb < tl.mainTop ? [] : tracksUnder(tl.layout.rows, tl.summary, Math.max(tl.mainTop, ya) + top, Math.max(tl.mainTop, yb) + top) ?? null;
    tracks = main === null && pinned.length === 0 ? null : [...new Set([...pinned, ...(main ?? tl.layout.rows.filter((r) => r.track).map((r) => /** @type {any} */ (r.track).id))])];
  }
  // Nothing lies before the trace's start: a drag from the margin starts there.
  const t0 = Math.max(tl.summary.start_ns, Math.floor(Math.min(ta, tb)));
  return { t0, t1: Math.max(t0, Math.ceil(Math.max(ta, tb))), tracks };
}

/**
 * The siblings a dragged row moves among, in layout order, each with its extent
 * (canvas y).
 * @param {Timeline} tl
 * @param {{parent: string, key: string}} move
 * @returns {Array<{key: string, y0: number, y1: number}>}
 */
export function siblings(tl, move) {
  const rows = move.parent === 'pinned' ? tl.layout.pinned : tl.layout.rows;
  /** @type {Array<{key: string, y0: number, y1: number}>} */
  const out = [];
  // Processes: a unit runs from its header to the next header (its rows under it).
  let open = false;
  for (const r of rows) {
    const y0 = tl.rowTop(r);
    const last = out[out.length - 1];
    if (r.move && r.move.parent === move.parent) {
      if (last && last.key === r.move.key) last.y1 = y0 + r.h;
      else out.push({ key: r.move.key, y0, y1: y0 + r.h });
      open = true;
    } else if (move.parent === 'root') {
      if (r.kind === 'toggle' && r.key === 'empty') open = false;
      else if (open && last) last.y1 = y0 + r.h;
    }
  }
  return out;
}

/**
 * Where a drag at canvas y drops among siblings: the index to insert at and the
 * line to draw there.
 * @param {Array<{key: string, y0: number, y1: number}>} sibs
 * @param {number} y
 */
export function dropAt(sibs, y) {
  let i = 0;
  while (i < sibs.length && y > (sibs[i].y0 + sibs[i].y1) / 2) i++;
  const line = i < sibs.length ? sibs[i].y0 : sibs.length ? sibs[sibs.length - 1].y1 : y;
  return { index: i, y: line };
}

/**
 * The new order of `keys` with `key` moved to position `index` (an index among
 * the keys before the move).
 * @param {string[]} keys
 * @param {string} key
 * @param {number} index
 */
export function moved(keys, key, index) {
  const from = keys.indexOf(key);
  const out = keys.filter((k) => k !== key);
  out.splice(from >= 0 && from < index ? index - 1 : index, 0, key);
  return out;
}

/** Apply a reorder drag to the state. @param {Timeline} tl @param {{parent: string, key: string}} move @param {number} y */
function dropRow(tl, move, y) {
  const sibs = siblings(tl, move);
  const keys = sibs.map((s) => s.key);
  const next = moved(keys, move.key, dropAt(sibs, y).index);
  const s = tl.store.state;
  if (move.parent === 'pinned') {
    tl.store.set({ pinned: [...next, ...s.pinned.filter((k) => !next.includes(k))] });
  } else {
    const before = s.order[move.parent] ?? [];
    tl.store.set({ order: { ...s.order, [move.parent]: [...next, ...before.filter((k) => !next.includes(k))] } });
  }
}

/** Mouse input: drag pans and scrolls, shift-drag selects a range, click selects,
 * wheel zooms, hover explains; the label column folds, pins, hides, reorders.
 * @param {Timeline} tl */
export function installPointer(tl) {
  const c = tl.canvas;
  /** @type {{x: number, y: number, moved: boolean, scroll: number,
   *   range: {x: number, y: number, before: import('./range.js').Range|null}|null,
   *   resize: number|null, row: Row|null}|null} */
  let drag = null;
  const local = (/** @type {PointerEvent|MouseEvent} */ e) => {
    const r = c.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  c.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    const p = local(e);
    const range = e.shiftKey ? { x: p.x, y: p.y, before: tl.mark } : null;
    const resize = !range && Math.abs(p.x - tl.labelW) <= 4 && p.y >= RULER_H ? tl.labelW : null;
    const row = !range && resize === null && p.x < tl.labelW ? rowAtY(tl, p.y) : null;
    drag = { x: e.clientX, y: e.clientY, moved: false, scroll: tl.scrollTop, range, resize, row };
    // Take focus from the search box or a toggle, so keys navigate again.
    tl.scroller.focus({ preventScroll: true });
    c.setPointerCapture(e.pointerId);
  });
  c.addEventListener('pointermove', (e) => {
    const p = local(e);
    tl.mouseX = p.x;
    if (drag) {
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      drag.moved = true;
      tl.onHover(null, 0, 0);
      if (drag.resize !== null) {
        tl.store.set({ labelW: Math.round(drag.resize + dx) });
        return;
      }
      if (drag.row) {
        const move = drag.row.move;
        if (move) {
          tl.dropLine = { y: dropAt(siblings(tl, move), p.y).y, ok: true };
          tl.requestDraw();
        }
        return;
      }
      if (drag.range) {
        tl.store.set({ mark: dragRange(tl, drag.range.x, drag.range.y, p.x, p.y) });
        return;
      }
      tl.scale.pan(-dx);
      drag.x = e.clientX;
      tl.scroller.scrollTop = drag.scroll - dy;
      tl.requestDraw();
      return;
    }
    hover(tl, p.x, p.y, e.clientX, e.clientY);
  });
  c.addEventListener('pointerleave', () => {
    tl.onHover(null, 0, 0);
    if (tl.hoverKey !== null) {
      tl.hoverKey = null;
      tl.requestDraw();
    }
  });
  c.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = null;
    const p = local(e);
    if (d && d.moved && d.row) {
      tl.dropLine = null;
      if (d.row.move) dropRow(tl, d.row.move, p.y);
      tl.requestDraw();
      return;
    }
    if (d && d.moved && d.range) {
      const m = tl.mark;
      if (m && m.t1 > m.t0) tl.onRange(m);
      // An empty range (dragged before the trace's start): keep the one there was.
      else tl.store.set({ mark: d.range.before });
    }
    if (!d || d.moved || d.resize !== null) return;
    click(tl, p.x, p.y);
  });
  tl.scroller.addEventListener('scroll', () => tl.requestDraw());
  tl.scroller.addEventListener('wheel', (e) => {
    const { x } = local(e);
    // Over the labels the wheel scrolls the tracks, as a list would.
    if (x < tl.labelW && !e.ctrlKey) return;
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? tl.h : 1;
    if (e.shiftKey) {
      tl.scroller.scrollTop += (e.deltaY || e.deltaX) * unit;
      return;
    }
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      tl.scale.pan(e.deltaX * unit);
    } else {
      tl.scale.zoom(Math.exp(e.deltaY * unit * 0.002), x - tl.labelW);
    }
    tl.requestDraw();
  }, { passive: false });
}

/** The label button under x on a row, if any. @param {Timeline} tl @param {Row} row @param {number} x */
function buttonAt(tl, row, x) {
  return labelButtons(tl, row).find((b) => x >= b.x && x < b.x + BUTTON_W)?.action ?? null;
}

/** @param {Timeline} tl @param {number} x @param {number} y @param {number} cx @param {number} cy */
function hover(tl, x, y, cx, cy) {
  const p = pick(tl, x, y);
  const key = p && 'label' in p ? p.label.key : null;
  if (key !== tl.hoverKey) {
    tl.hoverKey = key;
    tl.requestDraw();
  }
  const edge = Math.abs(x - tl.labelW) <= 4 && y >= RULER_H;
  if (p && 'label' in p) {
    const row = p.label;
    const b = buttonAt(tl, row, x);
    tl.canvas.style.cursor = edge ? 'col-resize' : b || row.kind !== 'track' ? 'pointer' : row.move ? 'grab' : 'default';
    if (b) return tl.onHover(b === 'pin' ? (row.pinned ? 'Unpin' : 'Pin to the top') : row.kind === 'process' ? 'Hide this process' : 'Hide this track', cx, cy);
    const what = row.kind === 'toggle' ? ` <span class="muted">(${esc(row.sub)}: click to ${row.collapsed ? 'show' : 'hide'})</span>` : row.kind === 'group' ? ` <span class="muted">${esc(row.sub)}</span>` : '';
    return tl.onHover(`<b>${esc(row.label)}</b>${what}`, cx, cy);
  }
  tl.canvas.style.cursor = edge ? 'col-resize' : 'default';
  if (!p) return tl.onHover(null, 0, 0);
  if (p.value !== null && p.row.track) {
    return tl.onHover(`<b>${esc(p.row.track.name)}</b> ${formatValue(p.value)}`, cx, cy);
  }
  const h = p.hit;
  if (!h) {
    // A global instant's line, when nothing else is under the pointer.
    const g = tl.summary.global_instants;
    const j = hitInstant(g, p.t, 3 * tl.scale.nsPerPx);
    if (j >= 0) return tl.onHover(`<b>${esc(g.name[j])}</b> global instant`, cx, cy);
    return tl.onHover(null, 0, 0);
  }
  if (h.kind === 'screenshot') {
    return tl.onHover(`<img class="shot-preview" src="${esc(tl.images.url(h.id))}" alt="Screenshot"><div>Screenshot at ${formatTime(h.ts - tl.summary.start_ns)}</div>`, cx, cy);
  }
  const what = h.kind === 'merged' ? ` · ${h.count} items (zoom in)` : '';
  const how = h.kind === 'instant' || (h.kind === 'merged' && h.row < 0) ? 'instant' : h.kind === 'snapshot' ? 'snapshot' : formatDuration(h.dur);
  tl.onHover(`<b>${esc(h.name)}</b> ${how}${what}`, cx, cy);
}

/** @param {Timeline} tl @param {number} x @param {number} y */
function click(tl, x, y) {
  const p = pick(tl, x, y);
  if (p && 'label' in p) {
    const row = p.label;
    const b = buttonAt(tl, row, x);
    if (b === 'pin' && row.track) tl.store.toggleIn('pinned', row.track.id, !row.pinned);
    else if (b === 'hide') {
      const s = tl.store.state;
      tl.store.set({ hidden: [...s.hidden, row.key], pinned: s.pinned.filter((k) => k !== row.key) });
    } else if (row.kind === 'process' || row.kind === 'group' || row.kind === 'toggle') tl.setFolded(row.key, !row.collapsed);
    return;
  }
  tl.select(p ? p.hit : null);
}
