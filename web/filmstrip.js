// Screenshots (Chrome's `Screenshot` snapshots) as a filmstrip track: thumbnails in
// slots along the time axis, each showing the screen as it was at the slot's left
// edge; hover shows a larger preview. Images come from /api/screenshot/{id}.

/** @typedef {import('./timescale.js').TimeScale} TimeScale */
/** A screenshot (or, zoomed out, the first of `count` in one pixel). @typedef {{ts: number, dur: number, id: number, count: number}} Shot */

/** Gap between thumbnails, px. */
const GAP = 2;
/** Images kept decoded. */
const MAX_IMAGES = 400;

/** Decoded screenshot images by id; asks for a redraw when one arrives. */
export class ScreenshotImages {
  /** @param {string} base @param {() => void} onLoad */
  constructor(base, onLoad) {
    this.base = base;
    this.onLoad = onLoad;
    /** @type {Map<number, HTMLImageElement>} */
    this.images = new Map();
  }

  /** @param {number} id */
  url(id) {
    return `${this.base}/api/screenshot/${id}`;
  }

  /** The image if decoded, else starts loading it and returns null. @param {number} id */
  get(id) {
    let img = this.images.get(id);
    if (!img) {
      if (this.images.size >= MAX_IMAGES) {
        const first = this.images.keys().next().value;
        if (first !== undefined) this.images.delete(first);
      }
      img = new Image();
      img.decoding = 'async';
      img.onload = () => this.onLoad();
      img.src = this.url(id);
      this.images.set(id, img);
    }
    return img.complete && img.naturalWidth > 0 ? img : null;
  }
}

/**
 * The screenshots of a track's tiles, once each, by time.
 * @param {Array<{data: {ts: number[], dur: number[], id: number[], count?: number[]}}>} tiles
 * @returns {Shot[]}
 */
export function shotsOf(tiles) {
  /** @type {Map<number, Shot>} */
  const byTs = new Map();
  for (const t of tiles) {
    const d = t.data;
    for (let i = 0; i < d.ts.length; i++) {
      if (d.id[i] >= 0 && !byTs.has(d.ts[i])) byTs.set(d.ts[i], { ts: d.ts[i], dur: d.dur[i], id: d.id[i], count: d.count ? d.count[i] : 1 });
    }
  }
  return [...byTs.values()].sort((a, b) => a.ts - b.ts);
}

/**
 * The screenshot on screen at time `t`: the last one taken at or before it (and
 * still shown: the last one lasts until the trace ends).
 * @param {Shot[]} shots sorted by time
 * @param {number} t
 */
export function shotAt(shots, t) {
  let lo = 0;
  let hi = shots.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (shots[mid].ts <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return null;
  const s = shots[found];
  return found === shots.length - 1 && t > s.ts + s.dur ? null : s;
}

/**
 * Thumbnail slots: from the first screenshot on, one every thumbnail width, each
 * with the screenshot shown at its left edge.
 * @param {Shot[]} shots
 * @param {TimeScale} scale
 * @param {number} thumbW
 * @returns {Array<{x: number, shot: Shot}>}
 */
export function filmSlots(shots, scale, thumbW) {
  if (shots.length === 0) return [];
  const out = [];
  let x = Math.max(0, scale.toPx(shots[0].ts));
  for (; x < scale.width && out.length < 1000; x += thumbW + GAP) {
    const s = shotAt(shots, scale.toNs(x));
    if (s) out.push({ x, shot: s });
  }
  return out;
}

/**
 * Draw the filmstrip of a track whose top is `y` (canvas px), `h` high.
 * @param {CanvasRenderingContext2D} ctx
 * @param {Shot[]} shots
 * @param {TimeScale} scale
 * @param {number} x0 canvas x of time-axis pixel 0
 * @param {number} y
 * @param {number} h
 * @param {ScreenshotImages} images
 * @param {{grid: string, muted: string, trackAlt: string}} theme
 */
export function drawFilmstrip(ctx, shots, scale, x0, y, h, images, theme) {
  const th = h - 6;
  // The width of the first decoded image sets the aspect (screens do not change size).
  let aspect = 16 / 10;
  for (const s of shots.slice(0, 8)) {
    const img = images.get(s.id);
    if (img) {
      aspect = img.naturalWidth / img.naturalHeight;
      break;
    }
  }
  const tw = Math.max(8, Math.round(th * aspect));
  for (const { x, shot } of filmSlots(shots, scale, tw)) {
    const img = images.get(shot.id);
    const w = Math.min(tw, scale.width - x);
    if (w <= 0) continue;
    if (img) ctx.drawImage(img, 0, 0, img.naturalWidth * (w / tw), img.naturalHeight, x0 + x, y + 3, w, th);
    else {
      ctx.fillStyle = theme.trackAlt;
      ctx.fillRect(x0 + x, y + 3, w, th);
    }
    ctx.strokeStyle = theme.grid;
    ctx.lineWidth = 1;
    ctx.strokeRect(x0 + x + 0.5, y + 3.5, w - 1, th - 1);
  }
}
