// The flame graph of a call tree: an icicle (callers above callees, or, flipped,
// roots at the bottom as for a callers tree), each node as wide as its total
// time, siblings heaviest first (left-heavy, as speedscope's). Zooming into a node
// makes it full width; its ancestors stay above it, full width, as the way back
// out. The same layout exports as a standalone SVG.
import { colorFor, needsDarkText } from './colors.js';
import { esc, formatDuration } from './format.js';
import { fitText } from './tracks.js';

/** @typedef {import('./types.js').ProfileNodes} ProfileNodes */

/** Height of one level, px. */
export const FLAME_ROW_H = 17;

/**
 * Boxes in fractions of the width: box k is node `node[k]` at level `depth[k]`
 * over [x[k], x[k] + w[k]); `ancestor[k]` marks the zoomed node's ancestors.
 * @typedef {{node: number[], x: number[], w: number[], depth: number[], ancestor: boolean[],
 *   levels: number}} FlameLayout
 */

/**
 * Lay out the tree, zoomed into `zoom` (-1: the whole tree). Nodes with no time
 * take no width and are left out.
 * @param {ProfileNodes} nodes pre-order
 * @param {Int32Array} end subtree ends (calltree.subtreeEnds)
 * @param {number} zoom
 * @returns {FlameLayout}
 */
export function flameLayout(nodes, end, zoom) {
  /** @type {FlameLayout} */
  const out = { node: [], x: [], w: [], depth: [], ancestor: [], levels: 0 };
  const n = nodes.parent.length;
  let first = 0;
  let last = n;
  let base = 0;
  if (zoom >= 0 && zoom < n) {
    const chain = [];
    for (let k = nodes.parent[zoom]; k >= 0; k = nodes.parent[k]) chain.push(k);
    for (const k of chain.reverse()) push(out, k, 0, 1, nodes.depth[k], true);
    first = zoom;
    last = end[zoom];
    base = nodes.total[zoom];
  } else {
    for (let i = 0; i < n; i = end[i]) base += nodes.total[i];
  }
  if (!(base > 0)) return out;
  // Where the next child of each node starts (fraction), indexed by node.
  const next = new Float64Array(n);
  let rootX = 0;
  for (let i = first; i < last; i++) {
    const w = nodes.total[i] / base;
    const p = nodes.parent[i];
    // The top of what is shown: the zoomed node, or (unzoomed) each root in turn.
    const top = zoom >= 0 ? i === first : p < 0;
    let x;
    if (!top) {
      x = next[p];
      next[p] += w;
    } else if (zoom >= 0) {
      x = 0;
    } else {
      x = rootX;
      rootX += w;
    }
    next[i] = x;
    if (w > 0) push(out, i, x, w, nodes.depth[i], false);
  }
  return out;
}

/**
 * @param {FlameLayout} out @param {number} node @param {number} x @param {number} w
 * @param {number} depth @param {boolean} ancestor
 */
function push(out, node, x, w, depth, ancestor) {
  out.node.push(node);
  out.x.push(x);
  out.w.push(w);
  out.depth.push(depth);
  out.ancestor.push(ancestor);
  out.levels = Math.max(out.levels, depth + 1);
}

/**
 * The level drawn at row `row` from the top: levels go down, or up when flipped.
 * @param {FlameLayout} l @param {number} row @param {boolean} flip
 */
export function levelAt(l, row, flip) {
  return flip ? l.levels - 1 - row : row;
}

/**
 * The box at fraction `fx` of the width on level `level`, or -1.
 * @param {FlameLayout} l
 * @param {number} fx
 * @param {number} level
 */
export function flameHit(l, fx, level) {
  for (let k = 0; k < l.node.length; k++) {
    if (l.depth[k] === level && fx >= l.x[k] && fx < l.x[k] + l.w[k]) return k;
  }
  return -1;
}

/**
 * Paint the layout: `width` px wide, from y = 0; boxes under half a pixel are
 * skipped. Boxes `dim` says no to are drawn faded (a search that found others).
 * @param {CanvasRenderingContext2D} ctx
 * @param {FlameLayout} l
 * @param {(node: number) => string} nameOf
 * @param {number} width
 * @param {{dark: boolean, bg: string, fg: string, muted: string}} theme
 * @param {number} hover box index under the pointer, or -1
 * @param {{flip?: boolean, dim?: ((node: number) => boolean)|null}} [opts]
 */
export function drawFlame(ctx, l, nameOf, width, theme, hover, opts = {}) {
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const flip = opts.flip ?? false;
  for (let k = 0; k < l.node.length; k++) {
    const x = l.x[k] * width;
    const w = l.w[k] * width;
    if (w < 0.5) continue;
    const y = levelAt(l, l.depth[k], flip) * FLAME_ROW_H;
    const name = nameOf(l.node[k]);
    const fill = colorFor(name, null, theme.dark);
    const faded = opts.dim ? opts.dim(l.node[k]) : false;
    ctx.globalAlpha = l.ancestor[k] ? 0.45 : faded ? 0.25 : 1;
    ctx.fillStyle = fill;
    ctx.fillRect(x, y, Math.max(0.5, w - (w > 3 ? 1 : 0)), FLAME_ROW_H - 1);
    ctx.globalAlpha = 1;
    if (k === hover) {
      ctx.strokeStyle = theme.fg;
      ctx.lineWidth = 1;
      ctx.strokeRect(x + 0.5, y + 0.5, Math.max(1, w - 2), FLAME_ROW_H - 2);
    }
    if (w < 24) continue;
    const text = fitText(ctx, name, w - 6);
    if (text === null) continue;
    ctx.fillStyle = l.ancestor[k] || faded ? theme.fg : needsDarkText(fill) ? '#111' : '#fff';
    ctx.fillText(text, x + 3, y + FLAME_ROW_H / 2);
  }
}

/** Width of one character of the SVG's 11 px font, an estimate (no text metrics there). */
const SVG_CHAR_W = 6.2;

/**
 * The layout as a standalone SVG document `width` px wide: a title, one `<rect>`
 * per box (with a tooltip: name, total, share, self) and its name where it fits.
 * @param {FlameLayout} l
 * @param {{name: (node: number) => string, total: (node: number) => number, self: (node: number) => number,
 *   whole: number, title: string, width?: number, flip?: boolean, unit?: 'time'|'count'}} o
 */
export function flameSvg(l, o) {
  const width = o.width ?? 1200;
  const top = 28;
  const height = top + Math.max(1, l.levels) * FLAME_ROW_H + 4;
  const amount = (/** @type {number} */ v) => (o.unit === 'count' ? String(v) : formatDuration(v));
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="18" text-anchor="middle" font-size="14">${esc(o.title)}</text>`,
  ];
  for (let k = 0; k < l.node.length; k++) {
    const w = l.w[k] * width;
    if (w < 0.5) continue;
    const x = l.x[k] * width;
    const y = top + levelAt(l, l.depth[k], o.flip ?? false) * FLAME_ROW_H;
    const n = l.node[k];
    const name = o.name(n) || '(anonymous)';
    const fill = colorFor(name, null, false);
    const share = o.whole > 0 ? ` (${((100 * o.total(n)) / o.whole).toFixed(1)}%)` : '';
    const tip = `${name}: ${amount(o.total(n))}${share}, self ${amount(o.self(n))}`;
    out.push(`<g><title>${esc(tip)}</title><rect x="${x.toFixed(2)}" y="${y}" width="${Math.max(0.5, w - (w > 3 ? 1 : 0)).toFixed(2)}" height="${FLAME_ROW_H - 1}" fill="${fill}"${l.ancestor[k] ? ' fill-opacity="0.45"' : ''}/>`);
    const fits = Math.floor((w - 6) / SVG_CHAR_W);
    if (fits >= 3) {
      const text = name.length <= fits ? name : `${name.slice(0, fits - 1)}…`;
      const color = needsDarkText(fill) ? '#111' : '#fff';
      out.push(`<text x="${(x + 3).toFixed(2)}" y="${y + 12}" fill="${color}">${esc(text)}</text>`);
    }
    out.push('</g>');
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
