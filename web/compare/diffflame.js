// The differential flame graph: the merged call tree of both sides
// (`/api/diff/flame`), each frame as wide as its time on one side (new by
// default) and coloured by the change of its self time: red took longer, blue
// took less, grey unchanged (the scheme of Brendan Gregg's differential flame
// graphs). Hover explains a frame; a click zooms into it, a click on a frame
// above the zoomed one zooms out to it.
import { esc, formatDuration } from '../format.js';

/**
 * @typedef {{parent: number[], name: string[], base_total: number[], new_total: number[],
 *   base_self: number[], new_self: number[]}} FlameNodes
 * @typedef {{source: string, base_total_ns: number, new_total_ns: number, nodes: FlameNodes}} FlameAnswer
 * @typedef {{i: number, x: number, w: number, depth: number}} FlameRect
 */

export const FRAME_H = 18;

/**
 * Children of each node, and the roots, in the answer's order (pre-order,
 * heaviest first).
 * @param {FlameNodes} n
 */
export function childrenOf(n) {
  /** @type {number[][]} */
  const kids = n.parent.map(() => []);
  /** @type {number[]} */
  const roots = [];
  n.parent.forEach((p, i) => (p < 0 ? roots : kids[p]).push(i));
  return { kids, roots };
}

/**
 * Frames laid out in `width` px: `focus` (a node, or -1 for all) spans the width,
 * its ancestors above it too; below, children side by side in their parent's
 * width, each as wide as its share of `size` ('new' or 'base' totals). Frames
 * under half a pixel are left out.
 * @param {FlameNodes} n
 * @param {'new'|'base'} size
 * @param {number} focus
 * @param {number} width
 * @returns {FlameRect[]}
 */
export function layoutFlame(n, size, focus, width) {
  const total = size === 'new' ? n.new_total : n.base_total;
  const { kids, roots } = childrenOf(n);
  /** @type {FlameRect[]} */
  const out = [];
  let top = roots;
  let depth = 0;
  if (focus >= 0) {
    const chain = [];
    for (let a = focus; a >= 0; a = n.parent[a]) chain.push(a);
    chain.reverse();
    for (const a of chain) out.push({ i: a, x: 0, w: width, depth: depth++ });
    top = kids[focus];
    depth = chain.length;
  }
  const sum = focus >= 0 ? total[focus] : roots.reduce((s, r) => s + total[r], 0);
  if (!(sum > 0)) return out;
  const scale = width / sum;
  /** @type {Array<[number, number, number]>} node, x, depth */
  const stack = [];
  /** Push siblings side by side from x, last first (so the first pops first). @param {number[]} list @param {number} x @param {number} d */
  const push = (list, x, d) => {
    /** @type {Array<[number, number, number]>} */
    const row = [];
    for (const c of list) {
      row.push([c, x, d]);
      x += total[c] * scale;
    }
    for (let k = row.length - 1; k >= 0; k--) stack.push(row[k]);
  };
  push(top, 0, depth);
  while (stack.length) {
    const [i, x0, d] = /** @type {[number, number, number]} */ (stack.pop());
    const w = total[i] * scale;
    if (w < 0.5) continue;
    out.push({ i, x: x0, w, depth: d });
    push(kids[i], x0, d + 1);
  }
  return out;
}

/**
 * A frame's colour from the change of its self time, relative to the largest
 * change of any frame: red grew, blue shrank, grey the same; stronger the larger.
 * @param {number} delta new self minus base self
 * @param {number} largest the largest |delta| of the tree
 * @param {boolean} dark
 */
export function changeColor(delta, largest, dark) {
  const t = largest > 0 ? Math.min(1, Math.abs(delta) / largest) : 0;
  if (t < 0.01) return dark ? 'hsl(220, 6%, 38%)' : 'hsl(220, 8%, 82%)';
  const hue = delta > 0 ? 0 : 215;
  const sat = Math.round(35 + 55 * t);
  const light = dark ? Math.round(40 - 10 * t) : Math.round(85 - 30 * t);
  return `hsl(${hue}, ${sat}%, ${light}%)`;
}

export class DiffFlame {
  /**
   * @param {HTMLElement} el
   * @param {(html: string|null, x: number, y: number) => void} showTip
   */
  constructor(el, showTip) {
    this.el = el;
    this.showTip = showTip;
    this.head = document.createElement('div');
    this.head.className = 'panel-head';
    this.head.innerHTML = `<span class="seg" role="group" aria-label="Frame width">
        <button type="button" data-size="new" aria-pressed="true">Width: new</button>
        <button type="button" data-size="base" aria-pressed="false">Width: base</button></span>
      <span class="legend"><span class="sw up"></span> self time grew <span class="sw down"></span> shrank</span>
      <span class="flame-status muted"></span>`;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'flame diff-flame';
    el.append(this.head, this.canvas);
    /** @type {FlameAnswer|null} */
    this.answer = null;
    /** @type {'new'|'base'} */
    this.size = 'new';
    this.focus = -1;
    /** @type {FlameRect[]} */
    this.rects = [];
    this.largest = 0;
    this.head.addEventListener('click', (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest('button[data-size]');
      if (!b) return;
      this.size = /** @type {'new'|'base'} */ (/** @type {HTMLElement} */ (b).dataset.size);
      for (const x of this.head.querySelectorAll('button[data-size]')) x.setAttribute('aria-pressed', String(x === b));
      this.draw();
    });
    this.canvas.addEventListener('mousemove', (e) => {
      const r = this.at(e.offsetX, e.offsetY);
      this.showTip(r ? this.explain(r.i) : null, e.clientX, e.clientY);
    });
    this.canvas.addEventListener('mouseleave', () => this.showTip(null, 0, 0));
    this.canvas.addEventListener('click', (e) => {
      const r = this.at(e.offsetX, e.offsetY);
      if (!r) return;
      this.focus = r.i === this.focus ? (this.answer?.nodes.parent[r.i] ?? -1) : r.i;
      this.draw();
    });
  }

  /** @param {FlameAnswer} a */
  show(a) {
    this.answer = a;
    this.focus = -1;
    const n = a.nodes;
    this.largest = n.name.reduce((m, _, i) => Math.max(m, Math.abs(n.new_self[i] - n.base_self[i])), 0);
    const status = /** @type {HTMLElement} */ (this.head.querySelector('.flame-status'));
    status.textContent = n.name.length === 0
      ? 'Nothing to draw: neither side has CPU samples or slices.'
      : `${a.source === 'samples' ? 'CPU samples' : 'Slices as stacks'} · base ${formatDuration(a.base_total_ns)}, new ${formatDuration(a.new_total_ns)}`;
    this.draw();
  }

  /** The frame at a point. @param {number} x @param {number} y */
  at(x, y) {
    const d = Math.floor(y / FRAME_H);
    return this.rects.find((r) => r.depth === d && x >= r.x && x < r.x + r.w) ?? null;
  }

  /** Tooltip of node i. @param {number} i */
  explain(i) {
    const n = /** @type {FlameAnswer} */ (this.answer).nodes;
    const row = (/** @type {string} */ label, /** @type {number} */ b, /** @type {number} */ v) => {
      const d = v - b;
      const pct = b > 0 ? ` (${d >= 0 ? '+' : '−'}${Math.abs((d / b) * 100).toFixed(1)}%)` : '';
      return `<tr><th>${label}</th><td>${formatDuration(b)}</td><td>${formatDuration(v)}</td><td>${d >= 0 ? '+' : '−'}${formatDuration(Math.abs(d))}${pct}</td></tr>`;
    };
    return `<b>${esc(n.name[i])}</b><table class="facts"><tr><th></th><th>base</th><th>new</th><th>change</th></tr>`
      + `${row('total', n.base_total[i], n.new_total[i])}${row('self', n.base_self[i], n.new_self[i])}</table>`;
  }

  draw() {
    const a = this.answer;
    if (!a) return;
    const width = Math.max(100, this.el.clientWidth - 24);
    this.rects = layoutFlame(a.nodes, this.size, this.focus, width);
    const depth = this.rects.reduce((m, r) => Math.max(m, r.depth + 1), 0);
    const h = Math.max(FRAME_H, depth * FRAME_H);
    const dpr = window.devicePixelRatio || 1;
    const c = this.canvas;
    c.style.width = `${width}px`;
    c.style.height = `${h}px`;
    c.width = Math.round(width * dpr);
    c.height = Math.round(h * dpr);
    const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const dark = document.documentElement.dataset.theme === 'dark';
    ctx.clearRect(0, 0, width, h);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const n = a.nodes;
    for (const r of this.rects) {
      const y = r.depth * FRAME_H;
      ctx.fillStyle = changeColor(n.new_self[r.i] - n.base_self[r.i], this.largest, dark);
      ctx.fillRect(r.x, y, Math.max(1, r.w - 1), FRAME_H - 1);
      if (r.w > 30) {
        ctx.fillStyle = dark ? '#eee' : '#111';
        ctx.save();
        ctx.beginPath();
        ctx.rect(r.x, y, r.w - 1, FRAME_H);
        ctx.clip();
        ctx.fillText(n.name[r.i], r.x + 3, y + FRAME_H / 2);
        ctx.restore();
      }
    }
  }
}
