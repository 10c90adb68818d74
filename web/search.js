// Search: highlight matching names in the timeline at once (from tile strings), ask
// the server for the matches in time order, and step through them.
import { formatCount } from './format.js';

/** @typedef {import('./types.js').SearchAnswer} SearchAnswer */
/** @typedef {import('./api.js').Api} Api */

/**
 * @typedef {{kind: string, id: number, track: string, row: number, ts: number, dur: number, name: string}} Match
 */

export class Search {
  /**
   * @param {HTMLInputElement} input
   * @param {HTMLElement} status
   * @param {HTMLButtonElement} prev
   * @param {HTMLButtonElement} next
   * @param {Api} api
   * @param {(hl: {query: string, regex: RegExp|null}|null) => void} onHighlight
   * @param {(m: Match) => void} onGo
   */
  constructor(input, status, prev, next, api, onHighlight, onGo) {
    this.input = input;
    this.status = status;
    this.api = api;
    this.onHighlight = onHighlight;
    this.onGo = onGo;
    /** @type {SearchAnswer|null} */
    this.result = null;
    this.index = -1;
    /** @type {string|null} the query last run */
    this.query = null;
    /** @type {AbortController|null} */
    this.ctrl = null;
    /** @type {Promise<void>} */
    this.done = Promise.resolve();
    let timer = 0;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => this.run(), 150);
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        clearTimeout(timer);
        this.step(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        input.blur();
      }
    });
    prev.addEventListener('click', () => this.step(-1));
    next.addEventListener('click', () => this.step(1));
  }

  focus() {
    this.input.focus();
    this.input.select();
  }

  /** Run the query in the box (once per distinct query). */
  run() {
    const q = this.input.value;
    if (q === this.query) return this.done;
    this.query = q;
    if (this.ctrl) this.ctrl.abort();
    this.result = null;
    this.index = -1;
    if (q === '') {
      this.status.textContent = '';
      this.onHighlight(null);
      return (this.done = Promise.resolve());
    }
    this.onHighlight({ query: q.toLowerCase(), regex: null });
    const ctrl = (this.ctrl = new AbortController());
    this.status.textContent = '…';
    this.done = this.api.search(q, false, ctrl.signal).then(
      (r) => {
        this.result = r;
        this.status.textContent = r.total === 0 ? 'no match' : `${formatCount(r.total)} found`;
      },
      (e) => {
        if (e.name !== 'AbortError') this.status.textContent = e.message;
      },
    );
    return this.done;
  }

  /** Go to the next (+1) or previous (-1) match. @param {number} dir */
  async step(dir) {
    await this.run();
    const r = this.result;
    if (!r || r.ts.length === 0) return;
    const n = r.ts.length;
    this.index = this.index < 0 ? (dir > 0 ? 0 : n - 1) : (this.index + dir + n) % n;
    const i = this.index;
    this.status.textContent = `${formatCount(i + 1)} / ${formatCount(r.total)}`;
    this.onGo({ kind: r.kind[i], id: r.id[i], track: r.track[i], row: r.row[i], ts: r.ts[i], dur: r.dur[i], name: r.name[i] });
  }

  clear() {
    this.input.value = '';
    this.run();
  }
}
