// Sortable tables of columnar answers (the range statistics, the counters in a
// range): a header click sorts by that column (numbers numerically, text by code
// points), again reverses; ties keep the server's order, so sorting is stable.
import { esc, formatCount } from './format.js';

/** Rows drawn at most: the rest are summarised (sorting still sees them all). */
export const MAX_TABLE_ROWS = 2000;

/**
 * A column: how to read row i's value (null: none, shown as "–" and sorted last in
 * either direction) and how to show it.
 * `unit` names the unit of raw numbers (exports put it in the header).
 * @typedef {{id: string, label: string, title?: string, numeric: boolean, unit?: string,
 *   value: (i: number) => number|string|null, show?: (v: any, i?: number) => string}} Column
 * @typedef {{column: string|null, dir: 1|-1}} SortState
 */

/**
 * Row indexes 0..n-1 in the order of `col` (`dir` 1 ascending, -1 descending).
 * Stable: equal values keep their index order in both directions.
 * @param {number} n
 * @param {Column|null} col
 * @param {1|-1} dir
 * @returns {number[]}
 */
export function sortedOrder(n, col, dir) {
  const order = Array.from({ length: n }, (_, i) => i);
  if (!col) return order;
  const v = order.map((i) => col.value(i));
  order.sort((a, b) => {
    const x = v[a];
    const y = v[b];
    if (x === null || y === null) return x === y ? a - b : x === null ? 1 : -1;
    const c = col.numeric ? /** @type {number} */ (x) - /** @type {number} */ (y) : x < y ? -1 : x > y ? 1 : 0;
    return c !== 0 ? c * dir : a - b;
  });
  return order;
}

/**
 * The next sort state after a click on column `id`: a new column starts descending
 * for numbers (biggest first) and ascending for text; the same column reverses.
 * @param {SortState} s
 * @param {Column} col
 * @returns {SortState}
 */
export function nextSort(s, col) {
  if (s.column === col.id) return { column: col.id, dir: s.dir === 1 ? -1 : 1 };
  return { column: col.id, dir: col.numeric ? -1 : 1 };
}

/** A table element kept in sync with columns, rows and a sort state. */
export class TableView {
  /**
   * @param {string} className
   * @param {(i: number, tr: HTMLTableRowElement) => void} [onRow] a row was clicked
   */
  constructor(className, onRow) {
    this.el = document.createElement('table');
    this.el.className = `sortable ${className}`;
    /** @type {Column[]} */
    this.columns = [];
    this.n = 0;
    /** @type {SortState} */
    this.sort = { column: null, dir: 1 };
    /** @type {number|null} the row (data index) marked as chosen */
    this.chosen = null;
    this.el.addEventListener('click', (e) => {
      const t = /** @type {HTMLElement} */ (e.target);
      const th = /** @type {HTMLElement|null} */ (t.closest('th[data-col]'));
      if (th) {
        const col = this.columns.find((c) => c.id === th.dataset.col);
        if (col) {
          this.sort = nextSort(this.sort, col);
          this.render();
        }
        return;
      }
      const tr = /** @type {HTMLTableRowElement|null} */ (t.closest('tr[data-i]'));
      if (tr && onRow) {
        this.chosen = Number(tr.dataset.i);
        for (const r of this.el.querySelectorAll('tr.chosen')) r.classList.remove('chosen');
        tr.classList.add('chosen');
        onRow(this.chosen, tr);
      }
    });
  }

  /**
   * New data: keep the sort column if it still exists.
   * @param {Column[]} columns
   * @param {number} n
   */
  set(columns, n) {
    this.columns = columns;
    this.n = n;
    this.chosen = null;
    if (!columns.some((c) => c.id === this.sort.column)) this.sort = { column: null, dir: 1 };
    this.render();
  }

  render() {
    const col = this.columns.find((c) => c.id === this.sort.column) ?? null;
    const order = sortedOrder(this.n, col, this.sort.dir);
    const head = this.columns
      .map((c) => {
        const arrow = c.id === this.sort.column ? (this.sort.dir === 1 ? ' ▲' : ' ▼') : '';
        const aria = c.id === this.sort.column ? ` aria-sort="${this.sort.dir === 1 ? 'ascending' : 'descending'}"` : '';
        return `<th data-col="${c.id}" class="${c.numeric ? 'n' : ''}"${aria}${c.title ? ` title="${esc(c.title)}"` : ''}>${esc(c.label)}${arrow}</th>`;
      })
      .join('');
    const body = order
      .slice(0, MAX_TABLE_ROWS)
      .map((i) => {
        const cells = this.columns
          .map((c) => {
            const v = c.value(i);
            const text = v === null ? '–' : c.show ? c.show(v, i) : esc(String(v));
            // Long names are cut by the stylesheet; the full text is the cell's title.
            const title = !c.numeric && typeof v === 'string' && v.length > 30 ? ` title="${esc(v)}"` : '';
            return `<td class="${c.numeric ? 'n' : 't'}"${title}>${text}</td>`;
          })
          .join('');
        return `<tr data-i="${i}"${i === this.chosen ? ' class="chosen"' : ''}>${cells}</tr>`;
      })
      .join('');
    const more = order.length > MAX_TABLE_ROWS
      ? `<tr class="more"><td colspan="${this.columns.length}" class="muted">and ${formatCount(order.length - MAX_TABLE_ROWS)} more rows (sort to see others)</td></tr>`
      : '';
    this.el.innerHTML = `<thead><tr>${head}</tr></thead><tbody>${body}${more}</tbody>`;
    this.el.hidden = this.n === 0;
  }

  /** Every row's data index in the current sort order (the shown ones and the rest). */
  sortedRows() {
    return sortedOrder(this.n, this.columns.find((c) => c.id === this.sort.column) ?? null, this.sort.dir);
  }

  /** Data indexes in the order shown. */
  shownOrder() {
    return Array.from(this.el.querySelectorAll('tbody tr[data-i]'), (tr) => Number(/** @type {HTMLElement} */ (tr).dataset.i));
  }
}
