// The details panel: what is selected, with times in sensible units, args as a
// collapsible tree, and links to parents, children and flow ends.
import { formatDuration, formatTime, esc } from './format.js';

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
    el.addEventListener('click', (e) => {
      const a = /** @type {HTMLElement} */ (e.target).closest('[data-id]');
      if (!a) return;
      e.preventDefault();
      const h = /** @type {HTMLElement} */ (a);
      this.onNavigate(/** @type {'slice'|'async'} */ (h.dataset.kind), Number(h.dataset.id));
    });
  }

  hide() {
    this.el.hidden = true;
    this.el.replaceChildren();
  }

  /** Basic facts from the track data, while details load or when there are none.
   * @param {Selection} s */
  showBasic(s) {
    this.el.hidden = false;
    /** @type {Array<[string, string]>} */
    const rows = [['Start', formatTime(s.ts - this.origin)]];
    if (s.kind === 'instant') rows.push(['Scope', s.scope === 'p' ? 'process' : s.scope === 'g' ? 'global' : 'thread']);
    else rows.push(['Duration', formatDuration(s.dur)]);
    if (s.kind === 'merged') rows.push(['Items', `${s.count} merged at this zoom: zoom in (F) to see them`]);
    this.el.innerHTML = `<h2>${esc(s.name || '(unnamed)')}</h2>${table(rows)}`;
  }

  /** @param {Details} d @param {'slice'|'async'} kind */
  show(d, kind) {
    this.el.hidden = false;
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
    const head = `<h2>${esc(d.name || '(unnamed)')} <span class="muted">${kind} ${d.id}</span></h2>`;
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

  /** @param {string} message */
  error(message) {
    this.el.hidden = false;
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
