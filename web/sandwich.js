// The sandwich view (speedscope's name): every function of the selection in a
// sortable table (self and total time, count); picking one shows who called it
// (a flame graph growing upwards from it) over what it called (growing
// downwards), both rooted at the function.
import { TableView } from './table.js';
import { FlameChart } from './flamechart.js';
import { formatLocation, percent, str } from './calltree.js';
import { formatCount, formatDuration, esc } from './format.js';

/** @typedef {import('./types.js').FunctionsAnswer} FunctionsAnswer */
/** @typedef {import('./types.js').SandwichAnswer} SandwichAnswer */

/**
 * A function of the table: what identifies it to the server, and its numbers.
 * @typedef {{name: string, url: string|null, line: number, column: number,
 *   self: number, total: number, count: number}} FunctionRow
 */

/**
 * The table's rows from the answer, those whose name `keep` accepts.
 * @param {FunctionsAnswer} a
 * @param {((name: string) => boolean)|null} keep
 * @returns {FunctionRow[]}
 */
export function functionRows(a, keep) {
  const f = a.functions;
  const out = [];
  for (let i = 0; i < f.name.length; i++) {
    const name = str(a.strings, f.name[i]) ?? '';
    if (keep && !keep(name)) continue;
    out.push({ name, url: str(a.strings, f.url[i]), line: f.line[i], column: f.column[i], self: f.self[i], total: f.total[i], count: f.self_samples[i] });
  }
  return out;
}

export class SandwichView {
  /**
   * @param {(fn: FunctionRow) => Promise<SandwichAnswer>} fetchSandwich
   * @param {(html: string|null, x: number, y: number) => void} onHover
   */
  constructor(fetchSandwich, onHover) {
    this.fetchSandwich = fetchSandwich;
    this.el = document.createElement('div');
    this.el.className = 'sandwich';
    /** @type {FunctionRow[]} */
    this.rows = [];
    this.whole = 0;
    /** @type {FunctionRow|null} */
    this.chosen = null;
    this.countName = 'samples';
    this.table = new TableView('functions', (i) => this.pick(this.rows[i]));
    const left = document.createElement('div');
    left.className = 'sandwich-table';
    left.append(this.table.el);
    this.right = document.createElement('div');
    this.right.className = 'sandwich-graphs';
    this.callers = new FlameChart(onHover, { flip: true });
    this.callees = new FlameChart(onHover);
    this.head = document.createElement('div');
    this.head.className = 'sandwich-head';
    this.right.append(this.caption('Callers'), this.callers.canvas, this.head, this.caption('Callees'), this.callees.canvas);
    this.el.append(left, this.right);
    this.seq = 0;
    /** @type {Promise<void>} */
    this.done = Promise.resolve();
  }

  /** @param {string} text */
  caption(text) {
    const p = document.createElement('p');
    p.className = 'muted sandwich-caption';
    p.textContent = text;
    return p;
  }

  /**
   * Show a function table (the choice kept if the function is still there).
   * @param {FunctionsAnswer} a
   * @param {((name: string) => boolean)|null} keep a search's filter
   * @param {string} countName
   */
  show(a, keep, countName) {
    this.countName = countName;
    this.callers.countName = this.callees.countName = countName;
    this.rows = functionRows(a, keep);
    this.whole = a.total_ns;
    const r = this.rows;
    const whole = this.whole;
    this.table.set([
      { id: 'name', label: 'Function', numeric: false, value: (i) => r[i].name || '(anonymous)' },
      { id: 'self', label: 'Self', numeric: true, value: (i) => r[i].self, show: formatDuration },
      { id: 'selfpct', label: '%', numeric: true, value: (i) => r[i].self, show: (v) => percent(v, whole) },
      { id: 'total', label: 'Total', numeric: true, value: (i) => r[i].total, show: formatDuration },
      { id: 'totalpct', label: '%', numeric: true, value: (i) => r[i].total, show: (v) => percent(v, whole) },
      { id: 'count', label: countName === 'slices' ? 'Count' : 'Samples', numeric: true, value: (i) => r[i].count, show: formatCount },
    ], r.length);
    const again = this.chosen && r.findIndex((x) => same(x, /** @type {FunctionRow} */ (this.chosen)));
    this.done = again !== null && again >= 0 ? this.pick(r[again]) : r.length ? this.pick(r[0]) : this.clear();
    return this.done;
  }

  clear() {
    this.chosen = null;
    this.head.textContent = '';
    this.callers.answer = null;
    this.callees.answer = null;
    this.right.hidden = true;
    return Promise.resolve();
  }

  /** Show the callers and callees of a function. @param {FunctionRow} fn */
  async pick(fn) {
    const seq = ++this.seq;
    this.chosen = fn;
    const i = this.rows.indexOf(fn);
    this.table.chosen = i;
    for (const tr of this.table.el.querySelectorAll('tr[data-i]')) tr.classList.toggle('chosen', Number(/** @type {HTMLElement} */ (tr).dataset.i) === i);
    const loc = formatLocation(fn.url, fn.line, fn.column);
    this.head.innerHTML = `<b>${esc(fn.name || '(anonymous)')}</b> <span class="muted">total ${formatDuration(fn.total)} (${percent(fn.total, this.whole)}) · self ${formatDuration(fn.self)}` +
      ` · ${formatCount(fn.count)} ${this.countName}${loc ? ` · ${esc(loc)}` : ''}</span>`;
    const s = await this.fetchSandwich(fn);
    if (seq !== this.seq) return;
    this.right.hidden = false;
    this.callers.set(s.callers);
    this.callees.set(s.callees);
    this.draw();
  }

  draw() {
    const w = this.right.clientWidth - 2;
    this.callers.draw(w);
    this.callees.draw(w);
  }

  /** The callers and callees graphs as one SVG each. @param {string} title @param {'time'|'count'} unit */
  svgs(title, unit) {
    const name = this.chosen ? this.chosen.name : '';
    return { callers: this.callers.svg(`Callers of ${name} · ${title}`, unit), callees: this.callees.svg(`Callees of ${name} · ${title}`, unit) };
  }
}

/** @param {FunctionRow} a @param {FunctionRow} b */
function same(a, b) {
  return a.name === b.name && a.url === b.url && a.line === b.line && a.column === b.column;
}
