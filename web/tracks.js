// Drawing one track's content from its tiles: slices (nested rows, names that fit,
// did-not-finish and overlap marks), instants, counters as filled step charts.
import { colorFor, needsDarkText } from './colors.js';
import { pack } from './raster.js';
import { ROW_H } from './layout.js';
import { formatValue } from './format.js';
import { DIAMOND } from './snapshots.js';
import { FLAG_DID_NOT_FINISH, FLAG_OVERLAP } from './types.js';

/** @typedef {import('./types.js').SliceTile} SliceTile */
/** @typedef {import('./types.js').CounterTile} CounterTile */
/** @typedef {import('./timescale.js').TimeScale} TimeScale */

/**
 * Colours of the current theme, read from the CSS variables of style.css.
 * @typedef {{dark: boolean, bg: string, fg: string, muted: string, grid: string,
 *   headerBg: string, labelBg: string, trackAlt: string, accent: string, select: string,
 *   warn: string, mark: string, hl: string, textDark: string, textLight: string,
 *   stripes: CanvasPattern|null}} Theme
 */

/**
 * Per-tile drawing data, computed once per tile and theme: each item's fill (as
 * CSS and as a packed pixel) and text colour.
 * @typedef {{theme: Theme, fill: string[], packed: Uint32Array, darkText: Uint8Array,
 *   instants: Uint32Array, match: Uint8Array|null, query: string|null}} Prepared
 */

/**
 * @param {SliceTile} d
 * @param {Theme} theme
 * @returns {Prepared}
 */
export function prepareSlices(d, theme) {
  const n = d.ts.length;
  // Colours per distinct (name, cname): names repeat a lot within a tile.
  /** @type {Map<number, {fill: string, packed: number, dark: number}>} */
  const byKey = new Map();
  const fill = new Array(n);
  const packed = new Uint32Array(n);
  const darkText = new Uint8Array(n);
  const ns = d.strings.length;
  for (let i = 0; i < n; i++) {
    const c = d.color ? d.color[i] : -1;
    const key = d.name[i] + (c >= 0 ? (c + 1) * ns : 0);
    let g = byKey.get(key);
    if (g === undefined) {
      const f = colorFor(d.strings[d.name[i]] ?? '', c >= 0 ? d.strings[c] : null, theme.dark);
      g = { fill: f, packed: pack(f), dark: needsDarkText(f) ? 1 : 0 };
      byKey.set(key, g);
    }
    fill[i] = g.fill;
    packed[i] = g.packed;
    darkText[i] = g.dark;
  }
  const ins = d.instants;
  const instants = new Uint32Array(ins ? ins.ts.length : 0);
  for (let i = 0; i < instants.length; i++) {
    instants[i] = pack(colorFor(d.strings[/** @type {any} */ (ins).name[i]] ?? '', null, theme.dark));
  }
  return { theme, fill, packed, darkText, instants, match: null, query: null };
}

/**
 * @param {{data: SliceTile, prepared: unknown}} tile
 * @param {Theme} theme
 * @returns {Prepared}
 */
function prepared(tile, theme) {
  let p = /** @type {Prepared|null} */ (tile.prepared);
  if (!p || p.theme !== theme) tile.prepared = p = prepareSlices(tile.data, theme);
  return p;
}

/**
 * Paint the slice rectangles of one track into the raster (device pixels; `top`
 * is the line of its first slice row in the raster). Later tiles paint over earlier ones.
 * @param {import('./raster.js').Raster} raster
 * @param {Array<{data: SliceTile, prepared: unknown}>} tiles
 * @param {TimeScale} scale
 * @param {number} dpr
 * @param {number} top
 * @param {number} rows
 * @param {Theme} theme
 */
export function rasterSlices(raster, tiles, scale, dpr, top, rows, theme) {
  const t0 = scale.t0;
  const r = scale.nsPerPx;
  const width = scale.width;
  const first = Math.round(top);
  const rowH = ROW_H * dpr;
  const itemH = Math.max(1, Math.round((ROW_H - 1) * dpr));
  /** Line painted for each row: its first visible line. */
  const line = (/** @type {number} */ row) => Math.max(0, Math.round(first + row * rowH));
  // Raster.span inlined, with short spans written pixel by pixel: a zoomed-out view
  // paints one or two pixels for most of its thousands of items, where a call and
  // a TypedArray fill per item cost more than the pixels.
  const px = raster.px;
  const rw = raster.w;
  const rh = raster.h;
  /** First pixel in px of the line painted for row k (-1: off the raster). @param {number} k */
  const startOf = (k) => {
    const y0 = Math.round(first + k * rowH);
    const y = y0 < 0 ? 0 : y0;
    return y >= y0 + itemH || y >= rh ? -1 : y * rw;
  };
  const rowStart = Array.from({ length: rows }, (_, k) => startOf(k));
  for (const tile of tiles) {
    const d = tile.data;
    const p = prepared(tile, theme);
    const { ts, dur, row } = d;
    const packed = p.packed;
    for (let i = 0; i < ts.length; i++) {
      const x = (ts[i] - t0) / r;
      const w = dur[i] / r;
      if (x > width || x + w < 0) continue;
      const at = rowStart[row[i]] ?? startOf(row[i]);
      if (at < 0) continue;
      let a = Math.floor(x * dpr);
      let b = Math.round((x + w) * dpr);
      if (b <= a) b = a + 1;
      if (a < 0) a = 0;
      if (b > rw) b = rw;
      if (b - a > 16) px.fill(packed[i], at + a, at + b);
      else for (let q = at + a, c = packed[i]; q < at + b; q++) px[q] = c;
    }
  }
  for (let k = 0; k < rows; k++) {
    const y0 = Math.round(first + k * rowH);
    const y = line(k);
    raster.replicate(y, y0 + itemH - y);
  }
}

/**
 * Which of a tile's strings match the search (a substring, case-insensitive, or a
 * regex), computed once per tile and query.
 * @param {SliceTile} d
 * @param {Prepared} p
 * @param {string} query lower-cased
 * @param {RegExp|null} regex
 */
function matches(d, p, query, regex) {
  if (p.query !== query) {
    p.match = new Uint8Array(d.strings.length);
    d.strings.forEach((s, i) => {
      /** @type {Uint8Array} */ (p.match)[i] = (regex ? regex.test(s) : s.toLowerCase().includes(query)) ? 1 : 0;
    });
    p.query = query;
  }
  return /** @type {Uint8Array} */ (p.match);
}

/** @type {Map<string, Map<string, number>>} text widths by font, then string; bounded */
const widths = new Map();
let widthCount = 0;

/**
 * Width of `s` in the current font, cached (measureText is the slow part of text).
 * Callers measuring many strings pass `font` (ctx.font, read once: reading it
 * serialises the font each time).
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} s
 * @param {string} [font] ctx.font
 */
export function textWidth(ctx, s, font = ctx.font) {
  let byText = widths.get(font);
  if (byText === undefined) widths.set(font, (byText = new Map()));
  let w = byText.get(s);
  if (w === undefined) {
    if (widthCount > 20000) {
      widths.clear();
      widths.set(font, byText);
      byText.clear();
      widthCount = 0;
    }
    w = ctx.measureText(s).width;
    byText.set(s, w);
    widthCount++;
  }
  return w;
}

/**
 * `s` cut to fit `avail` pixels with an ellipsis, or null when not even 2 characters fit.
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} s
 * @param {number} avail
 * @param {string} [font] ctx.font
 */
export function fitText(ctx, s, avail, font = ctx.font) {
  const w = textWidth(ctx, s, font);
  if (w <= avail) return s;
  let n = Math.floor((s.length * avail) / w) - 1;
  while (n >= 2) {
    const t = s.slice(0, n) + '…';
    if (textWidth(ctx, t, font) <= avail) return t;
    n--;
  }
  return null;
}

/**
 * Marks and names over the painted slices of one track whose first slice row is
 * at `y` (canvas px), with the time axis starting at `x0` px: did-not-finish stripes, overlap
 * outlines, search matches, and names where they fit.
 * @param {CanvasRenderingContext2D} ctx
 * @param {Array<{data: SliceTile, prepared: unknown}>} tiles
 * @param {TimeScale} scale
 * @param {number} x0
 * @param {number} y
 * @param {Theme} theme
 * @param {{query: string, regex: RegExp|null} | null} search
 */
export function decorateSlices(ctx, tiles, scale, x0, y, theme, search) {
  const t0 = scale.t0;
  const r = scale.nsPerPx;
  const width = scale.width;
  const top = y;
  // An item crossing a tile edge is in both tiles: mark and name it once, since
  // text drawn twice looks bold.
  const done = new Set();
  // Snapshots of every tile: an object's name may be drawn from a tile that does
  // not hold the snapshot next to it.
  const diamonds = tiles.some((t) => t.data.snapshots) ? diamondsByRow(tiles) : null;
  const font = ctx.font;
  let fill = '';
  for (const tile of tiles) {
    const d = tile.data;
    const p = prepared(tile, theme);
    const { ts, dur, row, flags } = d;
    const match = search ? matches(d, p, search.query, search.regex) : null;
    for (let i = 0; i < ts.length; i++) {
      const x = (ts[i] - t0) / r;
      const w = dur[i] / r;
      if (x > width || x + w < 0) continue;
      const f = flags ? flags[i] : 0;
      const stripes = f & FLAG_DID_NOT_FINISH && theme.stripes && w >= 3;
      const found = match !== null && match[d.name[i]] === 1;
      // Most items of a zoomed-out view are too narrow for a name and unmarked:
      // skip them before the bookkeeping below (a key per item per frame was a
      // fifth of the page's time panning a dense trace).
      if (w < 20 && !stripes && !(f & FLAG_OVERLAP) && !found) continue;
      const key = d.id[i] >= 0 ? d.id[i] : `${ts[i]}:${row[i]}`;
      if (done.has(key)) continue;
      done.add(key);
      const yy = top + row[i] * ROW_H;
      if (stripes) {
        ctx.fillStyle = /** @type {CanvasPattern} */ (theme.stripes);
        ctx.fillRect(x0 + Math.max(x, -2), yy, Math.min(w, width + 4), ROW_H - 1);
        fill = '';
      }
      if (f & FLAG_OVERLAP) {
        ctx.strokeStyle = theme.warn;
        ctx.lineWidth = 1;
        ctx.setLineDash([3, 2]);
        ctx.strokeRect(x0 + Math.max(x, -2) + 0.5, yy + 0.5, Math.max(1, Math.min(w, width + 4) - 1), ROW_H - 2);
        ctx.setLineDash([]);
      }
      if (found) {
        ctx.strokeStyle = theme.accent;
        ctx.lineWidth = 2;
        ctx.strokeRect(x0 + Math.max(x, -2) + 1, yy + 1, Math.max(2, Math.min(w, width + 4) - 2), ROW_H - 3);
      }
      if (w < 20) continue;
      let name = d.strings[d.name[i]] ?? '';
      if (d.count && d.count[i] > 1) name = `${name} (+${d.count[i] - 1})`;
      if (f & FLAG_DID_NOT_FINISH) name += ' (did not finish)';
      let left = Math.max(x, 0) + 3;
      // An object's name starts after the snapshot diamonds over its first letters.
      const here = diamonds?.get(row[i]);
      if (here) left = pastDiamonds(here, left, t0, r, Math.min(24, textWidth(ctx, name, font)));
      const avail = Math.min(x + w, width) - left - 3;
      if (avail < 12) continue;
      const text = fitText(ctx, name, avail, font);
      if (text === null) continue;
      // The fill style is set only when it changes (a state change costs more than the check).
      const textFill = p.darkText[i] ? theme.textDark : theme.textLight;
      if (textFill !== fill) ctx.fillStyle = fill = textFill;
      ctx.fillText(text, x0 + left, yy + ROW_H / 2);
    }
  }
}

/**
 * Snapshot times of some tiles by row, each row's in time order.
 * @param {Array<{data: SliceTile}>} tiles
 */
function diamondsByRow(tiles) {
  /** @type {Map<number, number[]>} */
  const out = new Map();
  for (const { data } of tiles) {
    const snaps = data.snapshots;
    if (!snaps) continue;
    for (let i = 0; i < snaps.ts.length; i++) {
      const list = out.get(snaps.row[i]);
      if (list) list.push(snaps.ts[i]);
      else out.set(snaps.row[i], [snaps.ts[i]]);
    }
  }
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

/**
 * Where a name that would start at `left` (px) starts instead so that no diamond
 * at `times` (ns, sorted) covers its first `textW` px: after each diamond there.
 * @param {number[]} times
 * @param {number} left
 * @param {number} t0
 * @param {number} nsPerPx
 * @param {number} textW
 */
export function pastDiamonds(times, left, t0, nsPerPx, textW) {
  for (const t of times) {
    const x = (t - t0) / nsPerPx;
    if (x + DIAMOND < left) continue;
    if (x - DIAMOND > left + textW) break;
    left = x + DIAMOND + 3;
  }
  return left;
}

/**
 * Thread and process instants: a small downward flag in the track's instants row,
 * painted into the raster (thousands cost nothing there). The topmost line of an
 * instant is at `top` (device px in the raster).
 * @param {import('./raster.js').Raster} raster
 * @param {Array<{data: SliceTile, prepared: unknown}>} tiles
 * @param {TimeScale} scale
 * @param {number} dpr
 * @param {number} top
 * @param {Theme} theme
 */
export function rasterInstants(raster, tiles, scale, dpr, top, theme) {
  const edge = pack(theme.fg);
  // Two passes, all dark edges and then all fills, so instants closer than a flag's
  // width merge into one outlined band instead of a smear of edges.
  for (const pass of [0, 1]) {
    for (const tile of tiles) {
      const ins = tile.data.instants;
      if (!ins) continue;
      const p = prepared(tile, theme);
      for (let i = 0; i < ins.ts.length; i++) {
        const x = scale.toPx(ins.ts[i]);
        if (x < -6 || x > scale.width + 6) continue;
        const cx = x * dpr;
        // A triangle 9 px wide narrowing over 8 lines, with a dark edge.
        for (let l = 0; l < 8 * dpr; l++) {
          const half = (4.5 * dpr * (8 * dpr - l)) / (8 * dpr);
          const y = Math.round(top + dpr + l);
          if (pass === 0) raster.span(y, cx - half - dpr * 0.5, cx + half + dpr * 0.5, edge);
          else if (half > dpr) raster.span(y, cx - half + dpr * 0.5, cx + half - dpr * 0.5, p.instants[i]);
        }
      }
    }
  }
}

/**
 * The dashed line of each process instant over its process group (canvas px).
 * @param {CanvasRenderingContext2D} ctx
 * @param {Array<{data: SliceTile}>} tiles
 * @param {TimeScale} scale
 * @param {number} x0
 * @param {{y0: number, y1: number}} group
 * @param {Theme} theme
 */
export function drawProcessInstants(ctx, tiles, scale, x0, group, theme) {
  let any = false;
  for (const tile of tiles) {
    const ins = tile.data.instants;
    if (!ins) continue;
    for (let i = 0; i < ins.ts.length; i++) {
      if (ins.scope[i] !== 'p') continue;
      const x = scale.toPx(ins.ts[i]);
      if (x < 0 || x > scale.width) continue;
      if (!any) {
        ctx.strokeStyle = theme.muted;
        ctx.lineWidth = 1;
        ctx.setLineDash([2, 3]);
        ctx.beginPath();
        any = true;
      }
      ctx.moveTo(x0 + Math.round(x) + 0.5, group.y0);
      ctx.lineTo(x0 + Math.round(x) + 0.5, group.y1);
    }
  }
  if (any) {
    ctx.stroke();
    ctx.setLineDash([]);
  }
}

/**
 * Merge counter tiles (in time order) into one point list.
 * @param {CounterTile[]} tiles
 */
export function mergeCounterTiles(tiles) {
  /** @type {{ts: number[], value: number[]}} */
  const out = { ts: [], value: [] };
  let last = -Infinity;
  for (const d of tiles) {
    for (let i = 0; i < d.ts.length; i++) {
      if (d.ts[i] <= last) continue;
      out.ts.push(d.ts[i]);
      out.value.push(d.value[i]);
      last = d.ts[i];
    }
  }
  return out;
}

/**
 * A counter series as a filled step chart between `min` and `max`.
 * @param {CanvasRenderingContext2D} ctx
 * @param {{ts: number[], value: number[]}} pts
 * @param {TimeScale} scale
 * @param {number} x0
 * @param {number} y
 * @param {number} h
 * @param {number} min
 * @param {number} max
 * @param {string} color
 */
export function drawCounter(ctx, pts, scale, x0, y, h, min, max, color) {
  const n = pts.ts.length;
  if (n === 0) return;
  const lo = Math.min(0, min);
  const span = max > lo ? max - lo : 1;
  const base = y + h - 2;
  const yOf = (/** @type {number} */ v) => base - ((v - lo) / span) * (h - 6);
  ctx.beginPath();
  let x = Math.max(-2, scale.toPx(pts.ts[0]));
  ctx.moveTo(x0 + x, base);
  for (let i = 0; i < n; i++) {
    const yv = yOf(pts.value[i]);
    x = Math.max(-2, Math.min(scale.width + 2, scale.toPx(pts.ts[i])));
    ctx.lineTo(x0 + x, i === 0 ? yv : yOf(pts.value[i - 1]));
    ctx.lineTo(x0 + x, yv);
  }
  // The last value holds to the right edge of what is shown.
  ctx.lineTo(x0 + scale.width + 2, yOf(pts.value[n - 1]));
  ctx.lineTo(x0 + scale.width + 2, base);
  ctx.closePath();
  ctx.globalAlpha = 0.55;
  ctx.fillStyle = color;
  ctx.fill();
  ctx.globalAlpha = 1;
  ctx.strokeStyle = color;
  ctx.lineWidth = 1;
  ctx.stroke();
}

/**
 * The scale of a counter chart, written in its top-left corner: the value at its
 * top, and the one at its bottom when that is below zero (charts start at 0).
 * @param {number} min
 * @param {number} max
 */
export function counterScaleText(min, max) {
  const lo = Math.min(0, min);
  return lo < 0 ? `${formatValue(max)} (min ${formatValue(lo)})` : formatValue(max);
}

/**
 * Write a counter's scale over its chart, on a faint background (canvas px).
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} text
 * @param {number} x
 * @param {number} y
 * @param {Theme} theme
 */
export function drawCounterScale(ctx, text, x, y, theme) {
  ctx.save();
  ctx.font = '10px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  const w = textWidth(ctx, text);
  ctx.globalAlpha = 0.75;
  ctx.fillStyle = theme.bg;
  ctx.fillRect(x, y, w + 6, 13);
  ctx.globalAlpha = 1;
  ctx.fillStyle = theme.muted;
  ctx.fillText(text, x + 3, y + 1.5);
  ctx.restore();
}
