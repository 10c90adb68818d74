// The flame graph of a top-down call tree: an icicle (callers above callees),
// each node as wide as its total time. Zooming into a node makes it full width;
// its ancestors stay above it, full width, as the way back out.
import { colorFor, needsDarkText } from './colors.js';
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
 * Paint the layout: `width` px wide, from y = 0; boxes under half a pixel are skipped.
 * @param {CanvasRenderingContext2D} ctx
 * @param {FlameLayout} l
 * @param {(node: number) => string} nameOf
 * @param {number} width
 * @param {{dark: boolean, bg: string, fg: string, muted: string}} theme
 * @param {number} hover box index under the pointer, or -1
 */
export function drawFlame(ctx, l, nameOf, width, theme, hover) {
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (let k = 0; k < l.node.length; k++) {
    const x = l.x[k] * width;
    const w = l.w[k] * width;
    if (w < 0.5) continue;
    const y = l.depth[k] * FLAME_ROW_H;
    const name = nameOf(l.node[k]);
    const fill = colorFor(name, null, theme.dark);
    ctx.globalAlpha = l.ancestor[k] ? 0.45 : 1;
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
    ctx.fillStyle = l.ancestor[k] ? theme.fg : needsDarkText(fill) ? '#111' : '#fff';
    ctx.fillText(text, x + 3, y + FLAME_ROW_H / 2);
  }
}
