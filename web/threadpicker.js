// The thread picker of the aggregate views: a button that says which threads are
// chosen and opens a list to choose them (a filter box, a checkbox per thread,
// "all", and "only" beside each thread to pick just it).
import { esc } from './format.js';

/** @typedef {{id: number, label: string, process: string}} ThreadChoice */

/**
 * What the button says for a choice.
 * @param {ThreadChoice[]} all the threads offered
 * @param {number[]|null} chosen null: all of them
 */
export function pickerLabel(all, chosen) {
  if (chosen === null || chosen.length === all.length) return `All ${all.length === 1 ? 'thread' : `${all.length} threads`}`;
  if (chosen.length === 0) return 'No thread';
  if (chosen.length === 1) {
    const t = all.find((x) => x.id === chosen[0]);
    return t ? `${t.label} · ${t.process}` : '1 thread';
  }
  return `${chosen.length} of ${all.length} threads`;
}

/**
 * The threads whose label or process matches a filter text (case-insensitive).
 * @param {ThreadChoice[]} all
 * @param {string} text
 */
export function filterThreads(all, text) {
  const q = text.trim().toLowerCase();
  if (!q) return all;
  return all.filter((t) => t.label.toLowerCase().includes(q) || t.process.toLowerCase().includes(q));
}

export class ThreadPicker {
  /**
   * @param {(chosen: number[]|null) => void} onChange null: all threads
   */
  constructor(onChange) {
    this.onChange = onChange;
    /** @type {ThreadChoice[]} */
    this.all = [];
    /** @type {number[]|null} */
    this.chosen = null;
    this.el = document.createElement('span');
    this.el.className = 'thread-picker';
    this.button = document.createElement('button');
    this.button.type = 'button';
    this.button.className = 'picker-button';
    this.button.title = 'Threads the views are made of';
    this.popup = document.createElement('div');
    this.popup.className = 'popup picker-popup';
    this.popup.hidden = true;
    this.popup.innerHTML = '<input type="search" class="picker-filter" placeholder="Filter threads" aria-label="Filter threads">' +
      '<div class="picker-actions"><button type="button" data-act="all">All</button><button type="button" data-act="none">None</button></div>' +
      '<ul class="picker-list"></ul>';
    this.el.append(this.button, this.popup);
    this.filter = /** @type {HTMLInputElement} */ (this.popup.querySelector('.picker-filter'));
    this.list = /** @type {HTMLElement} */ (this.popup.querySelector('.picker-list'));
    this.button.addEventListener('click', () => this.toggle());
    this.filter.addEventListener('input', () => this.renderList());
    this.popup.addEventListener('click', (e) => {
      const t = /** @type {HTMLElement} */ (e.target);
      const act = t.closest('[data-act]');
      if (act) {
        const a = /** @type {HTMLElement} */ (act).dataset.act;
        if (a === 'all') this.choose(null);
        else if (a === 'none') this.choose([]);
        else if (a === 'only') this.choose([Number(/** @type {HTMLElement} */ (act).dataset.id)]);
      }
    });
    this.popup.addEventListener('change', (e) => {
      const box = /** @type {HTMLInputElement} */ (e.target);
      if (box.type !== 'checkbox') return;
      const id = Number(box.dataset.id);
      const now = new Set(this.chosen ?? this.all.map((t) => t.id));
      if (box.checked) now.add(id);
      else now.delete(id);
      this.choose(now.size === this.all.length ? null : this.all.map((t) => t.id).filter((x) => now.has(x)));
    });
    document.addEventListener('pointerdown', (e) => {
      if (!this.popup.hidden && !this.el.contains(/** @type {Node} */ (e.target))) this.popup.hidden = true;
    });
  }

  /** The threads offered (choice reset to all). @param {ThreadChoice[]} all */
  offer(all) {
    this.all = all;
    this.chosen = null;
    this.render();
  }

  /** @param {number[]|null} chosen */
  choose(chosen) {
    this.chosen = chosen;
    this.render();
    this.onChange(chosen);
  }

  toggle() {
    this.popup.hidden = !this.popup.hidden;
    if (!this.popup.hidden) {
      this.renderList();
      this.filter.focus();
    }
  }

  render() {
    this.button.textContent = `${pickerLabel(this.all, this.chosen)} ▾`;
    this.el.hidden = this.all.length < 2;
    if (!this.popup.hidden) this.renderList();
  }

  renderList() {
    const on = new Set(this.chosen ?? this.all.map((t) => t.id));
    this.list.innerHTML = filterThreads(this.all, this.filter.value)
      .map((t) => `<li><label><input type="checkbox" data-id="${t.id}"${on.has(t.id) ? ' checked' : ''}> ${esc(t.label)}` +
        ` <span class="muted">${esc(t.process)}</span></label> <button type="button" class="only" data-act="only" data-id="${t.id}">only</button></li>`)
      .join('');
  }
}
