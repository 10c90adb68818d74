// A flame graph on a canvas: one call tree (`/api/profile` nodes), hover to
// explain a box, click to zoom into it (click it again to zoom out), matches of a
// search drawn bright and the rest faded; exportable as SVG.
import { flameLayout, flameHit, drawFlame, flameSvg, levelAt, FLAME_ROW_H } from './flame.js';
import { formatLocation, percent, str, subtreeEnds } from './calltree.js';
import { formatCount, formatDuration, esc } from './format.js';

/** @typedef {import('./types.js').ProfileAnswer} ProfileAnswer */

/** The theme's colours, read from the page's stylesheet. */
export function flameTheme() {
  const cs = getComputedStyle(document.documentElement);
  return {
    dark: cs.getPropertyValue('--is-dark').trim() === '1', bg: cs.getPropertyValue('--panel-bg').trim(),
    fg: cs.getPropertyValue('--fg').trim(), muted: cs.getPropertyValue('--muted').trim(),
  };
}

export class FlameChart {
  /**
   * @param {(html: string|null, x: number, y: number) => void} onHover the tooltip
   * @param {{flip?: boolean, countName?: string}} [opts] flip: roots at the bottom
   */
  constructor(onHover, opts = {}) {
    this.onHover = onHover;
    this.flip = opts.flip ?? false;
    /** What the sample columns count ("samples", "slices"). */
    this.countName = opts.countName ?? 'samples';
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'flame';
    /** @type {ProfileAnswer|null} */
    this.answer = null;
    /** @type {Int32Array} */
    this.end = new Int32Array(0);
    /** @type {import('./flame.js').FlameLayout|null} */
    this.layout = null;
    this.zoom = -1;
    this.hover = -1;
    /** @type {((name: string) => boolean)|null} names a search found */
    this.match = null;
    this.width = 100;
    /** Called after a zoom (the panel shows or hides its reset button). */
    this.onZoom = () => {};
    this.installPointer();
  }

  /** A new tree: zoom and hover reset. @param {ProfileAnswer} answer */
  set(answer) {
    this.answer = answer;
    this.end = subtreeEnds(answer.nodes);
    this.zoom = -1;
    this.hover = -1;
  }

  /** @param {number} node */
  nameOf(node) {
    const a = /** @type {ProfileAnswer} */ (this.answer);
    return str(a.strings, a.nodes.name[node]) ?? '';
  }

  /** Paint at `width` css px. @param {number} width */
  draw(width) {
    const a = this.answer;
    if (!a) return;
    this.width = Math.max(100, width);
    this.layout = flameLayout(a.nodes, this.end, this.zoom);
    const w = this.width;
    const h = Math.max(1, this.layout.levels) * FLAME_ROW_H;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    const ctx = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const theme = flameTheme();
    ctx.fillStyle = theme.bg;
    ctx.fillRect(0, 0, w, h);
    const match = this.match;
    drawFlame(ctx, this.layout, (i) => this.nameOf(i), w, theme, this.hover, {
      flip: this.flip, dim: match ? (i) => !match(this.nameOf(i)) : null,
    });
  }

  /** @param {number} node the node to make full width, -1 for the whole tree */
  zoomTo(node) {
    this.zoom = node;
    this.hover = -1;
    this.draw(this.width);
    this.onZoom();
  }

  /** The flame box under a pointer event, or -1. @param {MouseEvent} e */
  boxAt(e) {
    const l = this.layout;
    if (!l) return -1;
    const r = this.canvas.getBoundingClientRect();
    const row = Math.floor((e.clientY - r.top) / FLAME_ROW_H);
    return flameHit(l, (e.clientX - r.left) / r.width, levelAt(l, row, this.flip));
  }

  /** What a box's tooltip says. @param {number} i node */
  explain(i) {
    const a = /** @type {ProfileAnswer} */ (this.answer);
    const n = a.nodes;
    const loc = formatLocation(str(a.strings, n.url[i]), n.line[i], n.column[i]);
    return `<b>${esc(this.nameOf(i) || '(anonymous)')}</b> ${formatDuration(n.total[i])} (${percent(n.total[i], a.total_ns)})` +
      ` · self ${formatDuration(n.self[i])} · ${formatCount(n.total_samples[i])} ${this.countName}` +
      `${loc ? `<br><span class="muted">${esc(loc)}</span>` : ''}`;
  }

  installPointer() {
    const c = this.canvas;
    c.addEventListener('pointermove', (e) => {
      const k = this.boxAt(e);
      if (k !== this.hover) {
        this.hover = k;
        this.draw(this.width);
      }
      if (k < 0 || !this.layout) return this.onHover(null, 0, 0);
      this.onHover(this.explain(this.layout.node[k]), e.clientX, e.clientY);
    });
    c.addEventListener('pointerleave', () => {
      this.hover = -1;
      this.draw(this.width);
      this.onHover(null, 0, 0);
    });
    c.addEventListener('click', (e) => {
      const k = this.boxAt(e);
      if (k < 0 || !this.answer || !this.layout) return;
      const i = this.layout.node[k];
      // Clicking the zoomed node again zooms out to its parent.
      this.zoomTo(i === this.zoom ? this.answer.nodes.parent[i] : i);
    });
  }

  /**
   * The graph as it is laid out now, as an SVG document.
   * @param {string} title
   * @param {'time'|'count'} [unit]
   */
  svg(title, unit = 'time') {
    const a = this.answer;
    if (!a) return '';
    const l = this.layout ?? flameLayout(a.nodes, this.end, this.zoom);
    const n = a.nodes;
    return flameSvg(l, {
      name: (i) => this.nameOf(i), total: (i) => (unit === 'count' ? n.total_samples[i] : n.total[i]),
      self: (i) => (unit === 'count' ? n.self_samples[i] : n.self[i]), whole: unit === 'count' ? a.samples : a.total_ns,
      title, width: Math.max(1200, Math.round(this.width)), flip: this.flip, unit,
    });
  }
}

/**
 * Offer `text` as a file download.
 * @param {string} name
 * @param {string} text
 * @param {string} type
 */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
