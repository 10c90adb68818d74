// The diff table: every group of the comparison (`/api/diff`, the numbers of
// `tracescope diff --json`), sortable by any column, filtered by a key substring;
// a row click asks for that group's slices on both sides.
import { TableView } from '../table.js';
import { esc, formatDuration } from '../format.js';

/**
 * @typedef {{count: number|null, total_ns: number|null, self_ns: number|null, mean_ns: number|null,
 *   p50_ns: number|null, p95_ns: number|null, p99_ns: number|null, max_ns: number|null}} Stats
 * @typedef {{key: string, change: 'added'|'removed'|'changed'|'same', base: Stats|null, new: Stats|null,
 *   delta: Stats, ratio: Record<string, number|null>, significant: boolean|null, p_value: number|null,
 *   base_key: string|null, new_key: string|null}} Group
 * @typedef {{file: string, events: number, slices: number, samples: number, duration_ns: number}} RunInfo
 * @typedef {{by: string, sort: string, base: RunInfo[], new: RunInfo[], significance: string|null,
 *   groups_total: number, changes: Record<string, number>, groups: Group[]}} DiffAnswer
 * @typedef {import('../table.js').Column} Column
 */

/**
 * A signed change: `+3 ms`, `-12`; a class saying which way (slower is `up`).
 * @param {number|null} d
 * @param {boolean} time
 */
export function signed(d, time) {
  if (d === null) return '–';
  const text = time ? formatDuration(Math.abs(d)) : String(Math.round(Math.abs(d) * 10) / 10);
  if (d === 0) return '<span class="same">0</span>';
  return `<span class="${d > 0 ? 'up' : 'down'}">${d > 0 ? '+' : '−'}${esc(text)}</span>`;
}

/**
 * The change in percent: `+30.0%`; `new`/`gone` for added and removed groups.
 * @param {Group} g
 * @param {string} key a STATS key
 * @returns {number|null} for sorting: +Infinity for added, -Infinity for removed
 */
export function percentOf(g, key) {
  if (g.change === 'added') return Infinity;
  if (g.change === 'removed') return -Infinity;
  const r = g.ratio[key];
  return r === null || r === undefined ? null : (r - 1) * 100;
}

/** @param {number} p */
function showPercent(p) {
  if (p === Infinity) return '<span class="up">new</span>';
  if (p === -Infinity) return '<span class="down">gone</span>';
  const t = `${p > 0 ? '+' : p < 0 ? '−' : ''}${Math.abs(p).toFixed(1)}%`;
  return `<span class="${p > 0 ? 'up' : p < 0 ? 'down' : 'same'}">${t}</span>`;
}

/**
 * The table's columns over `rows` (the groups shown, filtered).
 * @param {Group[]} rows
 * @param {boolean} tested whether significance was tested (several runs a side)
 * @returns {Column[]}
 */
export function columns(rows, tested) {
  /** @param {'base'|'new'} side @param {keyof Stats} k */
  const v = (side, k) => (/** @type {number} */ i) => rows[i][side]?.[k] ?? null;
  const dur = (/** @type {number} */ x) => formatDuration(x);
  const count = (/** @type {number} */ x) => String(Math.round(x * 10) / 10);
  /** @type {Column[]} */
  const cols = [
    { id: 'key', label: 'group', numeric: false, value: (i) => rows[i].key },
    { id: 'change', label: 'change', numeric: false, value: (i) => rows[i].change, show: (c) => `<span class="chg-${c}">${c}</span>` },
    { id: 'count_b', label: 'count base', numeric: true, value: v('base', 'count'), show: count },
    { id: 'count_n', label: 'count new', numeric: true, value: v('new', 'count'), show: count },
    { id: 'total_b', label: 'total base', numeric: true, value: v('base', 'total_ns'), show: dur },
    { id: 'total_n', label: 'total new', numeric: true, value: v('new', 'total_ns'), show: dur },
    { id: 'total_d', label: 'Δ total', numeric: true, value: (i) => rows[i].delta.total_ns, show: (d) => signed(d, true) },
    { id: 'total_p', label: 'Δ %', numeric: true, value: (i) => percentOf(rows[i], 'total_ns'), show: showPercent },
    { id: 'self_d', label: 'Δ self', numeric: true, value: (i) => rows[i].delta.self_ns, show: (d) => signed(d, true) },
    { id: 'mean_b', label: 'mean base', numeric: true, value: v('base', 'mean_ns'), show: dur },
    { id: 'mean_n', label: 'mean new', numeric: true, value: v('new', 'mean_ns'), show: dur },
    { id: 'p95_b', label: 'p95 base', numeric: true, value: v('base', 'p95_ns'), show: dur },
    { id: 'p95_n', label: 'p95 new', numeric: true, value: v('new', 'p95_ns'), show: dur },
    { id: 'max_d', label: 'Δ max', numeric: true, value: (i) => rows[i].delta.max_ns, show: (d) => signed(d, true) },
  ];
  if (tested) {
    // A change within the run-to-run noise is shown muted.
    for (const c of cols) {
      const show = c.show;
      if ((c.id === 'total_d' || c.id === 'total_p') && show) {
        c.show = (v, i = -1) => (rows[i]?.significant === false ? `<span class="noise" title="within run-to-run noise">${show(v, i)}</span>` : show(v, i));
      }
    }
    cols.push({
      id: 'p', label: 'p', title: "Welch's t-test on the per-run totals, Holm-corrected over the groups",
      numeric: true, value: (i) => rows[i].p_value,
      show: (p) => `<span class="${p < 0.05 ? 'sig' : 'muted'}">${p < 0.001 ? '<0.001' : p.toFixed(3)}</span>`,
    });
  }
  return cols;
}

/** The groups whose key holds `filter` (case-insensitive). @param {Group[]} groups @param {string} filter */
export function filterGroups(groups, filter) {
  const f = filter.trim().toLowerCase();
  return f ? groups.filter((g) => g.key.toLowerCase().includes(f)) : groups;
}

export class DiffTable {
  /**
   * @param {HTMLElement} el
   * @param {(g: Group) => void} onPick a group was clicked
   */
  constructor(el, onPick) {
    this.el = el;
    /** @type {DiffAnswer|null} */
    this.answer = null;
    /** @type {Group[]} */
    this.rows = [];
    this.filter = '';
    this.status = document.createElement('p');
    this.status.className = 'diff-status muted';
    this.table = new TableView('diff-table', (i) => onPick(this.rows[i]));
    el.append(this.status, this.table.el);
  }

  /** @param {DiffAnswer} a */
  show(a) {
    this.answer = a;
    const c = a.changes;
    const runs = (/** @type {RunInfo[]} */ r) => (r.length === 1 ? '1 run' : `${r.length} runs`);
    this.status.textContent = `${a.groups_total} groups by ${a.by}: ${c.changed} changed, ${c.added} added, ${c.removed} removed, ${c.same} same · base ${runs(a.base)}, new ${runs(a.new)}`
      + (a.significance ? " · p: Welch's t-test, Holm-corrected over the groups (significant below 0.05)" : '');
    this.render();
  }

  /** @param {string} f */
  setFilter(f) {
    this.filter = f;
    this.render();
  }

  render() {
    if (!this.answer) return;
    // The sort column stays (TableView keeps it while the column exists).
    this.rows = filterGroups(this.answer.groups, this.filter);
    this.table.set(columns(this.rows, this.answer.significance !== null), this.rows.length);
  }
}
