// The Query tab: SQL over the trace (POST /api/query), as `tracescope query` runs it.
// An editor (Ctrl+Enter runs), the result grid (sortable), its row count and time,
// errors inline with their line and column. A row that holds a slice id selects
// that slice on the timeline; one with a start time (ts) zooms to it.
import { TableView } from './table.js';
import { esc, formatCount } from './format.js';

/**
 * The answer of POST /api/query (docs/api.md).
 * @typedef {{columns: string[], rows: (number|string|null)[][], row_count: number,
 *   truncated: boolean, ms: number}} QueryAnswer
 * @typedef {{error: string, line?: number, column?: number}} QueryError
 */

/** Rows asked for at most; the count goes on past it. */
export const QUERY_ROWS = 5000;

export const EXAMPLE = `SELECT name, COUNT(*) AS count, SUM(dur) AS total
FROM slice
GROUP BY name
ORDER BY total DESC
LIMIT 20`;

/**
 * Which columns of a result point at the timeline: a slice id column and the time
 * columns. Perfetto's `slice` numbers thread slices, then instants, then async
 * slices in one id space; our `slices` table holds thread slices only.
 * @param {string[]} columns
 * @param {string} sql
 * @returns {{slice: number, ts: number, dur: number, ours: boolean}} indexes, -1 if none
 */
export function timelineColumns(columns, sql) {
  const ours = /\bslices\b/i.test(sql) && !/\bslice\b/i.test(sql);
  const fromSlices = /\bslices?\b/i.test(sql);
  let slice = columns.indexOf('slice_id');
  if (slice < 0 && fromSlices) slice = columns.indexOf('id');
  const first = (/** @type {string[]} */ names) => names.map((n) => columns.indexOf(n)).find((i) => i >= 0) ?? -1;
  return { slice, ts: first(['ts', 'ts_ns', 'start_ns']), dur: first(['dur', 'dur_ns']), ours };
}

/**
 * The item a `slice` id names: a thread slice, an instant or an async slice.
 * @param {number} id
 * @param {boolean} ours the id is a `slices.id` (thread slices only)
 * @param {{slices: number, instants: number}} counts
 * @returns {{kind: 'slice'|'instant'|'async', id: number}}
 */
export function sliceItem(id, ours, counts) {
  if (ours || id < counts.slices) return { kind: 'slice', id };
  if (id < counts.slices + counts.instants) return { kind: 'instant', id: id - counts.slices };
  return { kind: 'async', id: id - counts.slices - counts.instants };
}

/**
 * The error text with a caret under the place it names.
 * @param {QueryError} e
 * @param {string} sql
 */
export function errorText(e, sql) {
  if (!e.line || !e.column) return e.error;
  const line = sql.split('\n')[e.line - 1] ?? '';
  return `${e.error} (line ${e.line}, column ${e.column})\n${line}\n${' '.repeat(e.column - 1)}^`;
}

export class QueryPanel {
  /**
   * @param {HTMLElement} root
   * @param {{slices: number, instants: number}} counts the trace's thread slices and instants
   * @param {(item: {kind: 'slice'|'instant'|'async', id: number}) => void} select
   * @param {(ts: number, dur: number) => void} zoom
   */
  constructor(root, counts, select, zoom) {
    this.root = root;
    this.counts = counts;
    root.innerHTML = `<div class="query-bar">
        <textarea class="query-editor" spellcheck="false" rows="5" aria-label="SQL query"></textarea>
        <div class="query-actions"><button type="button" class="query-run" title="Run (Ctrl+Enter)">Run</button>
        <span class="muted">Ctrl+Enter · tables: <code>slice</code>, <code>thread</code>, <code>args</code>, <code>slices</code>, … (<code>tracescope query --schema</code>)</span></div>
      </div>
      <pre class="query-error" hidden></pre>
      <div class="query-status muted" aria-live="polite"></div>`;
    /** @type {HTMLTextAreaElement} */
    this.editor = /** @type {HTMLTextAreaElement} */ (root.querySelector('.query-editor'));
    this.editor.value = EXAMPLE;
    this.status = /** @type {HTMLElement} */ (root.querySelector('.query-status'));
    this.errorBox = /** @type {HTMLElement} */ (root.querySelector('.query-error'));
    /** @type {QueryAnswer|null} */
    this.answer = null;
    this.sql = '';
    this.table = new TableView('query-table', (i) => this.rowClicked(i));
    root.append(this.table.el);
    this.table.el.hidden = true;
    this.seq = 0;
    this.editor.addEventListener('keydown', (e) => {
      // The timeline's keys must not see typing.
      e.stopPropagation();
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.run();
      }
    });
    /** @type {HTMLElement} */ (root.querySelector('.query-run')).addEventListener('click', () => this.run());
    this.select = select;
    this.zoom = zoom;
  }

  focus() {
    this.editor.focus();
  }

  /** Runs the editor's query. */
  async run() {
    const sql = this.editor.value;
    const seq = ++this.seq;
    this.status.textContent = 'Running…';
    this.errorBox.hidden = true;
    let res;
    let body;
    try {
      res = await fetch(`/api/query?limit=${QUERY_ROWS}`, { method: 'POST', body: sql });
      body = await res.json();
    } catch (e) {
      body = { error: /** @type {Error} */ (e).message };
    }
    if (seq !== this.seq) return;
    if (!res || !res.ok) {
      this.showError(/** @type {QueryError} */ (body), sql);
      return;
    }
    this.show(/** @type {QueryAnswer} */ (body), sql);
  }

  /** @param {QueryError} e @param {string} sql */
  showError(e, sql) {
    this.errorBox.textContent = errorText(e, sql);
    this.errorBox.hidden = false;
    this.status.textContent = '';
  }

  /** @param {QueryAnswer} a @param {string} sql */
  show(a, sql) {
    this.answer = a;
    this.sql = sql;
    this.errorBox.hidden = true;
    const shown = a.truncated ? ` (first ${formatCount(a.rows.length)} shown)` : '';
    this.status.textContent = `${formatCount(a.row_count)} row${a.row_count === 1 ? '' : 's'}${shown} in ${a.ms} ms`;
    const link = timelineColumns(a.columns, sql);
    const cols = a.columns.map((name, k) => {
      const numeric = a.rows.some((r) => typeof r[k] === 'number');
      const linked = k === link.slice || k === link.ts;
      return {
        id: `c${k}`,
        label: name,
        numeric,
        value: (/** @type {number} */ i) => a.rows[i][k],
        show: (/** @type {any} */ v) => (linked ? `<a class="query-link">${esc(String(v))}</a>` : esc(String(v))),
      };
    });
    this.table.set(cols, a.rows.length);
    this.table.el.classList.toggle('linked', link.slice >= 0 || link.ts >= 0);
  }

  /** A row click: select its slice, else zoom to its time. @param {number} i */
  rowClicked(i) {
    const a = this.answer;
    if (!a) return;
    const link = timelineColumns(a.columns, this.sql);
    const row = a.rows[i];
    const id = link.slice >= 0 ? row[link.slice] : null;
    if (typeof id === 'number') {
      this.select(sliceItem(id, link.ours, this.counts));
      return;
    }
    const ts = link.ts >= 0 ? row[link.ts] : null;
    if (typeof ts === 'number') {
      const dur = link.dur >= 0 && typeof row[link.dur] === 'number' ? Math.max(0, /** @type {number} */ (row[link.dur])) : 0;
      this.zoom(ts, dur);
    }
  }
}
