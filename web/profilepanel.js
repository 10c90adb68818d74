// The Profile tab: where the time went in the selected range (or the whole
// trace), from thread slices (stacks by nesting) or CPU samples, for all threads
// or those picked: a top-down call tree, a bottom-up tree (heaviest functions
// first, expanding to their callers), a left-heavy flame graph of the top-down
// tree, and a sandwich view (a function's callers and callees). A search box
// keeps the tree rows that match (with their ancestors and callees) and makes the
// flame graph fade the rest.
import { subtreeEnds, visibleNodes, allExpandable, defaultExpanded, formatLocation, percent, str } from './calltree.js';
import { FlameChart, download } from './flamechart.js';
import { tableText, copyText, fileName } from './export.js';
import { treeTable, functionsTable } from './profileexport.js';
import { SandwichView } from './sandwich.js';
import { ThreadPicker } from './threadpicker.js';
import { formatCount, formatDuration, esc } from './format.js';

/** @typedef {import('./api.js').Api} Api */
/** @typedef {import('./types.js').ProfileAnswer} ProfileAnswer */
/** @typedef {import('./types.js').FunctionsAnswer} FunctionsAnswer */
/** @typedef {'top-down'|'bottom-up'|'flame'|'sandwich'} ProfileView */
/** @typedef {'samples'|'slices'} Source */
/**
 * What the tab is about: a time range (null: the whole trace) and the threads
 * under it (null: every thread).
 * @typedef {{t0: number|null, t1: number|null, threads: number[]|null, label: string}} ProfileScope
 */
/** @typedef {{answer: ProfileAnswer, end: Int32Array, expanded: Set<number>}} Tree */
/** @typedef {import('./threadpicker.js').ThreadChoice} ThreadChoice */

/** Rows of a tree drawn at most (the rest is summarised). */
export const MAX_ROWS = 3000;

const LABELS = { samples: 'CPU samples', slices: 'Slices' };

/**
 * A name matcher for the search box: a case-insensitive substring, or a regex
 * (null when the text is empty or the regex is invalid).
 * @param {string} text
 * @param {boolean} regex
 * @returns {((name: string) => boolean)|null}
 */
export function nameMatcher(text, regex) {
  if (!text) return null;
  if (regex) {
    try {
      const re = new RegExp(text, 'i');
      return (s) => re.test(s);
    } catch {
      return null;
    }
  }
  const q = text.toLowerCase();
  return (s) => s.toLowerCase().includes(q);
}

export class ProfilePanel {
  /**
   * @param {HTMLElement} el
   * @param {Api} api
   * @param {(html: string|null, x: number, y: number) => void} onHover
   * @param {{samples: ThreadChoice[], slices: ThreadChoice[]}} threads the threads with data of each source
   */
  constructor(el, api, onHover, threads = { samples: [], slices: [] }) {
    this.el = el;
    this.api = api;
    this.threadsOf = threads;
    /** @type {Source[]} sources the trace has */
    this.sources = /** @type {Source[]} */ (['samples', 'slices'].filter((s) => threads[/** @type {Source} */ (s)].length > 0));
    /** @type {Source} */
    this.source = this.sources[0] ?? 'samples';
    /** @type {ProfileScope|null} */
    this.scope = null;
    /** @type {ProfileView} */
    this.view = 'bottom-up';
    /** @type {number[]|null} threads picked (null: all of the scope's) */
    this.picked = null;
    this.filter = '';
    this.regex = false;
    /** @type {Map<string, Promise<any>>} answers of the current scope by question */
    this.cache = new Map();
    /** @type {Tree|null} the tree on screen */
    this.tree = null;
    this.seq = 0;
    /** The scope changed since the last rendering. */
    this.stale = false;
    /** @type {Promise<void>} the latest rendering */
    this.done = Promise.resolve();
    el.innerHTML =
      '<div class="panel-head"><b class="profile-title"></b><span class="profile-facts muted"></span>' +
      '<span class="seg source" role="group" aria-label="Made of"></span>' +
      '<span class="seg views" role="group" aria-label="View"><button type="button" data-view="top-down">Top-down</button>' +
      '<button type="button" data-view="bottom-up">Bottom-up</button><button type="button" data-view="flame">Flame graph</button>' +
      '<button type="button" data-view="sandwich">Sandwich</button></span>' +
      '<span class="picker-slot"></span>' +
      '<span class="profile-find"><input type="search" class="profile-filter" placeholder="Find function" aria-label="Find function" spellcheck="false">' +
      '<label class="toggle" title="Regular expression"><input type="checkbox" class="profile-regex"> .*</label></span>' +
      '<button type="button" class="expand-all">Expand all</button><button type="button" class="collapse-all">Collapse all</button>' +
      '<button type="button" class="flame-reset" hidden>Reset zoom</button>' +
      '<button type="button" class="export-svg" hidden title="Download the flame graph as an SVG file">Export SVG</button>' +
      '<button type="button" class="export-copy" title="Copy every row as tab-separated text (times in ns)">Copy table</button>' +
      '<button type="button" class="export-csv" title="Download every row as CSV (times in ns)">Export CSV</button></div>' +
      '<p class="profile-status muted"></p><div class="profile-body"></div>';
    const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (el.querySelector(s));
    this.status = q('.profile-status');
    this.body = q('.profile-body');
    this.flame = new FlameChart(onHover);
    this.flame.onZoom = () => this.showButtons();
    this.sandwich = new SandwichView((fn) => this.ask('sandwich', fn), onHover);
    this.picker = new ThreadPicker((chosen) => {
      this.picked = chosen;
      this.render();
    });
    q('.picker-slot').append(this.picker.el);
    const src = q('.source');
    src.innerHTML = this.sources.map((s) => `<button type="button" data-source="${s}">${LABELS[s]}</button>`).join('');
    src.hidden = this.sources.length < 2;
    src.addEventListener('click', (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest('button[data-source]');
      if (b) this.setSource(/** @type {Source} */ (/** @type {HTMLElement} */ (b).dataset.source));
    });
    q('.views').addEventListener('click', (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest('button[data-view]');
      if (b) this.setView(/** @type {ProfileView} */ (/** @type {HTMLElement} */ (b).dataset.view));
    });
    const find = /** @type {HTMLInputElement} */ (q('.profile-filter'));
    const regex = /** @type {HTMLInputElement} */ (q('.profile-regex'));
    let timer = 0;
    const refind = () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => this.setFilter(find.value, regex.checked), 200);
    };
    find.addEventListener('input', refind);
    regex.addEventListener('change', refind);
    find.addEventListener('keydown', (e) => e.key === 'Enter' && (clearTimeout(timer), this.setFilter(find.value, regex.checked)));
    q('.expand-all').addEventListener('click', () => this.tree && this.expand(allExpandable(this.tree.end)));
    q('.collapse-all').addEventListener('click', () => this.tree && this.expand(new Set()));
    q('.flame-reset').addEventListener('click', () => this.flame.zoomTo(-1));
    q('.export-svg').addEventListener('click', () => this.exportSvg());
    for (const how of /** @type {const} */ (['copy', 'csv'])) {
      q(`.export-${how}`).addEventListener('click', () => {
        this.exportTable(how).then(
          (msg) => (this.status.textContent = msg),
          (err) => (this.status.textContent = `Cannot export: ${err.message}`),
        );
      });
    }
    this.body.addEventListener('click', (e) => {
      const tr = /** @type {HTMLElement} */ (e.target).closest('tr[data-node]');
      const t = this.tree;
      if (!tr || !t) return;
      const i = Number(/** @type {HTMLElement} */ (tr).dataset.node);
      const s = new Set(t.expanded);
      if (s.has(i)) s.delete(i);
      else if (t.end[i] > i + 1) s.add(i);
      this.expand(s);
    });
    new ResizeObserver(() => this.redraw()).observe(this.body);
  }

  /** Show a new scope (fetched when the tab is visible). @param {ProfileScope} scope */
  open(scope) {
    this.scope = scope;
    this.cache = new Map();
    this.stale = true;
    /** @type {HTMLElement} */ (this.el.querySelector('.profile-title')).textContent = scope.label;
    this.offerThreads();
    return this.ensure();
  }

  /** The threads of the scope that have data of the source. */
  offerThreads() {
    const s = this.scope;
    const all = this.threadsOf[this.source];
    this.picker.offer(s && s.threads ? all.filter((t) => /** @type {number[]} */ (s.threads).includes(t.id)) : all);
    this.picked = null;
  }

  /** Render the current scope if it is not on screen yet and the tab is visible. */
  ensure() {
    if (this.stale && !this.el.hidden) {
      this.stale = false;
      return this.render();
    }
    return this.done;
  }

  /** @param {ProfileView} view */
  setView(view) {
    this.view = view;
    return this.render();
  }

  /** @param {Source} source */
  setSource(source) {
    if (!this.sources.includes(source) || source === this.source) return this.done;
    this.source = source;
    this.offerThreads();
    return this.render();
  }

  /** @param {string} text @param {boolean} regex */
  setFilter(text, regex) {
    if (text === this.filter && regex === this.regex) return this.done;
    this.filter = text;
    this.regex = regex;
    return this.render();
  }

  /** The threads asked for: those picked, else the scope's (null: all). */
  threadParam() {
    if (this.picked) return this.picked;
    return this.scope ? this.scope.threads : null;
  }

  /**
   * An answer of the current scope, fetched once.
   * @param {'top-down'|'bottom-up'|'functions'|'sandwich'} view
   * @param {import('./sandwich.js').FunctionRow|null} [fn] the sandwich's function
   * @param {string} [filter] the search: tree views keep the rows it finds
   */
  ask(view, fn = null, filter = '') {
    const s = this.scope;
    const threads = this.threadParam();
    const key = JSON.stringify([this.source, view, threads, filter, this.regex, fn ? [fn.name, fn.url, fn.line, fn.column] : null]);
    let p = this.cache.get(key);
    if (!p && s) {
      p = threads && threads.length === 0
        ? Promise.resolve(empty(view))
        : this.api.profile({ t0: s.t0, t1: s.t1, tracks: null, threads, view, source: this.source, filter, regex: this.regex, fn: fn ?? undefined });
      p.catch(() => this.cache.delete(key));
      this.cache.set(key, p);
    }
    return /** @type {Promise<any>} */ (p);
  }

  showButtons() {
    const v = this.view;
    const tree = v === 'top-down' || v === 'bottom-up';
    const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (this.el.querySelector(s));
    q('.expand-all').hidden = !tree;
    q('.collapse-all').hidden = !tree;
    q('.flame-reset').hidden = v !== 'flame' || this.flame.zoom < 0;
    q('.export-svg').hidden = v !== 'flame' && v !== 'sandwich';
    q('.export-copy').hidden = q('.export-csv').hidden = v === 'flame';
    for (const b of this.el.querySelectorAll('.views button')) {
      b.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (b).dataset.view === v));
    }
    for (const b of this.el.querySelectorAll('.source button')) {
      b.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (b).dataset.source === this.source));
    }
  }

  countName() {
    return this.source === 'slices' ? 'slices' : 'samples';
  }

  render() {
    const seq = ++this.seq;
    const view = this.view;
    this.showButtons();
    this.status.textContent = 'Loading…';
    const facts = /** @type {HTMLElement} */ (this.el.querySelector('.profile-facts'));
    const what = view === 'sandwich' ? 'functions' : view === 'flame' ? 'top-down' : view;
    // The flame graph fades what the search does not find instead of leaving it out.
    const filter = view === 'top-down' || view === 'bottom-up' ? this.filter : '';
    this.done = this.ask(what, null, filter).then(
      (/** @type {ProfileAnswer|FunctionsAnswer} */ a) => {
        if (seq !== this.seq) return;
        facts.textContent = `${formatCount(a.samples)} ${this.countName()} · ${formatDuration(a.total_ns)}`;
        if (a.samples === 0) {
          this.tree = null;
          this.status.textContent = this.source === 'slices' ? 'No slices in this range.' : 'No CPU samples in this range.';
          this.body.replaceChildren();
          return;
        }
        if (view === 'sandwich') {
          const fa = /** @type {FunctionsAnswer} */ (a);
          this.tree = null;
          this.status.textContent = fa.truncated ? `Only the ${formatCount(fa.functions.name.length)} heaviest of ${formatCount(fa.count)} functions are listed.` : '';
          this.body.replaceChildren(this.sandwich.el);
          return this.sandwich.show(fa, nameMatcher(this.filter, this.regex), this.countName());
        }
        const pa = /** @type {ProfileAnswer} */ (a);
        const end = subtreeEnds(pa.nodes);
        // With a search, every row found is shown open.
        const expanded = this.filter ? allExpandable(end) : defaultExpanded(pa.nodes, end, view === 'flame' ? 'top-down' : view);
        this.tree = { answer: pa, end, expanded };
        const found = this.filter && pa.nodes.parent.length === 0 ? 'Nothing matches the search. ' : '';
        this.status.textContent = found + (pa.truncated ? `Only the ${formatCount(pa.nodes.parent.length)} heaviest nodes are shown.` : '');
        if (view === 'flame') {
          const flame = this.flame;
          if (flame.answer !== pa) flame.set(pa);
          flame.countName = this.countName();
          flame.match = nameMatcher(this.filter, this.regex);
          this.body.replaceChildren(flame.canvas);
          this.redraw();
          this.showButtons();
        } else {
          this.renderTree();
        }
      },
      (e) => {
        if (seq === this.seq) this.status.textContent = `Cannot compute the profile: ${e.message}`;
      },
    );
    return this.done;
  }

  redraw() {
    if (this.view === 'flame') this.flame.draw(this.body.clientWidth - 2);
    else if (this.view === 'sandwich' && this.sandwich.chosen) this.sandwich.draw();
  }

  /** Kept for the theme switch: redraws whichever graph is on screen. */
  drawFlame() {
    this.redraw();
  }

  get zoom() {
    return this.flame.zoom;
  }

  /** @param {Set<number>} expanded */
  expand(expanded) {
    if (!this.tree) return;
    this.tree.expanded = expanded;
    this.renderTree();
  }

  /** The rows shown, with their values (also for the test hook). */
  rows() {
    const t = this.tree;
    if (!t || this.view === 'flame' || this.view === 'sandwich') return [];
    const n = t.answer.nodes;
    const s = t.answer.strings;
    return visibleNodes(t.end, t.expanded).map((i) => ({
      node: i, name: str(s, n.name[i]) ?? '', depth: n.depth[i], self: n.self[i], total: n.total[i],
      samples: n.total_samples[i], count: n.self_samples[i], location: formatLocation(str(s, n.url[i]), n.line[i], n.column[i]),
      expanded: t.expanded.has(i), leaf: t.end[i] === i + 1,
    }));
  }

  renderTree() {
    const t = this.tree;
    if (!t) return;
    const whole = t.answer.total_ns;
    const rows = this.rows();
    const shown = rows.slice(0, MAX_ROWS);
    const match = nameMatcher(this.filter, this.regex);
    const slices = this.source === 'slices';
    const body = shown
      .map((r) => {
        const twisty = r.leaf ? '<span class="twisty"></span>' : `<span class="twisty">${r.expanded ? '▾' : '▸'}</span>`;
        const hit = match && match(r.name) ? ' class="found"' : '';
        return `<tr data-node="${r.node}"${hit}><td class="fn" style="padding-left:${6 + r.depth * 14}px">${twisty}${esc(r.name || '(anonymous)')}</td>` +
          `<td class="n">${formatDuration(r.self)}</td><td class="n pct">${percent(r.self, whole)}</td>` +
          `<td class="n">${formatDuration(r.total)}</td><td class="n pct">${percent(r.total, whole)}</td>` +
          `<td class="n">${formatCount(slices ? r.count : r.samples)}</td>${slices ? '' : `<td class="loc">${esc(r.location)}</td>`}</tr>`;
      })
      .join('');
    const cols = slices ? 6 : 7;
    const more = rows.length > shown.length ? `<tr><td colspan="${cols}" class="muted">and ${formatCount(rows.length - shown.length)} more rows</td></tr>` : '';
    const head = this.view === 'bottom-up' ? 'Function (callers below)' : 'Function (callees below)';
    const count = slices ? '<th class="n" title="Slices at this node">Count</th>' : '<th class="n">Samples</th><th>Location</th>';
    this.body.innerHTML = `<table class="calltree ${this.view}"><thead><tr><th>${head}</th><th class="n">Self</th><th class="n">%</th>` +
      `<th class="n">Total</th><th class="n">%</th>${count}</tr></thead><tbody>${body}${more}</tbody></table>`;
  }

  /** The graph on screen as SVG files: the flame graph, or a sandwich's two. */
  svgs() {
    const scope = this.scope ? this.scope.label : '';
    const title = `${LABELS[this.source]} · ${scope}`;
    if (this.view === 'sandwich') {
      const s = this.sandwich.svgs(title, 'time');
      return [{ name: 'callers.svg', text: s.callers }, { name: 'callees.svg', text: s.callees }].filter((x) => x.text);
    }
    return [{ name: 'flame.svg', text: this.flame.svg(title, 'time') }].filter((x) => x.text);
  }

  exportSvg() {
    for (const f of this.svgs()) download(f.name, f.text, 'image/svg+xml');
  }

  /** The table on screen for export: every node of a tree, or the sandwich's functions. */
  exportable() {
    const slices = this.source === 'slices';
    if (this.view === 'sandwich') {
      const sw = this.sandwich;
      return sw.rows.length ? functionsTable(sw.rows, sw.table.sortedRows(), slices) : null;
    }
    const t = this.tree;
    return t && this.view !== 'flame' && t.answer.nodes.parent.length ? treeTable(t.answer, slices) : null;
  }

  /**
   * Export the table on screen: to the clipboard as tab-separated text, or as a CSV file.
   * @param {'copy'|'csv'} how
   * @returns {Promise<string>} what was done
   */
  async exportTable(how) {
    const table = this.exportable();
    if (!table) return 'Nothing to export.';
    const rows = `${formatCount(table.order.length)} row${table.order.length === 1 ? '' : 's'}`;
    if (how === 'copy') {
      await copyText(tableText(table.columns, table.order, 'tsv'));
      return `Copied ${rows}.`;
    }
    const what = this.view === 'sandwich' ? 'functions' : this.view;
    const name = `${fileName('profile', this.source, what, this.scope ? this.scope.label : '')}.csv`;
    download(name, tableText(table.columns, table.order, 'csv'), 'text/csv');
    return `Saved ${name} (${rows}).`;
  }
}

/** An answer with nothing in it (no thread picked). @param {string} view */
function empty(view) {
  const z = /** @type {number[]} */ ([]);
  if (view === 'functions') {
    return { view, samples: 0, total_ns: 0, count: 0, truncated: false, functions: { name: z, url: z, line: z, column: z, self: z, total: z, self_samples: z, total_samples: z }, strings: [] };
  }
  const nodes = { parent: z, depth: z, name: z, url: z, line: z, column: z, self: z, total: z, self_samples: z, total_samples: z };
  return { samples: 0, total_ns: 0, view, truncated: false, nodes, strings: [] };
}

/**
 * The threads of some tracks (a slices or samples track stands for its thread);
 * null (every track) stays null.
 * @param {string[]|null} tracks
 * @returns {number[]|null}
 */
export function threadsOf(tracks) {
  if (!tracks) return null;
  const out = new Set();
  for (const t of tracks) {
    const m = t.match(/^(?:s:(\d+):\d+|p:(\d+))$/);
    if (m) out.add(Number(m[1] ?? m[2]));
  }
  return [...out];
}

/**
 * The threads with slices and those with CPU samples, in display order, labelled.
 * @param {import('./types.js').Summary} summary
 * @returns {{samples: ThreadChoice[], slices: ThreadChoice[]}}
 */
export function threadChoices(summary) {
  /** @type {{samples: ThreadChoice[], slices: ThreadChoice[]}} */
  const out = { samples: [], slices: [] };
  for (const p of summary.processes) {
    for (const th of p.threads) {
      const c = { id: th.id, label: th.label, process: p.label };
      // A thread with instants only has a slices track of no rows.
      if (th.tracks.some((t) => t.kind === 'slices' && t.rows > 0)) out.slices.push(c);
      if (th.tracks.some((t) => t.kind === 'samples')) out.samples.push(c);
    }
  }
  return out;
}
