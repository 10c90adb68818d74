// The profile panel's tables as export tables (export.js): a call tree with every
// node (not only the rows unfolded on screen) in pre-order, each with its depth and
// its whole stack so a spreadsheet can filter on either; the sandwich's functions
// in the order the table is sorted. Times are raw nanoseconds.

import { formatLocation, pathTo, str } from './calltree.js';

/** @typedef {import('./types.js').ProfileAnswer} ProfileAnswer */
/** @typedef {import('./sandwich.js').FunctionRow} FunctionRow */
/** @typedef {import('./export.js').ExportColumn} ExportColumn */
/** @typedef {{columns: ExportColumn[], order: number[]}} ExportTable */

/**
 * Every node of a call tree (top-down or bottom-up).
 * @param {ProfileAnswer} a
 * @param {boolean} slices made of slices (a count of slices) or of samples (samples, location)
 * @returns {ExportTable}
 */
export function treeTable(a, slices) {
  const n = a.nodes;
  const name = (/** @type {number} */ i) => str(a.strings, n.name[i]) || '(anonymous)';
  /** @type {ExportColumn[]} */
  const columns = [
    { label: 'Depth', value: (i) => n.depth[i] },
    { label: 'Function', value: name },
    { label: 'Stack', value: (i) => pathTo(n, i).map(name).join(' > ') },
    { label: 'Self', unit: 'ns', value: (i) => n.self[i] },
    { label: 'Total', unit: 'ns', value: (i) => n.total[i] },
  ];
  if (slices) {
    columns.push({ label: 'Count', value: (i) => n.self_samples[i] });
  } else {
    columns.push({ label: 'Samples', value: (i) => n.total_samples[i] });
    columns.push({ label: 'Location', value: (i) => formatLocation(str(a.strings, n.url[i]), n.line[i], n.column[i]) || null });
  }
  return { columns, order: Array.from(n.parent, (_, i) => i) };
}

/**
 * The sandwich's function table.
 * @param {FunctionRow[]} rows
 * @param {number[]} order the table's sort order
 * @param {boolean} slices
 * @returns {ExportTable}
 */
export function functionsTable(rows, order, slices) {
  /** @type {ExportColumn[]} */
  const columns = [
    { label: 'Function', value: (i) => rows[i].name || '(anonymous)' },
    { label: 'Self', unit: 'ns', value: (i) => rows[i].self },
    { label: 'Total', unit: 'ns', value: (i) => rows[i].total },
    { label: slices ? 'Count' : 'Samples', value: (i) => rows[i].count },
  ];
  if (!slices) columns.push({ label: 'Location', value: (i) => formatLocation(rows[i].url, rows[i].line, rows[i].column) || null });
  return { columns, order };
}
