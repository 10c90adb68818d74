// Slice rectangles are painted into a pixel buffer and put on the canvas in one
// call: a zoomed-out row of a big trace holds about one item per pixel, and tens of
// thousands of fillRect calls cost tens of milliseconds in a software canvas, while
// filling typed-array spans costs a few. Each row's first pixel line is painted,
// then copied down to the row's height.

/** @type {Map<string, number>} packed colours by CSS string */
const packed = new Map();

/**
 * A CSS colour (`#rgb`, `#rrggbb`, `rgb(r g b)`, `rgb(r, g, b)`, `hsl(h s% l%)`) as
 * a little-endian RGBA word for a Uint32Array over ImageData (alpha 255).
 * @param {string} css
 */
export function pack(css) {
  let v = packed.get(css);
  if (v !== undefined) return v;
  const [r, g, b] = toRgb(css.trim());
  v = ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
  packed.set(css, v);
  return v;
}

/** @param {string} s @returns {[number, number, number]} */
export function toRgb(s) {
  /** @type {RegExpMatchArray|null} */
  let m;
  if ((m = s.match(/^#([0-9a-f])([0-9a-f])([0-9a-f])$/i))) return [parseInt(m[1] + m[1], 16), parseInt(m[2] + m[2], 16), parseInt(m[3] + m[3], 16)];
  if ((m = s.match(/^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i))) return [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
  if ((m = s.match(/^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)/))) return [Number(m[1]), Number(m[2]), Number(m[3])];
  if ((m = s.match(/^hsl\(\s*([\d.]+)[\s,]+([\d.]+)%[\s,]+([\d.]+)%/))) {
    const h = Number(m[1]) / 360;
    const sat = Number(m[2]) / 100;
    const l = Number(m[3]) / 100;
    const q = l < 0.5 ? l * (1 + sat) : l + sat - l * sat;
    const p = 2 * l - q;
    const f = (/** @type {number} */ t) => {
      t = (t + 1) % 1;
      const x = t < 1 / 6 ? p + (q - p) * 6 * t : t < 1 / 2 ? q : t < 2 / 3 ? p + (q - p) * (2 / 3 - t) * 6 : p;
      return Math.round(x * 255);
    };
    return [f(h + 1 / 3), f(h), f(h - 1 / 3)];
  }
  return [128, 128, 128];
}

export class Raster {
  constructor() {
    this.w = 0;
    this.h = 0;
    /** @type {ImageData|null} */
    this.img = null;
    this.px = new Uint32Array(0);
  }

  /**
   * Size the buffer (device pixels) and fill it with `bg` (null: the caller paints
   * every line itself, e.g. row by row with lines()).
   * @param {{createImageData: (w: number, h: number) => ImageData}} ctx
   * @param {number} w
   * @param {number} h
   * @param {number|null} bg packed colour
   */
  begin(ctx, w, h, bg) {
    w = Math.max(1, Math.round(w));
    h = Math.max(1, Math.round(h));
    if (w !== this.w || h !== this.h || !this.img) {
      this.img = ctx.createImageData(w, h);
      this.px = new Uint32Array(this.img.data.buffer);
      this.w = w;
      this.h = h;
    }
    if (bg !== null) this.px.fill(bg);
  }

  /** Fill lines [round(y0), round(y1)) entirely. @param {number} y0 @param {number} y1 @param {number} c */
  lines(y0, y1, c) {
    const a = Math.max(0, Math.round(y0));
    const b = Math.min(this.h, Math.round(y1));
    if (b > a) this.px.fill(c, a * this.w, b * this.w);
  }

  /** Fill lines [y, y+h) entirely. @param {number} y @param {number} h @param {number} c */
  band(y, h, c) {
    const y0 = Math.max(0, Math.round(y));
    const y1 = Math.min(this.h, Math.round(y + h));
    if (y1 > y0) this.px.fill(c, y0 * this.w, y1 * this.w);
  }

  /** A one-pixel vertical line over lines [y0, y1). @param {number} x @param {number} y0 @param {number} y1 @param {number} c */
  vline(x, y0, y1, c) {
    x = Math.round(x);
    if (x < 0 || x >= this.w) return;
    const a = Math.max(0, Math.round(y0));
    const b = Math.min(this.h, Math.round(y1));
    for (let y = a; y < b; y++) this.px[y * this.w + x] = c;
  }

  /**
   * Pixels [x0, x1) of line y; at least one pixel, so sub-pixel items stay visible.
   * @param {number} y @param {number} x0 @param {number} x1 @param {number} c
   */
  span(y, x0, x1, c) {
    if (y < 0 || y >= this.h) return;
    let a = Math.floor(x0);
    let b = Math.round(x1);
    if (b <= a) b = a + 1;
    if (a < 0) a = 0;
    if (b > this.w) b = this.w;
    if (b > a) this.px.fill(c, y * this.w + a, y * this.w + b);
  }

  /** Copy line y over lines (y, y+n), within the buffer. @param {number} y @param {number} n */
  replicate(y, n) {
    if (y < 0 || y >= this.h) return;
    const w = this.w;
    const end = Math.min(this.h, y + n);
    for (let l = y + 1; l < end; l++) this.px.copyWithin(l * w, y * w, y * w + w);
  }

  /** @param {CanvasRenderingContext2D} ctx @param {number} x @param {number} y device pixels */
  put(ctx, x, y) {
    if (this.img) ctx.putImageData(this.img, Math.round(x), Math.round(y));
  }

  /**
   * Fill with `fill` what put(ctx, x, y) leaves of a canvas of `cw` x `ch` device
   * pixels (whole-pixel rectangles, so no edge is blended with the last frame).
   * @param {CanvasRenderingContext2D} ctx @param {number} x @param {number} y
   * @param {number} cw @param {number} ch @param {string} fill
   */
  around(ctx, x, y, cw, ch, fill) {
    x = Math.round(x);
    y = Math.round(y);
    const right = x + this.w;
    const bottom = y + this.h;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = fill;
    ctx.fillRect(0, 0, x, ch);
    ctx.fillRect(x, 0, cw - x, y);
    if (right < cw) ctx.fillRect(right, y, cw - right, ch - y);
    if (bottom < ch) ctx.fillRect(x, bottom, Math.min(right, cw) - x, ch - bottom);
    ctx.restore();
  }
}
