// Pointer input on the timeline: what lies under the pointer (pick), drag to pan,
// click to select or fold a process, wheel to zoom, hover tooltips.
import { rowIndexAt, ROW_H, TRACK_PAD, RULER_H } from './layout.js';
import { mergeCounterTiles } from './tracks.js';
import { hitItem, hitInstant, rowAt, counterValueAt } from './hittest.js';
import { formatDuration, formatValue, esc } from './format.js';
import { hitSnapshot, DIAMOND } from './snapshots.js';
import { tracksUnder } from './range.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./timeline.js').Selection} Selection */
/** @typedef {import('./layout.js').Row} Row */

/**
 * What lies at canvas point (x, y).
 * @param {Timeline} tl
 * @param {number} x
 * @param {number} y
 * @returns {{row: Row, t: number, hit: Selection|null, value: number|null} | {header: Row} | null}
 */
export function pick(tl, x, y) {
  if (y < RULER_H) return null;
  const i = rowIndexAt(tl.layout.rows, y - RULER_H + tl.scrollTop);
  if (i < 0) return null;
  const row = tl.layout.rows[i];
  if (row.kind === 'process' && x < tl.labelW) return { header: row };
  const track = row.track;
  const t = tl.scale.toNs(x - tl.labelW);
  if (!track || x < tl.labelW) return { row, t, hit: null, value: null };
  const tiles = tl.frameTiles.get(track.id) || [];
  const tol = 3 * tl.scale.nsPerPx;
  if (track.kind === 'counter') {
    const pts = mergeCounterTiles(tiles.map((tl) => tl.data));
    return { row, t, hit: null, value: counterValueAt(pts, t) };
  }
  const dy = y - tl.cy(row.y);
  if (track.kind === 'slices' && dy < 10) {
    for (let k = tiles.length - 1; k >= 0; k--) {
      const ins = tiles[k].data.instants;
      const j = ins ? hitInstant(ins, t, 4 * tl.scale.nsPerPx) : -1;
      if (j >= 0) {
        const name = tiles[k].data.strings[ins.name[j]] ?? '';
        return { row, t, value: null, hit: { kind: 'instant', id: ins.id[j], track: track.id, row: 0, ts: ins.ts[j], dur: 0, name, scope: ins.scope[j] } };
      }
    }
  }
  const sub = rowAt(dy, ROW_H, track.rows, TRACK_PAD / 2);
  if (sub < 0) return { row, t, hit: null, value: null };
  if (track.kind === 'objects') {
    // A snapshot's diamond lies over its object's bar: it wins.
    for (let k = tiles.length - 1; k >= 0; k--) {
      const s = tiles[k].data.snapshots;
      const j = s ? hitSnapshot(s, sub, t, (DIAMOND + 1) * tl.scale.nsPerPx) : -1;
      if (j < 0) continue;
      const d = tiles[k].data;
      const at = d.id.indexOf(s.object[j]);
      const name = at >= 0 ? d.strings[d.name[at]] ?? '' : '';
      return { row, t, value: null, hit: { kind: 'snapshot', id: s.object[j], index: s.index[j], track: track.id, row: sub, ts: s.ts[j], dur: 0, name } };
    }
  }
  for (let k = tiles.length - 1; k >= 0; k--) {
    const d = tiles[k].data;
    const j = hitItem(d, sub, t, tol);
    if (j < 0) continue;
    const id = d.id[j];
    const count = d.count ? d.count[j] : 1;
    /** @type {Selection['kind']} */
    const kind = id < 0 || count > 1 ? 'merged' : KIND_OF[track.kind];
    return { row, t, value: null, hit: { kind, id, track: track.id, row: sub, ts: d.ts[j], dur: d.dur[j], name: d.strings[d.name[j]] ?? '', count } };
  }
  return { row, t, hit: null, value: null };
}

/** @type {Record<string, Selection['kind']>} what an item of each kind of track is */
const KIND_OF = { slices: 'slice', async: 'async', samples: 'frame', objects: 'object', counter: 'slice' };

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
  const top = tl.scrollTop - RULER_H;
  const tracks = y0 < RULER_H ? null : tracksUnder(tl.layout.rows, tl.summary, y0 + top, Math.max(RULER_H, y1) + top);
  // Nothing lies before the trace's start: a drag from the margin starts there.
  const t0 = Math.max(tl.summary.start_ns, Math.floor(Math.min(ta, tb)));
  return { t0, t1: Math.max(t0, Math.ceil(Math.max(ta, tb))), tracks };
}

/** Mouse input: drag pans and scrolls, shift-drag selects a range, click selects,
 * wheel zooms, hover explains.
 * @param {Timeline} tl */
export function installPointer(tl) {
  const c = tl.canvas;
  /** @type {{x: number, y: number, moved: boolean, scroll: number,
   *   range: {x: number, y: number, before: import('./range.js').Range|null}|null}|null} */
  let drag = null;
  c.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    const r = c.getBoundingClientRect();
    const range = e.shiftKey ? { x: e.clientX - r.left, y: e.clientY - r.top, before: tl.mark } : null;
    drag = { x: e.clientX, y: e.clientY, moved: false, scroll: tl.scrollTop, range };
    // Take focus from the search box or a toggle, so keys navigate again.
    tl.scroller.focus({ preventScroll: true });
    c.setPointerCapture(e.pointerId);
  });
  c.addEventListener('pointermove', (e) => {
    const r = c.getBoundingClientRect();
    tl.mouseX = e.clientX - r.left;
    if (drag) {
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      drag.moved = true;
      if (drag.range) {
        tl.onHover(null, 0, 0);
        tl.mark = dragRange(tl, drag.range.x, drag.range.y, e.clientX - r.left, e.clientY - r.top);
        tl.requestDraw();
        return;
      }
      tl.scale.pan(-dx);
      drag.x = e.clientX;
      tl.scroller.scrollTop = drag.scroll - dy;
      tl.requestDraw();
      tl.onHover(null, 0, 0);
      return;
    }
    hover(tl, e.clientX - r.left, e.clientY - r.top, e.clientX, e.clientY);
  });
  c.addEventListener('pointerleave', () => tl.onHover(null, 0, 0));
  c.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = null;
    if (d && d.moved && d.range) {
      if (tl.mark && tl.mark.t1 > tl.mark.t0) tl.onRange(tl.mark);
      else {
        // An empty range (dragged before the trace's start): keep the one there was.
        tl.mark = d.range.before;
        tl.requestDraw();
      }
    }
    if (!d || d.moved) return;
    const r = c.getBoundingClientRect();
    click(tl, e.clientX - r.left, e.clientY - r.top);
  });
  tl.scroller.addEventListener('scroll', () => tl.requestDraw());
  tl.scroller.addEventListener('wheel', (e) => {
    const r = c.getBoundingClientRect();
    const x = e.clientX - r.left;
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

/** @param {Timeline} tl @param {number} x @param {number} y @param {number} cx @param {number} cy */
function hover(tl, x, y, cx, cy) {
  const p = pick(tl, x, y);
  if (!p || 'header' in p) return tl.onHover(null, 0, 0);
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
  const what = h.kind === 'merged' ? ` · ${h.count} items (zoom in)` : '';
  const how = h.kind === 'instant' ? 'instant' : h.kind === 'snapshot' ? 'snapshot' : formatDuration(h.dur);
  tl.onHover(`<b>${esc(h.name)}</b> ${how}${what}`, cx, cy);
}

/** @param {Timeline} tl @param {number} x @param {number} y */
function click(tl, x, y) {
  const p = pick(tl, x, y);
  if (p && 'header' in p) {
    tl.toggleProcess(p.header.process.id);
    return;
  }
  tl.select(p ? p.hit : null);
}
