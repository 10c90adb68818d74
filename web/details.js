// The details panel: what is selected, exactly: where it ran (thread, process),
// its times relative to the trace's start and absolute as written (to the ns),
// its own and thread time, args as a collapsible tree with numbers as written
// (never through a double), links to parents, children and both ends of its
// flows, copy buttons (name, args as JSON, the event) and the event's text.
import { formatDuration, formatTime, formatCount, esc } from './format.js';
import { ExactNumber, parseExact } from './exactjson.js';

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
  if (value !== null && typeof value === 'object' && !(value instanceof ExactNumber)) {
    const entries = Array.isArray(value) ? value.map((v, i) => /** @type {[string, unknown]} */ ([String(i), v])) : Object.entries(value);
    const list = document.createElement('ul');
    list.className = 'tree';
    for (const [k, v] of entries) {
      const li = document.createElement('li');
      if (v !== null && typeof v === 'object' && !(v instanceof ExactNumber)) {
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

/**
 * The args of an answer as a tree, numbers as written: from `args_text` (the
 * JSON as the trace has it) when there is one, else from `args` (where the server
 * sent integers too big for a double as strings).
 * @param {{args: unknown, args_text?: string|null}} d
 * @returns {Node}
 */
export function argsView(d) {
  if (d.args === null || d.args === undefined) return Object.assign(document.createElement('p'), { className: 'muted', textContent: 'none' });
  if (d.args_text) {
    try {
      return argsTree(parseExact(d.args_text));
    } catch {
      // Not JSON as written: the server's value.
    }
  }
  return argsTree(d.args);
}

/**
 * The Args section of an item's details.
 * @param {{args: unknown, args_text?: string|null}} d
 */
export function argsSection(d) {
  const args = document.createElement('section');
  args.className = 'args';
  args.innerHTML = '<h3>Args</h3>';
  args.append(argsView(d));
  return args;
}

/**
 * The event's JSON text as written, folded; null without one.
 * @param {string} text
 */
export function rawEvent(text) {
  if (!text) return null;
  const raw = document.createElement('details');
  raw.className = 'raw';
  raw.innerHTML = '<summary>Event as written</summary>';
  raw.append(Object.assign(document.createElement('pre'), { textContent: text }));
  return raw;
}

/**
 * Put text on the clipboard (the async API, else a selected text area).
 * @param {string} text
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = Object.assign(document.createElement('textarea'), { value: text });
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}

/** Copy buttons: what each copies, by `data-copy` key. */
const COPIES = /** @type {const} */ ([['name', 'Copy name'], ['args', 'Copy args as JSON'], ['event', 'Copy event']]);

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
    /** @type {Record<string, string>} texts of the copy buttons of the item shown */
    this.copies = {};
    el.addEventListener('click', (e) => {
      const copy = /** @type {HTMLElement} */ (e.target).closest('button[data-copy]');
      if (copy) {
        const b = /** @type {HTMLButtonElement} */ (copy);
        const text = this.copies[/** @type {string} */ (b.dataset.copy)] ?? '';
        copyText(text).then((ok) => {
          const was = b.textContent;
          b.textContent = ok ? 'Copied' : 'Cannot copy';
          setTimeout(() => (b.textContent = was), 1200);
        });
        return;
      }
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
    const end = d.ts + d.dur;
    /** @type {Array<[string, string]>} */
    const rows = [['Category', esc(d.cat || '–')]];
    if (d.thread_label) rows.push(['Thread', `${esc(d.thread_label)}${d.tid !== null && d.tid !== undefined ? ` <span class="muted">tid ${esc(String(d.tid))}</span>` : ''}`]);
    if (d.process_label) rows.push(['Process', `${esc(d.process_label)}${d.pid !== null && d.pid !== undefined ? ` <span class="muted">pid ${esc(String(d.pid))}</span>` : ''}`]);
    rows.push(
      ['Start', `${formatTime(d.rel_ts ?? d.ts - this.origin)} <span class="muted abs">${esc(d.ts_abs ?? String(d.ts))} ns</span>`],
      ['End', `${formatTime((d.rel_ts ?? d.ts - this.origin) + d.dur)} <span class="muted abs">${esc(d.end_abs ?? String(end))} ns</span>`],
      ['Duration', formatDuration(d.dur) + (d.did_not_finish ? ' <span class="warn">(did not finish: lasts to the thread\'s last end)</span>' : '')],
    );
    if (d.self !== null && d.self !== undefined) rows.push(['Self time', formatDuration(d.self)]);
    if (d.tdur !== null && d.tdur !== undefined) {
      rows.push(['Thread time', `${formatDuration(d.tdur)}${d.tts !== null && d.tts !== undefined ? ` <span class="muted">from ${formatTime(d.tts)}</span>` : ''}`]);
    }
    rows.push(['Depth', String(d.depth)]);
    if (d.async_id) rows.push(['Id', `<code>${esc(d.async_id)}</code>`]);
    if (d.overlap) rows.push(['Overlap', '<span class="warn">overlaps a sibling; drawn on an extra row</span>']);
    this.copies = { name: d.name, args: d.args_text ?? (d.args === null ? '' : JSON.stringify(d.args)), event: d.raw };
    const copies = COPIES.filter(([k]) => this.copies[k]).map(([k, label]) => `<button type="button" data-copy="${k}">${label}</button>`).join('');
    const all = kind === 'slice' ? ` <button type="button" class="select-all" data-name="${esc(d.name)}" title="Statistics of every slice with this name, per thread">Select all with this name</button>` : '';
    const head = `<h2>${esc(d.name || '(unnamed)')} <span class="muted">${kind} ${d.id}</span>${all}</h2><div class="copies">${copies}</div>`;
    this.el.innerHTML = `${head}<div class="cols"><section class="facts-col">${table(rows)}</section></div>`;
    const cols = /** @type {HTMLElement} */ (this.el.querySelector('.cols'));
    cols.append(argsSection(d));
    const links = document.createElement('section');
    links.className = 'links';
    const kids = d.children_total !== undefined && d.children_total > d.children.length ? d.children_total : d.children.length;
    links.innerHTML =
      refs('Parents', d.parents, kind) +
      refs(`Children${kids ? ` (${formatCount(kids)})` : ''}`, d.children, kind, kids) +
      flows('Flows in', d.flows_in.map((f) => f.from), this.origin, '←') +
      flows('Flows out', d.flows_out.map((f) => f.to), this.origin, '→');
    if (links.innerHTML) cols.append(links);
    const raw = rawEvent(d.raw);
    if (raw) this.el.append(raw);
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

/**
 * @param {string} title @param {Ref[]} list @param {string} kind
 * @param {number} [total] how many there are (the list may hold fewer)
 */
function refs(title, list, kind, total = list ? list.length : 0) {
  if (!list || list.length === 0) return '';
  const shown = list.slice(0, 200);
  const more = total > shown.length ? `<li class="muted">and ${formatCount(total - shown.length)} more</li>` : '';
  return `<h3>${title}</h3><ul class="reflist">${shown
    .map((r) => `<li><a href="#" data-kind="${kind}" data-id="${r.id}">${esc(r.name || '(unnamed)')}</a> <span class="muted">${formatDuration(r.dur)}</span></li>`)
    .join('')}${more}</ul>`;
}

/**
 * The far ends of flows: name (a link), thread, time.
 * @param {string} title @param {import('./types.js').FlowEnd[]} ends @param {number} origin @param {string} arrow
 */
function flows(title, ends, origin, arrow) {
  if (!ends || ends.length === 0) return '';
  return `<h3>${title}</h3><ul class="reflist">${ends
    .map((e) => `<li>${arrow} <a href="#" data-kind="${e.kind}" data-id="${e.id}">${esc(e.name || '(unnamed)')}</a>` +
      ` <span class="muted">${e.thread_label ? `${esc(e.thread_label)} · ` : ''}${formatTime(e.ts - origin)}</span></li>`)
    .join('')}</ul>`;
}
