// The Range tab: statistics of the slices in a selected range (or of every slice
// with one name), grouped by name, thread or category, in a sortable table; a row
// click highlights that group's slices on the timeline. Counter series in the
// range get a table of their own.
import { TableView } from './table.js';
import { formatCount, formatDuration, formatValue, esc } from './format.js';
import { tableText, copyText, download, fileName } from './export.js';

/** @typedef {import('./api.js').Api} Api */
/** @typedef {import('./api.js').RangeQuery} RangeQuery */
/** @typedef {import('./types.js').RangeAnswer} RangeAnswer */
/** @typedef {import('./types.js').RangeSlicesAnswer} RangeSlicesAnswer */
/** @typedef {import('./table.js').Column} Column */

/** "1 slice", "2 slices". @param {number} n @param {string} word */
export function plural(n, word) {
  return `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;
}

/** Copy and CSV buttons of a table. @param {string} what */
const EXPORT_BUTTONS = (what) =>
  `<span class="export"><button type="button" data-export="${what}:copy" title="Copy the table (tab-separated, times in ns) to paste into a spreadsheet">Copy</button>` +
  `<button type="button" data-export="${what}:csv" title="Save the table as a CSV file (times in ns)">CSV</button></span>`;

/** Slices highlighted at most per group (the server's default). */
export const HIGHLIGHT_LIMIT = 1000;

/**
 * Columns of the groups table.
 * @param {RangeAnswer} r
 * @returns {Column[]}
 */
export function groupColumns(r) {
  const g = r.groups;
  const dur = (/** @type {number} */ v) => formatDuration(v);
  /** @param {string} id @param {string} label @param {number[]} col @param {string} [title] @returns {Column} */
  const time = (id, label, col, title) => ({ id, label, title, numeric: true, unit: 'ns', value: (i) => col[i], show: dur });
  const keyLabel = r.by === 'thread' ? 'Thread' : r.by === 'category' ? 'Category' : 'Name';
  return [
    { id: 'key', label: keyLabel, numeric: false, value: (i) => g.key[i], show: (v) => (v === '' ? '<span class="muted">(none)</span>' : esc(v)) },
    { id: 'count', label: 'Count', numeric: true, value: (i) => g.count[i], show: formatCount },
    time('total', 'Total', g.total, 'Sum of the full durations'),
    time('self', 'Self', g.self, 'Sum of self times (minus children)'),
    time('in_range', 'In range', g.in_range, 'Sum of the durations clipped to the range'),
    { id: 'thread_total', label: 'Thread time', title: 'Sum of thread (CPU) durations where recorded', numeric: true, unit: 'ns',
      value: (i) => (g.thread_total[i] < 0 ? null : g.thread_total[i]), show: dur },
    time('avg', 'Avg', g.avg),
    time('min', 'Min', g.min),
    time('max', 'Max', g.max),
    { id: 'did_not_finish', label: 'Did not finish', numeric: true, value: (i) => g.did_not_finish[i], show: formatCount },
  ];
}

/**
 * Columns of the counters table. A counter is named as its track is (its name,
 * plus the series key when it has several).
 * @param {RangeAnswer} r
 * @param {(track: string) => string|null} [trackName]
 * @returns {Column[]}
 */
export function counterColumns(r, trackName = () => null) {
  const c = r.counters;
  /** @param {string} id @param {string} label @param {number[]} col @returns {Column} */
  const num = (id, label, col) => ({ id, label, numeric: true, value: (i) => col[i], show: formatValue });
  return [
    { id: 'name', label: 'Counter', numeric: false, value: (i) => trackName(c.track[i]) ?? c.name[i] },
    { id: 'count', label: 'Samples', numeric: true, value: (i) => c.count[i], show: formatCount },
    num('min', 'Min', c.min), num('max', 'Max', c.max), num('avg', 'Avg', c.avg),
    num('first', 'First', c.first), num('last', 'Last', c.last), num('delta', 'Delta', c.delta),
  ];
}

export class RangePanel {
  /**
   * @param {HTMLElement} el
   * @param {Api} api
   * @param {number} origin trace start: times are shown relative to it
   * @param {(h: RangeSlicesAnswer|null, label: string) => void} onHighlight
   * @param {(t0: number, t1: number) => void} onZoom show a time span
   * @param {(track: string) => string|null} trackName a track's name in the summary
   */
  constructor(el, api, origin, onHighlight, onZoom, trackName) {
    this.trackName = trackName;
    this.el = el;
    this.api = api;
    this.origin = origin;
    this.onHighlight = onHighlight;
    /** @type {RangeQuery|null} */
    this.query = null;
    /** @type {RangeAnswer|null} */
    this.answer = null;
    this.title = '';
    this.seq = 0;
    /** @type {Promise<void>} the latest fetch, settled when its table is shown */
    this.done = Promise.resolve();
    el.innerHTML =
      '<div class="panel-head"><b class="range-title"></b><span class="range-facts muted"></span>' +
      '<label>Group by <select class="range-by"><option value="name">name</option><option value="thread">thread</option>' +
      '<option value="category">category</option></select></label><span class="grow"></span>' +
      '<span class="range-hl muted" aria-live="polite"></span><button type="button" class="range-zoom" hidden>Zoom to them</button>' +
      EXPORT_BUTTONS('groups') + '</div>' +
      '<p class="range-status muted"></p><div class="range-groups"></div>' +
      `<h3 class="range-counters-head" hidden>Counters ${EXPORT_BUTTONS('counters')}</h3><div class="range-counters"></div>`;
    const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (el.querySelector(s));
    this.by = /** @type {HTMLSelectElement} */ (q('.range-by'));
    this.status = q('.range-status');
    this.hl = q('.range-hl');
    this.zoom = /** @type {HTMLButtonElement} */ (q('.range-zoom'));
    this.groups = new TableView('range-table', (i) => this.highlight(i));
    this.counters = new TableView('counter-table');
    q('.range-groups').append(this.groups.el);
    q('.range-counters').append(this.counters.el);
    this.by.addEventListener('change', () => {
      if (this.query) this.open({ ...this.query, by: /** @type {any} */ (this.by.value) }, this.title);
    });
    /** @type {{t0: number, t1: number}|null} span of the highlighted slices */
    this.span = null;
    this.zoom.addEventListener('click', () => this.span && onZoom(this.span.t0, this.span.t1));
    el.addEventListener('click', (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest('button[data-export]');
      if (!b) return;
      const [what, how] = /** @type {string} */ (/** @type {HTMLElement} */ (b).dataset.export).split(':');
      this.exportTable(/** @type {'groups'|'counters'} */ (what), /** @type {'copy'|'csv'} */ (how)).then(
        (msg) => (this.hl.textContent = msg),
        (err) => (this.hl.textContent = `Cannot export: ${err.message}`),
      );
    });
  }

  /**
   * Export a table in its sort order, every row (not only those drawn), with raw
   * values: to the clipboard as tab-separated text, or as a CSV file.
   * @param {'groups'|'counters'} what
   * @param {'copy'|'csv'} how
   * @returns {Promise<string>} what was done
   */
  async exportTable(what, how) {
    const table = what === 'groups' ? this.groups : this.counters;
    const q = this.query;
    const rows = table.sortedRows();
    if (how === 'copy') {
      await copyText(tableText(table.columns, rows, 'tsv'));
      return `Copied ${plural(rows.length, 'row')}`;
    }
    const name = q ? fileName('range', q.name ?? '', Math.floor(q.t0), Math.ceil(q.t1), what === 'groups' ? `by-${q.by}` : 'counters') : 'range';
    download(`${name}.csv`, tableText(table.columns, rows, 'csv'));
    return `Saved ${name}.csv (${plural(rows.length, 'row')})`;
  }

  /**
   * Fetch and show the statistics of a range.
   * @param {RangeQuery} query
   * @param {string} title
   */
  open(query, title) {
    const seq = ++this.seq;
    this.query = query;
    this.title = title;
    this.by.value = query.by;
    this.setHighlight(null);
    const span = `${formatDuration(query.t0 - this.origin)} – ${formatDuration(query.t1 - this.origin)}`;
    /** @type {HTMLElement} */ (this.el.querySelector('.range-title')).textContent = title;
    /** @type {HTMLElement} */ (this.el.querySelector('.range-facts')).textContent = query.name === null ? span : '';
    this.status.textContent = 'Loading…';
    if (query.tracks && query.tracks.length === 0) {
      // Only async or object tracks under the drag: they have no range statistics.
      this.answer = null;
      this.groups.set([], 0);
      this.counters.set([], 0);
      /** @type {HTMLElement} */ (this.el.querySelector('.range-counters-head')).hidden = true;
      this.status.textContent = 'No thread slices or counters under the selection.';
      return (this.done = Promise.resolve());
    }
    this.done = this.api.range(query).then(
      (r) => {
        if (seq !== this.seq) return;
        this.answer = r;
        this.status.textContent = r.slices === 0
          ? 'No slices in this range.'
          : `${plural(r.slices, 'slice')} in ${plural(r.groups.key.length, 'group')}. Click a row to highlight its slices; click a header to sort.`;
        this.groups.set(groupColumns(r), r.groups.key.length);
        const nc = r.counters.track.length;
        this.counters.set(counterColumns(r, this.trackName), nc);
        /** @type {HTMLElement} */ (this.el.querySelector('.range-counters-head')).hidden = nc === 0;
      },
      (e) => {
        if (seq === this.seq) this.status.textContent = `Cannot compute the range: ${e.message}`;
      },
    );
    return this.done;
  }

  /** Highlight the slices of group row `i`. @param {number} i */
  async highlight(i) {
    const r = this.answer;
    const q = this.query;
    if (!r || !q) return;
    const key = r.by === 'thread' ? String(r.groups.thread[i]) : r.groups.key[i];
    const label = r.groups.key[i];
    const seq = this.seq;
    this.hl.textContent = 'Loading…';
    try {
      const s = await this.api.rangeSlices({ ...q, by: r.by }, key, HIGHLIGHT_LIMIT);
      if (seq !== this.seq) return;
      this.setHighlight(s, label);
    } catch (e) {
      if (seq === this.seq) this.hl.textContent = /** @type {Error} */ (e).message;
    }
  }

  /** @param {RangeSlicesAnswer|null} s @param {string} [label] */
  setHighlight(s, label = '') {
    this.onHighlight(s, label);
    this.zoom.hidden = !s || s.id.length === 0;
    this.span = null;
    if (!s) {
      this.hl.textContent = '';
      return;
    }
    const shown = s.id.length;
    this.hl.textContent = `${formatCount(shown)} highlighted${s.total > shown ? ` (first ${formatCount(shown)} of ${formatCount(s.total)})` : ''}`;
    if (shown) {
      let t0 = Infinity;
      let t1 = -Infinity;
      for (let k = 0; k < shown; k++) {
        t0 = Math.min(t0, s.ts[k]);
        t1 = Math.max(t1, s.ts[k] + s.dur[k]);
      }
      this.span = { t0, t1 };
    }
  }

  clear() {
    this.seq++;
    this.query = null;
    this.answer = null;
    this.setHighlight(null);
  }
}
