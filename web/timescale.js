// The horizontal mapping between trace time (ns) and canvas pixels, and the ruler.
import { UNITS, formatTick } from './format.js';

/** @typedef {{ns: number, px: number, label: string}} Tick */

export class TimeScale {
  /**
   * @param {number} t0 ns at the left edge
   * @param {number} t1 ns at the right edge
   * @param {number} width pixels
   */
  constructor(t0, t1, width) {
    this.t0 = t0;
    this.t1 = t1;
    this.width = Math.max(1, width);
  }

  /** ns per pixel */
  get nsPerPx() {
    return (this.t1 - this.t0) / this.width;
  }

  /** @param {number} ns */
  toPx(ns) {
    return ((ns - this.t0) * this.width) / (this.t1 - this.t0);
  }

  /** @param {number} px */
  toNs(px) {
    return this.t0 + (px * (this.t1 - this.t0)) / this.width;
  }

  /** @param {number} width */
  resize(width) {
    // Keep the scale (ns per px) and the left edge: a wider window shows more.
    const r = this.nsPerPx;
    this.width = Math.max(1, width);
    this.t1 = this.t0 + r * this.width;
  }

  /**
   * Zoom by `factor` (<1 zooms in) keeping the time under pixel `atPx` fixed.
   * The span never goes below `minSpan` ns (a few ns per screen).
   * @param {number} factor
   * @param {number} atPx
   * @param {number} [minSpan]
   */
  zoom(factor, atPx, minSpan = 10) {
    const at = this.toNs(atPx);
    let span = (this.t1 - this.t0) * factor;
    if (span < minSpan) span = minSpan;
    if (span > 1e17) span = 1e17;
    const frac = atPx / this.width;
    this.t0 = at - span * frac;
    this.t1 = this.t0 + span;
  }

  /** Move the view by `dpx` pixels (positive shows later times). @param {number} dpx */
  pan(dpx) {
    const d = dpx * this.nsPerPx;
    this.t0 += d;
    this.t1 += d;
  }

  /** @param {number} t0 @param {number} t1 */
  set(t0, t1) {
    if (!(t1 > t0)) t1 = t0 + 10;
    this.t0 = t0;
    this.t1 = t1;
  }

  /**
   * Ruler ticks: a 1-2-5 step giving about one label per `minPx` pixels, in the unit
   * of the step (ns, µs, ms, s), relative to `origin` (the trace start).
   * @param {number} origin
   * @param {number} [minPx]
   * @returns {{step: number, ticks: Tick[]}}
   */
  ticks(origin, minPx = 90) {
    const raw = this.nsPerPx * minPx;
    const pow = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
    let step = pow;
    for (const m of [1, 2, 5, 10]) {
      if (pow * m >= raw) {
        step = pow * m;
        break;
      }
    }
    step = Math.max(1, step);
    // One unit for the whole ruler: that of the largest label, unless the step
    // would need more than three fraction digits in it.
    const far = Math.max(Math.abs(this.t0 - origin), Math.abs(this.t1 - origin), step);
    let k = UNITS.findIndex((u) => far >= u[1]);
    if (k < 0) k = UNITS.length - 1;
    while (k < UNITS.length - 1 && step / UNITS[k][1] < 1e-3) k++;
    const unit = UNITS[k];
    const first = Math.ceil((this.t0 - origin) / step) * step;
    /** @type {Tick[]} */
    const ticks = [];
    for (let rel = first; origin + rel <= this.t1 && ticks.length < 1000; rel += step) {
      ticks.push({ ns: origin + rel, px: this.toPx(origin + rel), label: formatTick(rel, step, unit) });
    }
    return { step, ticks };
  }
}
