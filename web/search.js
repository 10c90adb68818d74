// Search: names, categories, arg values and ids, by substring or regex. Matching
// names are highlighted on the timeline at once (from tile strings); the server
// finds every match in the background (docs/api.md, `/api/search`) and hands them
// out in pages, so Enter / Shift+Enter walk through all of them, in time order or
// by duration, and the results list (searchlist.js) scrolls through them.
import { formatCount } from './format.js';

/** @typedef {import('./types.js').SearchAnswer} SearchAnswer */
/** @typedef {import('./api.js').Api} Api */

/**
 * @typedef {{kind: string, id: number, track: string, row: number, ts: number, dur: number,
 *   name: string, field: string}} Match
 * @typedef {{column: 'time'|'duration', dir: 'asc'|'desc'}} SearchOrder
 */

/** Matches per page asked of the server. */
export const PAGE = 200;

/**
 * The time window to show an instant a search went to: centred on it, no wider
 * than now and at most 1/200 of the trace (at least 10 µs), so it stands apart
 * from its neighbours.
 * @param {{t0: number, t1: number}} view
 * @param {number} ts
 * @param {number} traceSpan
 */
export function instantWindow(view, ts, traceSpan) {
  const span = Math.min(view.t1 - view.t0, Math.max(10_000, traceSpan / 200));
  return { t0: ts - span / 2, t1: ts + span / 2 };
}

/**
 * The next index when stepping `dir` from `i` through `n` matches: wraps around
 * only when every match is known (`done`); -1 from nothing.
 * @param {number} i current index, -1 for none
 * @param {number} dir +1 or -1
 * @param {number} n matches known
 * @param {boolean} done
 */
export function stepIndex(i, dir, n, done) {
  if (n === 0) return -1;
  if (i < 0) return dir > 0 ? 0 : done ? n - 1 : 0;
  const j = i + dir;
  if (j < 0) return done ? n - 1 : 0;
  if (j >= n) return done ? 0 : i + 1;
  return j;
}

/** A search and its pages, in one order. */
export class SearchRun {
  /**
   * @param {Api} api
   * @param {string} query
   * @param {boolean} regex
   * @param {SearchOrder} order
   */
  constructor(api, query, regex, order) {
    this.api = api;
    this.query = query;
    this.regex = regex;
    this.order = order;
    /** Matches found so far, and whether that is all of them. */
    this.total = 0;
    this.done = false;
    this.capped = false;
    /** @type {string|null} */
    this.error = null;
    /** @type {Map<number, Promise<SearchAnswer>>} pages by number */
    this.pages = new Map();
    this.ctrl = new AbortController();
    /** Called when the count changes. */
    this.onCount = () => {};
  }

  /** @param {SearchAnswer} a */
  learn(a) {
    const grew = a.total !== this.total || a.done !== this.done;
    this.total = a.total;
    this.done = a.done;
    this.capped = a.capped;
    if (grew) this.onCount();
  }

  /** Page `k` (fetched once; a page beyond the matches found waits for them). @param {number} k */
  page(k) {
    let p = this.pages.get(k);
    if (!p) {
      const q = { q: this.query, regex: this.regex, offset: k * PAGE, limit: PAGE, sort: this.order.column, order: this.order.dir };
      p = this.api.search(q, this.ctrl.signal).then((a) => {
        this.learn(a);
        // A page cut short by a search still running is asked again next time.
        if (a.ts.length < PAGE && !a.done) this.pages.delete(k);
        return a;
      });
      p.catch(() => this.pages.delete(k));
      this.pages.set(k, p);
    }
    return p;
  }

  /** Match `i`, or null past the end. @param {number} i @returns {Promise<Match|null>} */
  async at(i) {
    const a = await this.page(Math.floor(i / PAGE));
    const j = i - a.offset;
    if (j < 0 || j >= a.ts.length) return null;
    return { kind: a.kind[j], id: a.id[j], track: a.track[j], row: a.row[j], ts: a.ts[j], dur: a.dur[j], name: a.name[j], field: a.field[j] };
  }

  /** Resolves when every match is found (asking the server until it says so). */
  async finish() {
    while (!this.done && !this.ctrl.signal.aborted) {
      const a = await this.api.search({ q: this.query, regex: this.regex, offset: 0, limit: 1, until: 'done', wait: 2000 }, this.ctrl.signal);
      this.learn(a);
    }
  }

  stop() {
    this.ctrl.abort();
  }
}

export class Search {
  /**
   * @param {{input: HTMLInputElement, status: HTMLElement, prev: HTMLButtonElement, next: HTMLButtonElement,
   *   regex: HTMLInputElement, list: HTMLButtonElement}} el
   * @param {Api} api
   * @param {(hl: {query: string, regex: RegExp|null}|null) => void} onHighlight
   * @param {(m: Match) => void} onGo
   */
  constructor(el, api, onHighlight, onGo) {
    this.input = el.input;
    this.status = el.status;
    this.regexBox = el.regex;
    this.api = api;
    this.onHighlight = onHighlight;
    this.onGo = onGo;
    /** @type {SearchRun|null} */
    this.run_ = null;
    this.index = -1;
    /** @type {SearchOrder} */
    this.order = { column: 'time', dir: 'asc' };
    /** @type {string|null} the query last run, with its regex flag */
    this.key = null;
    /** @type {Promise<void>} the latest search's first page */
    this.done = Promise.resolve();
    /** Called when the matches, the order or the current one change (the results list). */
    this.onChange = () => {};
    /** Called when the user asks for the list of results. */
    this.onList = () => {};
    let timer = 0;
    const later = () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => this.run(), 250);
    };
    this.input.addEventListener('input', later);
    this.regexBox.addEventListener('change', () => this.run());
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        clearTimeout(timer);
        this.step(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        this.input.blur();
      }
    });
    el.prev.addEventListener('click', () => this.step(-1));
    el.next.addEventListener('click', () => this.step(1));
    el.list.addEventListener('click', () => {
      this.run();
      this.onList();
    });
  }

  get current() {
    return this.run_;
  }

  focus() {
    this.input.focus();
    this.input.select();
  }

  /** A highlight for the timeline's names. @param {string} q @param {boolean} regex */
  static highlight(q, regex) {
    if (!regex) return { query: q.toLowerCase(), regex: null };
    try {
      return { query: q, regex: new RegExp(q, 'i') };
    } catch {
      return null;
    }
  }

  /** Run the query in the box (once per distinct query and order). @param {boolean} [force] */
  run(force = false) {
    const q = this.input.value;
    const regex = this.regexBox.checked;
    const key = `${regex ? 1 : 0}${this.order.column}${this.order.dir}:${q}`;
    if (key === this.key && !force) return this.done;
    this.key = key;
    if (this.run_) this.run_.stop();
    this.run_ = null;
    this.index = -1;
    if (q === '') {
      this.status.textContent = '';
      this.onHighlight(null);
      this.onChange();
      return (this.done = Promise.resolve());
    }
    this.onHighlight(Search.highlight(q, regex));
    const r = new SearchRun(this.api, q, regex, this.order);
    this.run_ = r;
    r.onCount = () => {
      if (this.run_ === r) {
        this.showStatus();
        this.onChange();
      }
    };
    this.status.textContent = '…';
    this.done = r.page(0).then(
      () => {
        if (this.run_ !== r) return;
        this.showStatus();
        this.onChange();
        r.finish().catch(() => {});
      },
      (e) => {
        if (e.name === 'AbortError' || this.run_ !== r) return;
        r.error = e.message;
        this.status.textContent = e.message;
        this.onChange();
      },
    );
    return this.done;
  }

  showStatus() {
    const r = this.run_;
    if (!r) return;
    const more = r.done ? '' : '+';
    const n = `${formatCount(r.total)}${more}`;
    if (r.total === 0) this.status.textContent = r.done ? 'no match' : 'searching…';
    else if (this.index >= 0) this.status.textContent = `${formatCount(this.index + 1)} / ${n}`;
    else this.status.textContent = `${n} found`;
  }

  /** Sort the matches (the walk restarts from the first). @param {SearchOrder} order */
  sort(order) {
    this.order = order;
    return this.run();
  }

  /** Go to the next (+1) or previous (-1) match. @param {number} dir */
  async step(dir) {
    await this.run();
    const r = this.run_;
    if (!r) return;
    // Backwards from the first match is the last one: wait until it is known.
    if (dir < 0 && this.index <= 0 && !r.done) await r.finish();
    if (r.total === 0 || this.run_ !== r) return;
    return this.goTo(stepIndex(this.index, dir, r.total, r.done));
  }

  /** Go to match `i` of the current order. @param {number} i */
  async goTo(i) {
    const r = this.run_;
    if (!r || i < 0) return;
    const m = await r.at(i);
    if (!m || this.run_ !== r) return;
    this.index = i;
    this.showStatus();
    this.onChange();
    this.onGo(m);
  }

  clear() {
    this.input.value = '';
    this.run();
  }
}
