// The Search tab: every match of the search, in a list that scrolls through all of
// them (only the rows in view are drawn, their pages fetched as they come into
// view), sorted by time or by duration with a click on the column's header. A click
// on a row goes to that match; Enter / Shift+Enter in the search box move the
// chosen row along.
import { PAGE } from './search.js';
import { esc, formatCount, formatDuration, formatTime } from './format.js';

/** @typedef {import('./search.js').Search} Search */
/** @typedef {import('./search.js').SearchRun} SearchRun */
/** @typedef {import('./types.js').SearchAnswer} SearchAnswer */

/** Height of a row, px (the list is drawn from it). */
export const ROW_H = 22;

const FIELDS = /** @type {Record<string, string>} */ ({ name: 'name', cat: 'category', id: 'id', args: 'args' });

/**
 * The rows in view of a scrolled list: [first, end) with a few spare on each side.
 * @param {number} scrollTop @param {number} height @param {number} n
 */
export function rowsInView(scrollTop, height, n) {
  const first = Math.max(0, Math.floor(scrollTop / ROW_H) - 5);
  const end = Math.min(n, Math.ceil((scrollTop + height) / ROW_H) + 5);
  return { first, end: Math.max(first, end) };
}

export class SearchList {
  /**
   * @param {HTMLElement} el the tab's panel
   * @param {Search} search
   * @param {number} origin trace start: times are shown relative to it
   * @param {(track: string) => string} where a track's label
   */
  constructor(el, search, origin, where) {
    this.el = el;
    this.search = search;
    this.origin = origin;
    this.where = where;
    el.innerHTML = '<div class="panel-head"><b class="search-title"></b><span class="search-count muted"></span></div>' +
      '<div class="search-scroll"><table class="search-list"><thead><tr>' +
      '<th data-sort="time" class="n">Time</th><th data-sort="duration" class="n">Duration</th><th>Name</th><th>Kind</th>' +
      '<th>Where</th><th>Found in</th></tr></thead><tbody></tbody></table></div>';
    this.title = /** @type {HTMLElement} */ (el.querySelector('.search-title'));
    this.count = /** @type {HTMLElement} */ (el.querySelector('.search-count'));
    this.scroll = /** @type {HTMLElement} */ (el.querySelector('.search-scroll'));
    this.body = /** @type {HTMLElement} */ (el.querySelector('tbody'));
    /** @type {Promise<void>} the latest drawing (rows fetched) */
    this.done = Promise.resolve();
    this.seq = 0;
    el.querySelector('thead')?.addEventListener('click', (e) => {
      const th = /** @type {HTMLElement} */ (e.target).closest('th[data-sort]');
      if (!th) return;
      const column = /** @type {'time'|'duration'} */ (/** @type {HTMLElement} */ (th).dataset.sort);
      const o = search.order;
      const dir = o.column === column ? (o.dir === 'asc' ? 'desc' : 'asc') : column === 'time' ? 'asc' : 'desc';
      search.sort({ column, dir });
      this.scroll.scrollTop = 0;
    });
    this.body.addEventListener('click', (e) => {
      const tr = /** @type {HTMLElement} */ (e.target).closest('tr[data-i]');
      if (tr) search.goTo(Number(/** @type {HTMLElement} */ (tr).dataset.i));
    });
    this.scroll.addEventListener('scroll', () => this.draw());
    new ResizeObserver(() => this.draw()).observe(this.scroll);
  }

  /** The search changed (matches, order, current one): redraw, the current row in view. */
  update() {
    const r = this.search.current;
    const i = this.search.index;
    if (r && i >= 0) {
      const y = i * ROW_H;
      const h = this.scroll.clientHeight - ROW_H;
      if (y < this.scroll.scrollTop || y > this.scroll.scrollTop + h) this.scroll.scrollTop = Math.max(0, y - h / 3);
    }
    return this.draw();
  }

  draw() {
    const seq = ++this.seq;
    const r = this.search.current;
    const o = this.search.order;
    for (const th of this.el.querySelectorAll('th[data-sort]')) {
      const h = /** @type {HTMLElement} */ (th);
      const on = h.dataset.sort === o.column;
      h.setAttribute('aria-sort', on ? (o.dir === 'asc' ? 'ascending' : 'descending') : 'none');
      h.textContent = `${h.dataset.sort === 'time' ? 'Time' : 'Duration'}${on ? (o.dir === 'asc' ? ' ▲' : ' ▼') : ''}`;
    }
    if (!r) {
      this.title.textContent = 'No search';
      this.count.textContent = '';
      this.body.replaceChildren();
      return (this.done = Promise.resolve());
    }
    this.title.textContent = `Matches of “${r.query}”${r.regex ? ' (regex)' : ''}`;
    this.count.textContent = r.error ? r.error
      : `${formatCount(r.total)}${r.done ? '' : '+'} in names, categories, args and ids${r.done ? '' : ' · searching…'}${r.capped ? ' · too many: the first ones kept' : ''}`;
    const { first, end } = rowsInView(this.scroll.scrollTop, this.scroll.clientHeight || 300, r.total);
    const pages = [];
    for (let k = Math.floor(first / PAGE); k * PAGE < end; k++) pages.push(r.page(k));
    this.done = Promise.all(pages).then(
      (answers) => {
        if (seq !== this.seq) return;
        this.rows(r, answers, first, end);
      },
      () => {},
    );
    return this.done;
  }

  /**
   * @param {SearchRun} r
   * @param {SearchAnswer[]} answers the pages over [first, end)
   * @param {number} first
   * @param {number} end
   */
  rows(r, answers, first, end) {
    const cur = this.search.index;
    const html = [`<tr class="pad" style="height:${first * ROW_H}px"><td colspan="6"></td></tr>`];
    for (const a of answers) {
      for (let j = 0; j < a.ts.length; j++) {
        const i = a.offset + j;
        if (i < first || i >= end) continue;
        const kind = a.kind[j];
        const where = a.track[j] ? this.where(a.track[j]) : kind === 'instant' ? 'process or global' : '';
        html.push(`<tr data-i="${i}"${i === cur ? ' class="chosen"' : ''}><td class="n">${formatTime(a.ts[j] - this.origin)}</td>` +
          `<td class="n">${kind === 'instant' ? '–' : formatDuration(a.dur[j])}</td><td class="t">${esc(a.name[j] || '(unnamed)')}</td>` +
          `<td>${esc(kind)}</td><td class="t">${esc(where)}</td><td>${esc(FIELDS[a.field[j]] ?? a.field[j])}</td></tr>`);
      }
    }
    html.push(`<tr class="pad" style="height:${Math.max(0, r.total - end) * ROW_H}px"><td colspan="6"></td></tr>`);
    this.body.innerHTML = html.join('');
  }

  /** The rows drawn, as the test hook shows them. */
  shown() {
    return Array.from(this.body.querySelectorAll('tr[data-i]'), (tr) => {
      const c = Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '');
      return { i: Number(/** @type {HTMLElement} */ (tr).dataset.i), time: c[0], dur: c[1], name: c[2], kind: c[3], where: c[4], field: c[5], chosen: tr.classList.contains('chosen') };
    });
  }
}
