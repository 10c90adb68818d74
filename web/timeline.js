// The timeline canvas: frame loop, ruler, track labels, track contents, overlays
// (global instants, marked range, selection, flows), pointer input. Only visible
// tracks are drawn, from cached tiles; missing tiles fall back to loaded ones of
// other levels so a pan or zoom never shows a blank track.
import { TimeScale } from './timescale.js';
import { buildLayout, visibleRows, ROW_H, TRACK_PAD, RULER_H } from './layout.js';
import { tileLevel, tileRange } from './api.js';
import { rasterSlices, rasterInstants, decorateSlices, drawProcessInstants, drawCounter, mergeCounterTiles } from './tracks.js';
import { Raster, pack } from './raster.js';
import { installPointer } from './pointer.js';
import { colorFor } from './colors.js';
import { drawSnapshots, outlineDiamond } from './snapshots.js';
import { drawMark, drawHighlights, drawArrow, visibleGlobals } from './overlays.js';
import { drawLabels, drawRuler } from './ruler.js';

export { RULER_H };

/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {import('./types.js').Track} Track */
/** @typedef {import('./layout.js').Row} Row */
/** @typedef {import('./tracks.js').Theme} Theme */
/** @typedef {import('./api.js').Api} Api */


/**
 * What is selected: a slice or async item (with an id for details), a merged
 * item, an instant, a stack frame of a samples track (`id`: the frame), an object
 * (`id`: its row) or one of its snapshots (`index` in the object's list).
 * @typedef {{kind: 'slice'|'async'|'merged'|'instant'|'frame'|'object'|'snapshot', id: number,
 *   track: string, row: number, ts: number, dur: number, name: string, count?: number,
 *   scope?: string, index?: number}} Selection
 * @typedef {{fromTs: number, fromTrack: string, fromRow: number, toTs: number,
 *   toTrack: string, toRow: number}} Arrow
 */

export class Timeline {
  /**
   * @param {HTMLElement} scroller the vertically scrolling box
   * @param {HTMLCanvasElement} canvas sticky inside it
   * @param {HTMLElement} spacer after the canvas, gives the scroll height
   * @param {Api} api
   * @param {Summary} summary
   */
  constructor(scroller, canvas, spacer, api, summary) {
    this.scroller = scroller;
    this.canvas = canvas;
    this.spacer = spacer;
    this.api = api;
    this.summary = summary;
    this.ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d', { alpha: false }));
    /** @type {Set<number>} */
    this.collapsed = new Set();
    this.layout = buildLayout(summary, this.collapsed);
    this.labelW = 200;
    this.sized = false;
    /** @type {number|undefined} pointer x on the canvas, for zooming at the mouse */
    this.mouseX = undefined;
    this.w = 1;
    this.h = 1;
    this.dpr = 1;
    const span = Math.max(1000, summary.end_ns - summary.start_ns);
    this.scale = new TimeScale(summary.start_ns - span * 0.02, summary.end_ns + span * 0.02, 1);
    /** @type {Selection|null} */
    this.selection = null;
    /** @type {import('./range.js').Range|null} the marked range; tracks null: all */
    this.mark = null;
    /** @type {import('./types.js').RangeSlicesAnswer|null} slices outlined (a range table group) */
    this.highlight = null;
    /** @type {(r: import('./range.js').Range) => void} a range was dragged out (shift-drag) */
    this.onRange = () => {};
    /** @type {{query: string, regex: RegExp|null}|null} */
    this.search = null;
    /** @type {Arrow[]} arrows of the selection */
    this.selArrows = [];
    /** @type {Arrow[]} every arrow in view, when the toggle is on */
    this.allArrows = [];
    this.pending = false;
    this.raster = new Raster();
    /** @type {number[]|null} global instants by time */
    this.globalOrder = null;
    /** @type {Array<{x: number, fill: string}>} global instants drawn this frame */
    this.globals = [];
    /** @type {number|null} scrollTop during a frame */
    this.frameScroll = null;
    this.frames = 0;
    /** @type {number[]|null} milliseconds of each draw, when a benchmark asks */
    this.drawLog = null;
    /** @type {Array<[string, number, number]>} tiles one step beyond the view, to prefetch */
    this.margins = [];
    /** @type {Map<string, any[]>} tiles drawn per track in the last frame */
    this.frameTiles = new Map();
    /** @type {Array<() => void>} */
    this.frameWaiters = [];
    /** @type {(s: Selection|null) => void} */
    this.onSelect = () => {};
    /** @type {() => void} called after each frame (flows refetch, hook) */
    this.onFrame = () => {};
    /** @type {(html: string|null, x: number, y: number) => void} */
    this.onHover = () => {};
    this.theme = this.readTheme();
    api.onTile = () => this.requestDraw();
    installPointer(this);
  }

  /** @returns {Theme} */
  readTheme() {
    const cs = getComputedStyle(document.documentElement);
    const v = (/** @type {string} */ n) => cs.getPropertyValue(n).trim();
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    // Diagonal stripes over slices that never ended.
    const pc = document.createElement('canvas');
    pc.width = pc.height = 6;
    const p = /** @type {CanvasRenderingContext2D} */ (pc.getContext('2d'));
    p.strokeStyle = dark ? 'rgba(0,0,0,0.45)' : 'rgba(255,255,255,0.6)';
    p.lineWidth = 2;
    p.beginPath();
    p.moveTo(0, 6);
    p.lineTo(6, 0);
    p.stroke();
    return {
      dark, bg: v('--bg'), fg: v('--fg'), muted: v('--muted'), grid: v('--grid'),
      headerBg: v('--header-bg'), labelBg: v('--label-bg'), trackAlt: v('--track-alt'),
      accent: v('--accent'), select: v('--select'), warn: v('--warn'), mark: v('--mark'), hl: v('--hl'),
      textDark: '#111', textLight: '#fff', stripes: this.ctx.createPattern(pc, 'repeat'),
    };
  }

  themeChanged() {
    this.theme = this.readTheme();
    this.requestDraw();
  }

  /** Fit the canvas to its box (any window size; HiDPI). */
  resize() {
    const w = Math.max(100, this.scroller.clientWidth);
    const h = Math.max(RULER_H + 20, this.scroller.clientHeight);
    this.dpr = window.devicePixelRatio || 1;
    this.w = w;
    this.h = h;
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.canvas.width = Math.round(w * this.dpr);
    this.canvas.height = Math.round(h * this.dpr);
    this.labelW = Math.round(Math.min(280, Math.max(110, w * 0.22)));
    if (this.sized) this.scale.resize(w - this.labelW);
    else this.scale.width = Math.max(1, w - this.labelW); // first fit: the whole trace
    this.sized = true;
    this.relayout();
  }

  relayout() {
    this.layout = buildLayout(this.summary, this.collapsed);
    this.spacer.style.height = `${Math.max(0, this.layout.height + RULER_H - this.h)}px`;
    this.requestDraw();
  }

  /** @param {number} processId */
  toggleProcess(processId) {
    if (this.collapsed.has(processId)) this.collapsed.delete(processId);
    else this.collapsed.add(processId);
    this.relayout();
  }

  requestDraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => this.draw());
  }

  /** Resolves after the next frame is drawn. @returns {Promise<void>} */
  nextFrame() {
    return new Promise((resolve) => {
      this.frameWaiters.push(resolve);
      this.requestDraw();
    });
  }

  /** Read once per frame: reading the DOM's scrollTop can force a layout. */
  get scrollTop() {
    return this.frameScroll ?? this.scroller.scrollTop;
  }

  /** Canvas y of a content y. @param {number} y */
  cy(y) {
    return y - this.scrollTop + RULER_H;
  }

  draw() {
    const began = performance.now();
    this.pending = false;
    this.frameScroll = null;
    this.frameScroll = this.scroller.scrollTop;
    const { ctx, theme } = this;
    const x0 = this.labelW;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = theme.bg;
    ctx.fillRect(0, 0, this.w, this.h);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    this.api.beginFrame();
    this.frameTiles = new Map();
    const rows = visibleRows(this.layout.rows, this.scrollTop, this.scrollTop + this.h - RULER_H);
    const { ticks } = this.scale.ticks(this.summary.start_ns);

    // Backgrounds, grid and slice rectangles go into the raster (one putImageData);
    // counters, names, marks and overlays are drawn over it with the canvas API.
    const dpr = this.dpr;
    const raster = this.raster;
    raster.begin(ctx, (this.w - x0) * dpr, (this.h - RULER_H) * dpr, pack(theme.bg));
    const grid = pack(theme.grid);
    rows.forEach((row, k) => {
      const y = (this.cy(row.y) - RULER_H) * dpr;
      if (row.kind === 'process') raster.band(y, (row.h - 1) * dpr, pack(theme.headerBg));
      else if (row.kind === 'track' && (k & 1) === 1) raster.band(y, row.h * dpr, pack(theme.trackAlt));
      raster.band(y + (row.h - 1) * dpr, dpr, grid);
    });
    for (const t of ticks) raster.vline(t.px * dpr, 0, raster.h, grid);
    this.margins = [];
    /** @type {Map<Row, any[]>} */
    const tilesOf = new Map();
    for (const row of rows) {
      const track = row.track;
      if (!track) continue;
      const tiles = this.tilesFor(track.id, track.kind === 'counter');
      tilesOf.set(row, tiles);
      const top = Math.round((this.cy(row.y) - RULER_H) * dpr);
      if (track.kind !== 'counter') rasterSlices(raster, tiles, this.scale, dpr, top, track.rows, theme);
      if (track.kind === 'slices') rasterInstants(raster, tiles, this.scale, dpr, top, theme);
    }
    // Global instants: full-height lines over the slices.
    this.globals = visibleGlobals(this);
    for (const g of this.globals) raster.vline(g.x * dpr, 0, raster.h, pack(g.fill));
    // Margin tiles are asked for after every visible one, so they load last.
    for (const [id, level, i] of this.margins) this.api.tile(id, level, i);
    raster.put(ctx, x0 * dpr, RULER_H * dpr);

    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, RULER_H, this.w - x0, this.h - RULER_H);
    ctx.clip();
    for (const [row, tiles] of tilesOf) this.drawRow(row, tiles);
    this.drawOverlays(rows);
    ctx.restore();

    drawLabels(this, rows);
    drawRuler(this, ticks);
    this.api.endFrame();
    this.frames++;
    if (this.drawLog) this.drawLog.push(performance.now() - began);
    const waiters = this.frameWaiters;
    this.frameWaiters = [];
    for (const f of waiters) f();
    this.frameScroll = null;
    this.onFrame();
  }

  /**
   * The tiles to draw for a track in view: loaded tiles of the right level, else
   * loaded tiles of coarser or finer levels over the same span. Also asks for one
   * tile of margin on each side so a pan finds them ready.
   * @param {string} id
   * @param {boolean} [withPrev] also the loaded tile before the view: a counter's
   *   value at the left edge comes from its last point before it
   */
  tilesFor(id, withPrev = false) {
    const { t0, t1 } = this.scale;
    const level = tileLevel(this.scale.nsPerPx);
    const idx = tileRange(t0, t1, level);
    /** @type {any[]} */
    const out = [];
    const seen = new Set();
    const add = (/** @type {any} */ t) => {
      if (t && !seen.has(t)) {
        seen.add(t);
        out.push(t);
      }
    };
    for (const i of idx) {
      const t = this.api.tile(id, level, i);
      if (t) {
        add(t);
        continue;
      }
      let found = false;
      for (let j = 1; j <= 10 && !found; j++) {
        const c = this.api.peek(id, level + j, Math.floor(i / 2 ** j));
        if (c) {
          add(c);
          found = true;
        }
      }
      if (!found) {
        add(this.api.peek(id, level - 1, 2 * i));
        add(this.api.peek(id, level - 1, 2 * i + 1));
      }
    }
    this.margins.push([id, level, idx[0] - 1], [id, level, idx[idx.length - 1] + 1]);
    if (withPrev) add(this.api.peek(id, level, idx[0] - 1));
    // Coarser tiles first, so finer ones drawn later win where both exist.
    out.sort((a, b) => b.level - a.level || a.index - b.index);
    this.frameTiles.set(id, out);
    return out;
  }

  /** Counters, and marks, names and instants over a track's painted slices.
   * @param {Row} row @param {any[]} tiles */
  drawRow(row, tiles) {
    const { ctx, theme } = this;
    const y = this.cy(row.y);
    const track = row.track;
    if (!track) return;
    if (track.kind === 'counter') {
      const pts = mergeCounterTiles(tiles.filter((t) => t.level === tiles[tiles.length - 1]?.level).map((t) => t.data));
      drawCounter(ctx, pts, this.scale, this.labelW, y, row.h, track.min ?? 0, track.max ?? Math.max(1, ...pts.value),
        colorFor(track.name, null, theme.dark));
      return;
    }
    decorateSlices(ctx, tiles, this.scale, this.labelW, y, theme, this.search);
    if (track.kind === 'objects') drawSnapshots(ctx, tiles, this.scale, this.labelW, y, theme);
    const g = this.layout.groups.get(row.process.id);
    if (track.kind === 'slices' && g) drawProcessInstants(ctx, tiles, this.scale, this.labelW, { y0: this.cy(g.y0), y1: this.cy(g.y1) }, theme);
  }

  /** Canvas y of the middle of `row` of a track, or null if the track is not laid out.
   * @param {string} track @param {number} row */
  rowY(track, row) {
    const r = this.layout.byTrack.get(track);
    return r ? this.cy(r.y) + TRACK_PAD / 2 + row * ROW_H + ROW_H / 2 : null;
  }

  /** @param {Row[]} rows */
  drawOverlays(rows) {
    const { ctx, theme, scale } = this;
    const x0 = this.labelW;
    drawMark(this);
    drawHighlights(this);
    const sel = this.selection;
    if (sel) {
      const y = this.rowY(sel.track, sel.row);
      if (y !== null && sel.kind === 'snapshot') {
        outlineDiamond(ctx, x0 + scale.toPx(sel.ts), y - 0.5, theme.select);
      } else if (y !== null) {
        const a = scale.toPx(sel.ts);
        const w = Math.max(2, sel.dur / scale.nsPerPx);
        ctx.strokeStyle = theme.select;
        ctx.lineWidth = 2;
        const xa = Math.max(-3, a);
        ctx.strokeRect(x0 + xa, y - ROW_H / 2 - 1, Math.min(a + w, scale.width + 3) - xa, ROW_H + 1);
      }
    }
    ctx.lineWidth = 1.5;
    for (const arrow of this.allArrows) drawArrow(this, arrow, theme.muted);
    ctx.lineWidth = 2;
    for (const arrow of this.selArrows) drawArrow(this, arrow, theme.select);
    void rows;
  }

  /** @param {Selection|null} sel */
  select(sel) {
    this.selection = sel;
    this.selArrows = [];
    this.onSelect(sel);
    this.requestDraw();
  }

  /**
   * Bring an item into view: unfold its process, scroll to its track, and pan (or
   * zoom out) so its time span is visible.
   * @param {string} track
   * @param {number} row
   * @param {number} ts
   * @param {number} dur
   */
  reveal(track, row, ts, dur) {
    if (!this.layout.byTrack.has(track)) {
      for (const p of this.summary.processes) {
        const has = p.tracks.some((t) => t.id === track) || p.threads.some((th) => th.tracks.some((t) => t.id === track));
        if (has) this.collapsed.delete(p.id);
      }
      this.relayout();
    }
    const r = this.layout.byTrack.get(track);
    if (r) {
      const y = r.y + TRACK_PAD / 2 + row * ROW_H;
      const viewH = this.h - RULER_H;
      if (y < this.scrollTop || y + ROW_H > this.scrollTop + viewH) {
        this.scroller.scrollTop = Math.max(0, y - viewH / 3);
      }
    }
    const { t0, t1 } = this.scale;
    const span = t1 - t0;
    if (dur > span * 0.9) this.scale.set(ts - dur * 0.1, ts + dur * 1.1);
    else if (ts < t0 || ts + dur > t1) this.scale.set(ts + dur / 2 - span / 2, ts + dur / 2 + span / 2);
    this.requestDraw();
  }

  /** Zoom to the selection (or to the whole trace with nothing selected). */
  zoomToSelection() {
    const s = this.selection;
    if (!s) {
      const span = Math.max(1000, this.summary.end_ns - this.summary.start_ns);
      this.scale.set(this.summary.start_ns - span * 0.02, this.summary.end_ns + span * 0.02);
    } else {
      const d = Math.max(s.dur, 1000);
      this.scale.set(s.ts + s.dur / 2 - d * 0.6, s.ts + s.dur / 2 + d * 0.6);
    }
    this.requestDraw();
  }
}
