// The details panel: what is selected, with times in sensible units, args as a
// collapsible tree, and links to parents, children and flow ends.
import { formatDuration, formatTime, formatCount, esc } from './format.js';

/** @typedef {import('./types.js').Details} Details */
/** @typedef {import('./types.js').Ref} Ref */
/** @typedef {import('./timeline.js').Selection} Selection */

/**
 * Build the args tree: objects and arrays fold (open for the first two levels).
 * @param {unknown} value
 * @param {number} depth
 * @returns {Node}
 */
export function argsTree(value, depth = 0) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => /** @type {[string, unknown]} */ ([String(i), v])) : Object.entries(value);
    const list = document.createElement('ul');
    list.className = 'tree';
    for (const [k, v] of entries) {
      const li = document.createElement('li');
      if (v !== null && typeof v === 'object') {
        const det = document.createElement('details');
        det.open = depth < 2;
        const sum = document.createElement('summary');
        const n = Array.isArray(v) ? `[${v.length}]` : `{${Object.keys(v).length}}`;
        sum.innerHTML = `<span class="key">${esc(k)}</span> <span class="muted">${n}</span>`;
        det.append(sum, argsTree(v, depth + 1));
        li.append(det);
      } else {
        li.innerHTML = `<span class="key">${esc(k)}</span>: ${leaf(v)}`;
      }
      list.append(li);
    }
    if (entries.length === 0) list.innerHTML = '<li class="muted">(empty)</li>';
    return list;
  }
  const span = document.createElement('span');
  span.innerHTML = leaf(value);
  return span;
}

/** @param {unknown} v */
function leaf(v) {
  if (typeof v === 'string') return `<span class="str">"${esc(v)}"</span>`;
  return `<span class="num">${esc(String(v))}</span>`;
}

export class DetailsPanel {
  /**
   * @param {HTMLElement} el
   * @param {number} origin trace start, times are shown relative to it
   * @param {(kind: 'slice'|'async', id: number) => void} onNavigate
   */
  constructor(el, origin, onNavigate) {
    this.el = el;
    this.origin = origin;
    this.onNavigate = onNavigate;
    /** @type {(name: string) => void} "Select all with this name" */
    this.onSelectAll = () => {};
    /**
     * Called when the panel has something to show: `front` when the user just
     * picked it (bring the tab to the front); content arriving later does not
     * take the front from a tab opened meanwhile.
     * @type {(front: boolean) => void}
     */
    this.onShow = () => {
      el.hidden = false;
    };
    /** Called when it has nothing to show. */
    this.onHide = () => {
      el.hidden = true;
    };
    el.addEventListener('click', (e) => {
      const all = /** @type {HTMLElement} */ (e.target).closest('button.select-all');
      if (all) {
        this.onSelectAll(/** @type {string} */ (/** @type {HTMLElement} */ (all).dataset.name));
        return;
      }
      const a = /** @type {HTMLElement} */ (e.target).closest('[data-id]');
      if (!a) return;
      e.preventDefault();
      const h = /** @type {HTMLElement} */ (a);
      this.onNavigate(/** @type {'slice'|'async'} */ (h.dataset.kind), Number(h.dataset.id));
    });
  }

  hide() {
    this.el.replaceChildren();
    this.onHide();
  }

  /** Basic facts from the track data, while details load or when there are none.
   * @param {Selection} s */
  showBasic(s) {
    this.onShow(true);
    /** @type {Array<[string, string]>} */
    const rows = [['Start', formatTime(s.ts - this.origin)]];
    if (s.kind === 'instant') rows.push(['Scope', s.scope === 'p' ? 'process' : s.scope === 'g' ? 'global' : 'thread']);
    else rows.push(['Duration', formatDuration(s.dur)]);
    if (s.kind === 'merged') rows.push(['Items', `${s.count} merged at this zoom: zoom in (F) to see them`]);
    this.el.innerHTML = `<h2>${esc(s.name || '(unnamed)')}</h2>${table(rows)}`;
  }

  /** @param {Details} d @param {'slice'|'async'} kind */
  show(d, kind) {
    this.onShow(false);
    /** @type {Array<[string, string]>} */
    const rows = [
      ['Category', esc(d.cat || '–')],
      ['Start', formatTime(d.ts - this.origin)],
      ['Duration', formatDuration(d.dur) + (d.did_not_finish ? ' <span class="warn">(did not finish)</span>' : '')],
    ];
    if (d.self !== null && d.self !== undefined) rows.push(['Self time', formatDuration(d.self)]);
    if (d.tdur !== null && d.tdur !== undefined) rows.push(['Thread time', formatDuration(d.tdur)]);
    rows.push(['Depth', String(d.depth)]);
    if (d.overlap) rows.push(['Overlap', '<span class="warn">overlaps a sibling; drawn on an extra row</span>']);
    const all = kind === 'slice' ? ` <button type="button" class="select-all" data-name="${esc(d.name)}" title="Statistics of every slice with this name, per thread">Select all with this name</button>` : '';
    const head = `<h2>${esc(d.name || '(unnamed)')} <span class="muted">${kind} ${d.id}</span>${all}</h2>`;
    this.el.innerHTML = `${head}<div class="cols"><section class="facts-col">${table(rows)}</section></div>`;
    const cols = /** @type {HTMLElement} */ (this.el.querySelector('.cols'));
    const args = document.createElement('section');
    args.className = 'args';
    args.innerHTML = '<h3>Args</h3>';
    args.append(d.args === null || d.args === undefined ? Object.assign(document.createElement('p'), { className: 'muted', textContent: 'none' }) : argsTree(d.args));
    cols.append(args);
    const links = document.createElement('section');
    links.className = 'links';
    links.innerHTML =
      refs('Parents', d.parents, kind) +
      refs('Children', d.children, kind) +
      flows('Flows in', d.flows_in.map((f) => f.from)) +
      flows('Flows out', d.flows_out.map((f) => f.to));
    if (links.innerHTML) cols.append(links);
  }

  /**
   * An object instance: its lifetime and every snapshot's fields as a tree, the
   * snapshot `open` (if any) unfolded and marked.
   * @param {import('./types.js').ObjectAnswer} o
   * @param {number|null} open
   */
  showObject(o, open) {
    this.onShow(false);
    /** @type {Array<[string, string]>} */
    const rows = [
      ['Object id', esc(o.object_id)],
      ['Category', esc(o.cat || '–')],
      ['Created', formatTime(o.start - this.origin)],
      ['Deleted', o.alive_at_end ? '<span class="muted">never (alive at the end)</span>' : formatTime(o.end - this.origin)],
      ['Lifetime', formatDuration(o.end - o.start)],
      ['Snapshots', formatCount(o.snapshots.length)],
    ];
    this.el.innerHTML = `<h2>${esc(o.name || '(unnamed)')} <span class="muted">object ${o.id}</span></h2><div class="cols"><section class="facts-col">${table(rows)}</section></div>`;
    const cols = /** @type {HTMLElement} */ (this.el.querySelector('.cols'));
    const snaps = document.createElement('section');
    snaps.className = 'args snapshots';
    snaps.innerHTML = '<h3>Snapshots</h3>';
    if (o.snapshots.length === 0) snaps.append(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'none' }));
    o.snapshots.slice(0, 200).forEach((s, i) => {
      const det = document.createElement('details');
      det.className = 'snapshot';
      det.open = open === null ? i === 0 : i === open;
      if (i === open) det.classList.add('chosen');
      const sum = document.createElement('summary');
      sum.innerHTML = `at ${formatTime(s.ts - this.origin)}`;
      det.append(sum, s.args === null || s.args === undefined ? Object.assign(document.createElement('p'), { className: 'muted', textContent: 'no fields' }) : argsTree(s.args));
      snaps.append(det);
    });
    cols.append(snaps);
  }

  /**
   * A stack frame of a CPU-profile samples track: the function, where it is, and
   * the time the item stands for.
   * @param {{name: string, location: string, ts: number, dur: number, samples: number|null, self: number|null}} f
   */
  showFrame(f) {
    this.onShow(false);
    /** @type {Array<[string, string]>} */
    const rows = [
      ['Location', f.location ? `<code>${esc(f.location)}</code>` : '<span class="muted">unknown</span>'],
      ['Start', formatTime(f.ts - this.origin)],
      ['Duration', formatDuration(f.dur)],
    ];
    if (f.samples !== null) rows.push(['Samples', formatCount(f.samples)]);
    if (f.self !== null) rows.push(['Self time', formatDuration(f.self)]);
    this.el.innerHTML = `<h2>${esc(f.name || '(anonymous)')} <span class="muted">stack frame</span></h2>${table(rows)}`;
  }

  /** @param {string} message */
  error(message) {
    this.onShow(false);
    this.el.innerHTML = `<p class="warn">${esc(message)}</p>`;
  }
}

/** @param {Array<[string, string]>} rows */
function table(rows) {
  return `<table class="facts">${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>`;
}

/** @param {string} title @param {Ref[]} list @param {string} kind */
function refs(title, list, kind) {
  if (!list || list.length === 0) return '';
  const shown = list.slice(0, 200);
  const more = list.length > shown.length ? `<li class="muted">and ${list.length - shown.length} more</li>` : '';
  return `<h3>${title}</h3><ul class="reflist">${shown
    .map((r) => `<li><a href="#" data-kind="${kind}" data-id="${r.id}">${esc(r.name || '(unnamed)')}</a> <span class="muted">${formatDuration(r.dur)}</span></li>`)
    .join('')}${more}</ul>`;
}

/** @param {string} title @param {import('./types.js').FlowEnd[]} ends */
function flows(title, ends) {
  if (!ends || ends.length === 0) return '';
  return `<h3>${title}</h3><ul class="reflist">${ends
    .map((e) => `<li><a href="#" data-kind="${e.kind}" data-id="${e.id}">${esc(e.name || '(unnamed)')}</a></li>`)
    .join('')}</ul>`;
}
