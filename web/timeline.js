// The timeline canvas: frame loop, ruler, track labels, the pinned area and the
// scrolling tracks under it, overlays (global instants, marked range, selection,
// flows), pointer input. It draws what the state (state.js) says: the view, the
// selection, the marks; the layout follows the state's pins, folds, filter and
// order. Only visible tracks are drawn, from cached tiles; missing tiles fall back
// to loaded ones of other levels so a pan or zoom never shows a blank track.
import { TimeScale } from './timescale.js';
import { buildLayout, visibleRows, rowIndexAt, contentTop, trackPlaces, foldsToShow, ROW_H, RULER_H } from './layout.js';
import { tileLevel, tileRange } from './api.js';
import { Raster, pack } from './raster.js';
import { installPointer } from './pointer.js';
import { outlineDiamond } from './snapshots.js';
import { drawMark, drawHighlights, drawArrow, visibleGlobals } from './overlays.js';
import { drawLabels, drawRuler } from './ruler.js';
import { kindOf } from './trackkinds.js';
import { ScreenshotImages } from './filmstrip.js';
import { LAYOUT_KEYS } from './state.js';

export { RULER_H };

/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {import('./types.js').Track} Track */
/** @typedef {import('./layout.js').Row} Row */
/** @typedef {import('./tracks.js').Theme} Theme */
/** @typedef {import('./api.js').Api} Api */
/** @typedef {import('./state.js').Store} Store */

/**
 * What is selected: a slice or async item (with an id for details), a merged
 * item, an instant, a stack frame of a samples track (`id`: the frame), an object
 * (`id`: its row) or one of its snapshots (`index` in the object's list), a
 * screenshot (`id`: its snapshot).
 * @typedef {{kind: 'slice'|'async'|'merged'|'instant'|'frame'|'object'|'snapshot'|'screenshot', id: number,
 *   track: string, row: number, ts: number, dur: number, name: string, count?: number,
 *   scope?: string, index?: number}} Selection
 * @typedef {{fromTs: number, fromTrack: string, fromRow: number, toTs: number,
 *   toTrack: string, toRow: number}} Arrow
 */

/** The label column's width bounds, px. */
export const LABEL_MIN = 80;
export const LABEL_MAX = 800;

export class Timeline {
  /**
   * @param {HTMLElement} scroller the vertically scrolling box
   * @param {HTMLCanvasElement} canvas sticky inside it
   * @param {HTMLElement} spacer after the canvas, gives the scroll height
   * @param {Api} api
   * @param {Summary} summary
   * @param {Store} store
   */
  constructor(scroller, canvas, spacer, api, summary, store) {
    this.scroller = scroller;
    this.canvas = canvas;
    this.spacer = spacer;
    this.api = api;
    this.summary = summary;
    this.store = store;
    this.ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d', { alpha: false }));
    this.places = trackPlaces(summary);
    this.layout = buildLayout(summary, store.state);
    this.labelW = 200;
    this.sized = false;
    /** @type {number|undefined} pointer x on the canvas, for zooming at the mouse */
    this.mouseX = undefined;
    /** @type {string|null} the row key under the pointer in the label column */
    this.hoverKey = null;
    /** @type {{y: number, ok: boolean}|null} where a dragged row would drop (canvas y) */
    this.dropLine = null;
    this.w = 1;
    this.h = 1;
    this.dpr = 1;
    /** No event has a time (empty.js says so): names only, no axis. */
    this.noTime = typeof summary.start_ns !== 'number' || typeof summary.end_ns !== 'number';
    if (this.noTime) Object.assign(summary, { start_ns: 0, end_ns: 1000 });
    const span = Math.max(1000, summary.end_ns - summary.start_ns);
    this.scale = new TimeScale(summary.start_ns - span * 0.02, summary.end_ns + span * 0.02, 1);
    /** @type {(r: import('./range.js').Range) => void} a range was dragged out (shift-drag) */
    this.onRange = () => {};
    this.pending = false;
    this.raster = new Raster();
    this.images = new ScreenshotImages(api.base, () => this.requestDraw());
    /** @type {number[]|null} global instants by time */
    this.globalOrder = null;
    /** @type {Array<{x: number, fill: string}>} global instants drawn this frame */
    this.globals = [];
    /** @type {number|null} scrollTop during a frame */
    this.frameScroll = null;
    this.frames = 0;
    /** The tile level and indexes of the view (tilesFor), computed once per view. */
    this.range = { t0: NaN, t1: NaN, nsPerPx: NaN, level: 0, idx: /** @type {number[]} */ ([]) };
    /** @type {number[]} the view (t0, t1, scrollTop) of the last frame */
    this.lastAt = [];
    /** @type {number[]|null} milliseconds of each draw, when a benchmark asks */
    this.drawLog = null;
    /** @type {Array<[string, number, number]>} tiles one step beyond the view, to prefetch */
    this.margins = [];
    /** @type {Map<string, any[]>} tiles drawn per track in the last frame */
    this.frameTiles = new Map();
    /** @type {Array<() => void>} */
    this.frameWaiters = [];
    /** @type {() => void} called after each frame (flows refetch, hook) */
    this.onFrame = () => {};
    /** @type {(html: string|null, x: number, y: number) => void} */
    this.onHover = () => {};
    this.theme = this.readTheme();
    api.onTile = () => this.requestDraw();
    store.on(LAYOUT_KEYS, () => this.relayout());
    store.on(['selection', 'mark', 'highlight', 'search', 'selArrows', 'allArrows'], () => this.requestDraw());
    store.on(['view'], (s) => {
      const v = s.view;
      if (v && (v.t0 !== this.scale.t0 || v.t1 !== this.scale.t1)) {
        this.scale.set(v.t0, v.t1);
        this.requestDraw();
      }
    });
    installPointer(this);
  }

  /** The selection, as the state holds it. */
  get selection() {
    return this.store.state.selection;
  }

  /** The marked range (null: none; its tracks null: all). */
  get mark() {
    return this.store.state.mark;
  }

  /** Slices outlined (a range table group). */
  get highlight() {
    return this.store.state.highlight;
  }

  /** @returns {Theme} */
  readTheme() {
    const cs = getComputedStyle(document.documentElement);
    const v = (/** @type {string} */ n) => cs.getPropertyValue(n).trim();
    const dark = v('--is-dark') === '1';
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
    this.fitLabels();
    this.relayout();
  }

  /** The label column: the user's width (kept inside the window), else a share of it. */
  fitLabels() {
    const chosen = this.store.state.labelW;
    const w = this.w;
    this.labelW = chosen !== null
      ? Math.round(Math.max(LABEL_MIN, Math.min(chosen, LABEL_MAX, w - 60)))
      : Math.round(Math.min(280, Math.max(110, w * 0.22)));
    if (this.sized) this.scale.resize(w - this.labelW);
    else this.scale.width = Math.max(1, w - this.labelW); // first fit: the whole trace
    this.sized = true;
  }

  /** The trace has a new version (`view --follow`): its tracks again, the view
   * and layout choices kept. @param {Summary} summary */
  setSummary(summary) {
    this.summary = summary;
    this.places = trackPlaces(summary);
    this.globalOrder = null;
    this.relayout();
  }

  relayout() {
    if (this.sized) this.fitLabels();
    this.layout = buildLayout(this.summary, this.store.state);
    this.spacer.style.height = `${Math.max(0, this.layout.height + this.layout.pinnedH + RULER_H - this.h)}px`;
    this.requestDraw();
  }

  /** Fold or unfold a process or group. @param {string} key @param {boolean} folded */
  setFolded(key, folded) {
    this.store.fold({ [key]: folded });
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

  /** Canvas y where the scrolling tracks begin (under the pinned area). */
  get mainTop() {
    return RULER_H + this.layout.pinnedH;
  }

  /** Canvas y of a y in the scrolling layout. @param {number} y */
  mainY(y) {
    return y - this.scrollTop + this.mainTop;
  }

  /** Canvas y of a row's top. @param {Row} row */
  rowTop(row) {
    return row.pinned ? RULER_H + row.y : this.mainY(row.y);
  }

  /** The rows on screen: pinned ones, then the scrolling ones in view. */
  rowsInView() {
    const top = this.scrollTop;
    return { pinned: this.layout.pinned, main: visibleRows(this.layout.rows, top, top + this.h - this.mainTop) };
  }

  draw() {
    const began = performance.now();
    this.pending = false;
    this.frameScroll = this.scroller.scrollTop;
    const { ctx, theme } = this;
    const x0 = this.labelW;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    // A view in motion (pan, zoom, scroll) fetches only tiles two frames in a row want.
    const at = [this.scale.t0, this.scale.t1, this.frameScroll];
    this.api.beginFrame(at.some((v, k) => v !== this.lastAt[k]));
    this.lastAt = at;
    this.frameTiles = new Map();
    const { pinned, main } = this.rowsInView();
    const { ticks } = this.noTime ? { ticks: [] } : this.scale.ticks(this.summary.start_ns);

    // Backgrounds, grid and slice rectangles go into the raster (one putImageData):
    // the scrolling rows first, then the pinned area over them. Counters, names,
    // marks and overlays are drawn over it with the canvas API.
    const dpr = this.dpr;
    const raster = this.raster;
    // Every line of the raster is painted below (rows, and what is above and below
    // them), and only the canvas around it is filled: no whole-screen fill twice.
    raster.begin(ctx, (this.w - x0) * dpr, (this.h - RULER_H) * dpr, null);
    raster.around(ctx, x0 * dpr, RULER_H * dpr, this.canvas.width, this.canvas.height, theme.bg);
    this.margins = [];
    /** @type {Map<Row, any[]>} */
    const tilesOf = new Map();
    const bg = pack(theme.bg);
    if (main.length) {
      raster.lines(0, (this.rowTop(main[0]) - RULER_H) * dpr, bg);
      const last = main[main.length - 1];
      raster.lines((this.rowTop(last) + last.h - RULER_H) * dpr, raster.h, bg);
    } else {
      raster.lines(0, raster.h, bg);
    }
    // Track shading alternates by the row's place in the layout, not in the view (so
    // a scroll past one row does not swap every row's shade).
    this.rasterRows(main, ticks, tilesOf, main.length ? rowIndexAt(this.layout.rows, main[0].y) : 0);
    if (pinned.length) {
      raster.band(0, this.layout.pinnedH * dpr, bg);
      this.rasterRows(pinned, ticks, tilesOf);
      raster.band(this.layout.pinnedH * dpr - dpr, 2 * dpr, pack(theme.muted));
    }
    // Global instants: full-height lines over the slices.
    this.globals = visibleGlobals(this);
    for (const g of this.globals) raster.vline(g.x * dpr, 0, raster.h, pack(g.fill));
    // Margin tiles are asked for after every visible one, so they load last.
    for (const [id, level, i] of this.margins) this.api.tile(id, level, i);
    raster.put(ctx, x0 * dpr, RULER_H * dpr);

    for (const [area, top] of /** @type {Array<[Row[], number]>} */ ([[main, this.mainTop], [pinned, RULER_H]])) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(x0, top, this.w - x0, area === pinned ? this.layout.pinnedH : this.h - top);
      ctx.clip();
      for (const row of area) {
        const tiles = tilesOf.get(row);
        if (tiles && row.track) kindOf(row.track).draw(this, row, tiles, this.rowTop(row));
      }
      ctx.restore();
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, RULER_H, this.w - x0, this.h - RULER_H);
    ctx.clip();
    this.drawOverlays();
    ctx.restore();

    drawLabels(this, main, pinned);
    drawRuler(this, ticks);
    this.api.endFrame();
    this.frames++;
    if (this.drawLog) this.drawLog.push(performance.now() - began);
    // The state follows the view the pointer and keys moved to.
    const v = this.store.state.view;
    if (!v || v.t0 !== this.scale.t0 || v.t1 !== this.scale.t1) this.store.set({ view: { t0: this.scale.t0, t1: this.scale.t1 } });
    const waiters = this.frameWaiters;
    this.frameWaiters = [];
    for (const f of waiters) f();
    this.frameScroll = null;
    this.onFrame();
  }

  /**
   * Paint rows' bands, grid and items into the raster; note each track's tiles.
   * @param {Row[]} rows @param {import('./timescale.js').Tick[]} ticks @param {Map<Row, any[]>} tilesOf
   * @param {number} [first] the index of rows[0] in its area (the shading's parity)
   */
  rasterRows(rows, ticks, tilesOf, first = 0) {
    const { raster, theme, dpr } = this;
    const grid = pack(theme.grid);
    let y0 = Infinity;
    let y1 = -Infinity;
    const bg = pack(theme.bg);
    const header = pack(theme.headerBg);
    const alt = pack(theme.trackAlt);
    rows.forEach((row, k) => {
      const y = (this.rowTop(row) - RULER_H) * dpr;
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y + row.h * dpr);
      // Each row paints its background up to where the next begins (rows are contiguous).
      const next = k + 1 < rows.length ? (this.rowTop(rows[k + 1]) - RULER_H) * dpr : y + row.h * dpr;
      raster.lines(y, next, row.kind === 'process' ? header : row.kind === 'track' && ((first + k) & 1) === 1 ? alt : bg);
      raster.band(y + (row.h - 1) * dpr, dpr, grid);
    });
    if (rows.length) for (const t of ticks) raster.vline(t.px * dpr, y0, y1, grid);
    for (const row of rows) {
      const track = row.track;
      if (!track) continue;
      const kind = kindOf(track);
      const tiles = this.tilesFor(track.id, kind.withPrev);
      tilesOf.set(row, tiles);
      kind.raster(this, row, tiles, Math.round((this.rowTop(row) - RULER_H) * dpr));
    }
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
    // The same for every track of a frame.
    if (this.range.t0 !== t0 || this.range.t1 !== t1 || this.range.nsPerPx !== this.scale.nsPerPx) {
      const level = tileLevel(this.scale.nsPerPx);
      this.range = { t0, t1, nsPerPx: this.scale.nsPerPx, level, idx: tileRange(t0, t1, level) };
    }
    const { level, idx } = this.range;
    /** @type {any[]} */
    const out = [];
    const seen = new Set();
    const add = (/** @type {any} */ t) => {
      if (t && !seen.has(t)) {
        seen.add(t);
        out.push(t);
      }
    };
    // Neighbouring missing tiles mostly fall back to the same coarser one: the last
    // index looked up at each coarser level, and what it found.
    const lastAt = new Array(11).fill(NaN);
    /** @type {any[]} */
    const lastTile = new Array(11).fill(null);
    for (const i of idx) {
      const t = this.api.tile(id, level, i);
      if (t) {
        add(t);
        continue;
      }
      let found = false;
      for (let j = 1; j <= 10 && !found; j++) {
        const ci = Math.floor(i / 2 ** j);
        if (lastAt[j] !== ci) {
          lastAt[j] = ci;
          lastTile[j] = this.api.peek(id, level + j, ci);
        }
        const c = lastTile[j];
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

  /** Canvas y of the middle of `row` of a track, or null if the track is not laid out.
   * Row -1 is the track's instants row. @param {string} track @param {number} row */
  rowY(track, row) {
    const r = this.layout.byTrack.get(track);
    if (!r || !r.track) return null;
    const top = this.rowTop(r);
    if (row < 0) return top + contentTop(r.track) / 2;
    return top + contentTop(r.track) + row * ROW_H + ROW_H / 2;
  }

  drawOverlays() {
    const { ctx, theme, scale } = this;
    const s = this.store.state;
    const x0 = this.labelW;
    drawMark(this);
    drawHighlights(this);
    const sel = s.selection;
    if (sel) {
      const y = this.rowY(sel.track, sel.row);
      if (y !== null && sel.kind === 'snapshot') {
        outlineDiamond(ctx, x0 + scale.toPx(sel.ts), y - 0.5, theme.select);
      } else if (y !== null && sel.kind === 'screenshot') {
        const r = /** @type {Row} */ (this.layout.byTrack.get(sel.track));
        const a = Math.max(-3, scale.toPx(sel.ts));
        ctx.strokeStyle = theme.select;
        ctx.lineWidth = 2;
        ctx.strokeRect(x0 + a, this.rowTop(r) + 1, 3, r.h - 2);
      } else if (y !== null) {
        const a = scale.toPx(sel.ts);
        ctx.strokeStyle = theme.select;
        ctx.lineWidth = 2;
        if (sel.row < 0) {
          // An instant: a box around its flag.
          ctx.strokeRect(x0 + a - 6, y - 6, 12, 11);
        } else {
          const w = Math.max(2, sel.dur / scale.nsPerPx);
          const xa = Math.max(-3, a);
          ctx.strokeRect(x0 + xa, y - ROW_H / 2 - 1, Math.min(a + w, scale.width + 3) - xa, ROW_H + 1);
        }
      }
    }
    ctx.lineWidth = 1.5;
    for (const arrow of s.allArrows) drawArrow(this, arrow, theme.muted);
    ctx.lineWidth = 2;
    for (const arrow of s.selArrows) drawArrow(this, arrow, theme.select);
    if (this.dropLine) {
      ctx.fillStyle = this.dropLine.ok ? theme.select : theme.warn;
      ctx.fillRect(0, this.dropLine.y - 1, this.w, 2);
    }
  }

  /** @param {Selection|null} sel */
  select(sel) {
    this.store.set({ selection: sel, selArrows: [] });
  }

  /**
   * Show a track: unfold its process and group, unhide it, and clear a filter
   * that leaves it out. Returns whether it is laid out now.
   * @param {string} track
   */
  showTrack(track) {
    if (this.layout.byTrack.has(track)) return true;
    const s = this.store.state;
    const at = this.places.get(track);
    if (!at) return false;
    const pk = `P${at.process.id}`;
    /** @type {Partial<import('./state.js').ViewState>} */
    const patch = { folds: { ...s.folds, ...foldsToShow(this.places, track) } };
    if (s.hidden.includes(track) || s.hidden.includes(pk)) patch.hidden = s.hidden.filter((h) => h !== track && h !== pk);
    this.store.set(patch);
    if (!this.layout.byTrack.has(track) && s.filter) this.store.set({ filter: '' });
    return this.layout.byTrack.has(track);
  }

  /**
   * Bring an item into view: show its track, scroll to it, and pan (or zoom out)
   * so its time span is visible.
   * @param {string} track
   * @param {number} row
   * @param {number} ts
   * @param {number} dur
   */
  reveal(track, row, ts, dur) {
    if (track) this.showTrack(track);
    const r = this.layout.byTrack.get(track);
    if (r && r.track && !r.pinned) {
      const y = r.y + contentTop(r.track) + Math.max(0, row) * ROW_H;
      const viewH = this.h - this.mainTop;
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
