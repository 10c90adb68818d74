// The table of track kinds: for each kind of track the summary lists, how its
// tiles are painted (into the raster, then over it with the canvas API) and what
// lies under the pointer. The timeline and the pointer code look a kind up here
// and know nothing else about it.
import { ROW_H, TRACK_PAD, INSTANT_H, contentTop } from './layout.js';
import { rasterSlices, rasterInstants, decorateSlices, drawProcessInstants, drawCounter, mergeCounterTiles, counterScaleText, drawCounterScale } from './tracks.js';
import { drawSnapshots, hitSnapshot, DIAMOND } from './snapshots.js';
import { hitItem, hitInstant, rowAt, counterValueAt } from './hittest.js';
import { colorFor } from './colors.js';
import { drawFilmstrip, shotsOf, shotAt } from './filmstrip.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./timeline.js').Selection} Selection */
/** @typedef {import('./layout.js').Row} Row */
/** @typedef {import('./types.js').Track} Track */

/**
 * @typedef {{hit: Selection|null, value: number|null}} Picked
 * @typedef {{
 *   withPrev: boolean,
 *   raster: (tl: Timeline, row: Row, tiles: any[], top: number) => void,
 *   draw: (tl: Timeline, row: Row, tiles: any[], y: number) => void,
 *   pick: (tl: Timeline, row: Row, tiles: any[], t: number, dy: number) => Picked,
 * }} TrackKind
 */

/** @type {Picked} */
const NOTHING = { hit: null, value: null };

/**
 * The item of a slices-like track under (t, dy): the sub-row from dy, then the
 * nearest item on it within 3 px; merged items are `merged`.
 * @param {Timeline} tl @param {Track} track @param {any[]} tiles @param {number} t @param {number} dy
 * @param {Selection['kind']} kind
 * @returns {Picked}
 */
function pickItem(tl, track, tiles, t, dy, kind) {
  const sub = rowAt(dy, ROW_H, track.rows, contentTop(track));
  if (sub < 0) return NOTHING;
  const tol = 3 * tl.scale.nsPerPx;
  for (let k = tiles.length - 1; k >= 0; k--) {
    const d = tiles[k].data;
    const j = hitItem(d, sub, t, tol);
    if (j < 0) continue;
    const id = d.id[j];
    const count = d.count ? d.count[j] : 1;
    const merged = id < 0 || count > 1;
    /** @type {Selection} */
    const hit = { kind: merged ? 'merged' : kind, id, track: track.id, row: sub, ts: d.ts[j], dur: d.dur[j], name: d.strings[d.name[j]] ?? '' };
    if (merged) hit.count = count;
    return { value: null, hit };
  }
  return NOTHING;
}

/**
 * Paint a slices-like track's items into the raster.
 * @param {Timeline} tl @param {Row} row @param {any[]} tiles @param {number} top device px
 */
function rasterItems(tl, row, tiles, top) {
  const track = /** @type {Track} */ (row.track);
  rasterSlices(tl.raster, tiles, tl.scale, tl.dpr, top + contentTop(track) * tl.dpr, track.rows, tl.theme);
}

/** @param {Timeline} tl @param {Row} row @param {any[]} tiles @param {number} y */
function decorate(tl, row, tiles, y) {
  decorateSlices(tl.ctx, tiles, tl.scale, tl.labelW, y + contentTop(/** @type {Track} */ (row.track)), tl.theme, tl.store.state.search);
}

/** @param {Selection['kind']} kind @returns {TrackKind} */
function itemsKind(kind) {
  return {
    withPrev: false,
    raster: rasterItems,
    draw: decorate,
    pick: (tl, row, tiles, t, dy) => pickItem(tl, /** @type {Track} */ (row.track), tiles, t, dy, kind),
  };
}

/** @type {Record<string, TrackKind>} */
export const TRACK_KINDS = {
  slices: {
    withPrev: false,
    raster(tl, row, tiles, top) {
      rasterItems(tl, row, tiles, top);
      if (row.track?.instants) rasterInstants(tl.raster, tiles, tl.scale, tl.dpr, top + (TRACK_PAD / 2) * tl.dpr, tl.theme);
    },
    draw(tl, row, tiles, y) {
      decorate(tl, row, tiles, y);
      const g = tl.layout.groups.get(row.process.id);
      const span = row.pinned || !g ? { y0: y, y1: y + row.h } : { y0: tl.mainY(g.y0), y1: tl.mainY(g.y1) };
      drawProcessInstants(tl.ctx, tiles, tl.scale, tl.labelW, span, tl.theme);
    },
    pick(tl, row, tiles, t, dy) {
      const track = /** @type {Track} */ (row.track);
      if (track.instants && dy < TRACK_PAD / 2 + INSTANT_H) {
        for (let k = tiles.length - 1; k >= 0; k--) {
          const ins = tiles[k].data.instants;
          const j = ins ? hitInstant(ins, t, 5 * tl.scale.nsPerPx) : -1;
          if (j < 0) continue;
          const name = tiles[k].data.strings[ins.name[j]] ?? '';
          const count = ins.count ? ins.count[j] : 1;
          const kind = ins.id[j] < 0 || count > 1 ? 'merged' : 'instant';
          return { value: null, hit: { kind, id: ins.id[j], track: track.id, row: -1, ts: ins.ts[j], dur: 0, name, scope: ins.scope[j], count } };
        }
        return NOTHING;
      }
      return pickItem(tl, track, tiles, t, dy, 'slice');
    },
  },
  async: itemsKind('async'),
  samples: itemsKind('frame'),
  objects: {
    withPrev: false,
    raster: rasterItems,
    draw(tl, row, tiles, y) {
      decorate(tl, row, tiles, y);
      drawSnapshots(tl.ctx, tiles, tl.scale, tl.labelW, y + contentTop(/** @type {Track} */ (row.track)), tl.theme);
    },
    pick(tl, row, tiles, t, dy) {
      const track = /** @type {Track} */ (row.track);
      const sub = rowAt(dy, ROW_H, track.rows, contentTop(track));
      // A snapshot's diamond lies over its object's bar: it wins.
      for (let k = tiles.length - 1; sub >= 0 && k >= 0; k--) {
        const s = tiles[k].data.snapshots;
        const j = s ? hitSnapshot(s, sub, t, (DIAMOND + 1) * tl.scale.nsPerPx) : -1;
        if (j < 0) continue;
        const d = tiles[k].data;
        const at = d.id.indexOf(s.object[j]);
        const name = at >= 0 ? d.strings[d.name[at]] ?? '' : '';
        return { value: null, hit: { kind: 'snapshot', id: s.object[j], index: s.index[j], track: track.id, row: sub, ts: s.ts[j], dur: 0, name } };
      }
      return pickItem(tl, track, tiles, t, dy, 'object');
    },
  },
  counter: {
    withPrev: true,
    raster() {},
    draw(tl, row, tiles, y) {
      const track = /** @type {Track} */ (row.track);
      const level = tiles[tiles.length - 1]?.level;
      const pts = mergeCounterTiles(tiles.filter((t) => t.level === level).map((t) => t.data));
      const min = track.min ?? 0;
      const max = track.max ?? Math.max(1, ...pts.value);
      drawCounter(tl.ctx, pts, tl.scale, tl.labelW, y, row.h, min, max, colorFor(track.name, null, tl.theme.dark));
      // The chart's scale, so heights read as values without hovering.
      if (pts.ts.length > 0) drawCounterScale(tl.ctx, counterScaleText(min, max), tl.labelW + 2, y + 2, tl.theme);
    },
    pick(tl, row, tiles, t) {
      const pts = mergeCounterTiles(tiles.map((x) => x.data));
      return { hit: null, value: counterValueAt(pts, t) };
    },
  },
  screenshots: {
    withPrev: true,
    raster() {},
    draw(tl, row, tiles, y) {
      drawFilmstrip(tl.ctx, shotsOf(tiles), tl.scale, tl.labelW, y, row.h, tl.images, tl.theme);
    },
    pick(tl, row, tiles, t) {
      const s = shotAt(shotsOf(tiles), t);
      if (!s) return NOTHING;
      const track = /** @type {Track} */ (row.track);
      /** @type {Selection} */
      const hit = { kind: 'screenshot', id: s.id, track: track.id, row: 0, ts: s.ts, dur: s.dur, name: 'Screenshot' };
      if (s.count > 1) hit.count = s.count;
      return { value: null, hit };
    },
  },
};

/** The kind of a track (an unknown kind draws nothing). @param {Track} track @returns {TrackKind} */
export function kindOf(track) {
  return TRACK_KINDS[track.kind] ?? { withPrev: false, raster() {}, draw() {}, pick: () => NOTHING };
}
