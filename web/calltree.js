// Call trees of `/api/profile` (pre-order columns with parent indexes): which rows
// show given the expanded nodes, how to expand by default, and how a frame's
// source location reads.

/** @typedef {import('./types.js').ProfileNodes} ProfileNodes */

/**
 * The end of each node's subtree: nodes i+1 .. end[i]-1 are its descendants
 * (pre-order), so a collapsed node's subtree is skipped in one step.
 * @param {ProfileNodes} nodes
 * @returns {Int32Array}
 */
export function subtreeEnds(nodes) {
  const n = nodes.parent.length;
  const end = new Int32Array(n);
  /** @type {number[]} open nodes, deepest last */
  const open = [];
  for (let i = 0; i < n; i++) {
    while (open.length && nodes.depth[open[open.length - 1]] >= nodes.depth[i]) end[/** @type {number} */ (open.pop())] = i;
    open.push(i);
  }
  for (const i of open) end[i] = n;
  return end;
}

/**
 * Rows to show, in display order: roots, and the children of expanded nodes whose
 * ancestors are all expanded.
 * @param {Int32Array} end from subtreeEnds
 * @param {Set<number>} expanded
 * @returns {number[]}
 */
export function visibleNodes(end, expanded) {
  const out = [];
  for (let i = 0; i < end.length; ) {
    out.push(i);
    i = expanded.has(i) ? i + 1 : end[i];
  }
  return out;
}

/**
 * Every node that has children (expand all).
 * @param {Int32Array} end
 */
export function allExpandable(end) {
  const s = new Set();
  for (let i = 0; i < end.length; i++) if (end[i] > i + 1) s.add(i);
  return s;
}

/**
 * The first expansion of a tree: top-down, the nodes holding at least `share` of
 * the whole time are open, so the heavy paths show at once (DevTools' habit is to
 * open nothing, which hides everything under "(root)"); bottom-up, nothing, since
 * its roots are the answer (the heaviest functions).
 * @param {ProfileNodes} nodes
 * @param {Int32Array} end
 * @param {'top-down'|'bottom-up'} view
 * @param {number} [share]
 */
export function defaultExpanded(nodes, end, view, share = 0.05) {
  /** @type {Set<number>} */
  const s = new Set();
  if (view === 'bottom-up') return s;
  let whole = 0;
  for (let i = 0; i < end.length; i = end[i]) whole += nodes.total[i];
  for (let i = 0; i < end.length; i++) {
    if (end[i] > i + 1 && nodes.total[i] >= whole * share && (nodes.parent[i] < 0 || s.has(nodes.parent[i]))) s.add(i);
  }
  return s;
}

/**
 * A node and its ancestors, root first.
 * @param {ProfileNodes} nodes
 * @param {number} i
 */
export function pathTo(nodes, i) {
  const out = [];
  for (let k = i; k >= 0; k = nodes.parent[k]) out.push(k);
  return out.reverse();
}

/**
 * The source location as `url:line:column` (unknown parts left out); "" without a url.
 * @param {string|null|undefined} url
 * @param {number} line
 * @param {number} column
 */
export function formatLocation(url, line, column) {
  if (!url) return '';
  if (line < 0) return url;
  return column < 0 ? `${url}:${line}` : `${url}:${line}:${column}`;
}

/**
 * A share of a whole as a percentage with one decimal ("42.9%"); "–" of nothing.
 * @param {number} part
 * @param {number} whole
 */
export function percent(part, whole) {
  if (!(whole > 0)) return '–';
  return `${((100 * part) / whole).toFixed(1)}%`;
}

/**
 * The string of a node's column (name or url), or null for -1.
 * @param {string[]} strings
 * @param {number} k
 */
export function str(strings, k) {
  return k >= 0 && k < strings.length ? strings[k] : null;
}
