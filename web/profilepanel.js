// The Profile tab: the CPU-profile call tree of the selected range (or the whole
// trace) as a top-down tree, a bottom-up tree (heaviest functions first, expanding
// to their callers) and a flame graph of the top-down tree.
import { subtreeEnds, visibleNodes, allExpandable, defaultExpanded, formatLocation, percent, str } from './calltree.js';
import { flameLayout, flameHit, drawFlame, FLAME_ROW_H } from './flame.js';
import { formatCount, formatDuration, esc } from './format.js';

/** @typedef {import('./api.js').Api} Api */
/** @typedef {import('./types.js').ProfileAnswer} ProfileAnswer */
/** @typedef {'top-down'|'bottom-up'|'flame'} ProfileView */
/** @typedef {{t0: number|null, t1: number|null, tracks: string[]|null, label: string}} ProfileScope */
/** @typedef {{answer: ProfileAnswer, end: Int32Array, expanded: Set<number>}} Tree */

/** Rows of a tree drawn at most (the rest is summarised). */
export const MAX_ROWS = 3000;

/** @param {'top-down'|'bottom-up'} view @returns {ProfileAnswer} */
function emptyProfile(view) {
  const nodes = { parent: [], depth: [], name: [], url: [], line: [], column: [], self: [], total: [], self_samples: [], total_samples: [] };
  return { samples: 0, total_ns: 0, view, truncated: false, nodes, strings: [] };
}

export class ProfilePanel {
  /**
   * @param {HTMLElement} el
   * @param {Api} api
   * @param {(html: string|null, x: number, y: number) => void} onHover
   */
  constructor(el, api, onHover) {
    this.el = el;
    this.api = api;
    this.onHover = onHover;
    /** @type {ProfileScope|null} */
    this.scope = null;
    /** @type {ProfileView} */
    this.view = 'bottom-up';
    /** @type {Map<string, Promise<Tree>>} trees of the current scope by view */
    this.trees = new Map();
    /** @type {Tree|null} the tree on screen */
    this.tree = null;
    this.zoom = -1;
    this.hover = -1;
    this.seq = 0;
    /** The scope changed since the last rendering. */
    this.stale = false;
    /** @type {Promise<void>} the latest rendering */
    this.done = Promise.resolve();
    el.innerHTML =
      '<div class="panel-head"><b class="profile-title"></b><span class="profile-facts muted"></span>' +
      '<span class="seg" role="group" aria-label="View"><button type="button" data-view="top-down">Top-down</button>' +
      '<button type="button" data-view="bottom-up">Bottom-up</button><button type="button" data-view="flame">Flame graph</button></span>' +
      '<button type="button" class="expand-all">Expand all</button><button type="button" class="collapse-all">Collapse all</button>' +
      '<button type="button" class="flame-reset" hidden>Reset zoom</button></div>' +
      '<p class="profile-status muted"></p><div class="profile-body"></div>';
    const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (el.querySelector(s));
    this.status = q('.profile-status');
    this.body = q('.profile-body');
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'flame';
    /** @type {import('./flame.js').FlameLayout|null} */
    this.layout = null;
    q('.seg').addEventListener('click', (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest('button[data-view]');
      if (b) this.setView(/** @type {ProfileView} */ (/** @type {HTMLElement} */ (b).dataset.view));
    });
    q('.expand-all').addEventListener('click', () => this.tree && this.expand(allExpandable(this.tree.end)));
    q('.collapse-all').addEventListener('click', () => this.tree && this.expand(new Set()));
    q('.flame-reset').addEventListener('click', () => this.zoomTo(-1));
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
    this.installFlamePointer();
    new ResizeObserver(() => this.view === 'flame' && this.drawFlame()).observe(this.body);
    // The canvas takes its colours from the theme: redraw when the system's changes.
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.view === 'flame' && this.drawFlame());
  }

  /** Show the profile of a new scope (fetched when the tab is visible). @param {ProfileScope} scope */
  open(scope) {
    this.scope = scope;
    this.trees = new Map();
    this.zoom = -1;
    this.stale = true;
    /** @type {HTMLElement} */ (this.el.querySelector('.profile-title')).textContent = scope.label;
    return this.ensure();
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

  /** The tree of a view in the current scope, fetched once. @param {'top-down'|'bottom-up'} view */
  treeOf(view) {
    let p = this.trees.get(view);
    const s = this.scope;
    if (!p && s) {
      // A selection without any samples track has no profile: nothing to ask.
      const ask = s.tracks && s.tracks.length === 0 ? Promise.resolve(emptyProfile(view)) : this.api.profile({ t0: s.t0, t1: s.t1, tracks: s.tracks, view });
      p = ask.then((answer) => {
        const end = subtreeEnds(answer.nodes);
        return { answer, end, expanded: defaultExpanded(answer.nodes, end, view) };
      });
      p.catch(() => this.trees.delete(view));
      this.trees.set(view, p);
    }
    return /** @type {Promise<Tree>} */ (p);
  }

  render() {
    const seq = ++this.seq;
    for (const b of this.el.querySelectorAll('.seg button')) {
      b.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (b).dataset.view === this.view));
    }
    const view = this.view;
    const flame = view === 'flame';
    /** @type {HTMLElement} */ (this.el.querySelector('.expand-all')).hidden = flame;
    /** @type {HTMLElement} */ (this.el.querySelector('.collapse-all')).hidden = flame;
    /** @type {HTMLElement} */ (this.el.querySelector('.flame-reset')).hidden = !flame || this.zoom < 0;
    this.status.textContent = 'Loading…';
    this.done = this.treeOf(view === 'flame' ? 'top-down' : view).then(
      (t) => {
        if (seq !== this.seq) return;
        this.tree = t;
        const a = t.answer;
        /** @type {HTMLElement} */ (this.el.querySelector('.profile-facts')).textContent =
          `${formatCount(a.samples)} samples · ${formatDuration(a.total_ns)}`;
        if (a.samples === 0) {
          this.status.textContent = 'No CPU samples in this range.';
          this.body.replaceChildren();
          return;
        }
        this.status.textContent = a.truncated ? `Only the ${formatCount(a.nodes.parent.length)} heaviest nodes are shown.` : '';
        if (flame) {
          this.body.replaceChildren(this.canvas);
          this.drawFlame();
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

  /** @param {Set<number>} expanded */
  expand(expanded) {
    if (!this.tree) return;
    this.tree.expanded = expanded;
    this.renderTree();
  }

  /** The rows shown, with their values (also for the test hook). */
  rows() {
    const t = this.tree;
    if (!t || this.view === 'flame') return [];
    const n = t.answer.nodes;
    const s = t.answer.strings;
    return visibleNodes(t.end, t.expanded).map((i) => ({
      node: i, name: str(s, n.name[i]) ?? '', depth: n.depth[i], self: n.self[i], total: n.total[i],
      samples: n.total_samples[i], location: formatLocation(str(s, n.url[i]), n.line[i], n.column[i]),
      expanded: t.expanded.has(i), leaf: t.end[i] === i + 1,
    }));
  }

  renderTree() {
    const t = this.tree;
    if (!t) return;
    const whole = t.answer.total_ns;
    const rows = this.rows();
    const shown = rows.slice(0, MAX_ROWS);
    const body = shown
      .map((r) => {
        const twisty = r.leaf ? '<span class="twisty"></span>' : `<span class="twisty">${r.expanded ? '▾' : '▸'}</span>`;
        return `<tr data-node="${r.node}"><td class="fn" style="padding-left:${6 + r.depth * 14}px">${twisty}${esc(r.name || '(anonymous)')}</td>` +
          `<td class="n">${formatDuration(r.self)}</td><td class="n pct">${percent(r.self, whole)}</td>` +
          `<td class="n">${formatDuration(r.total)}</td><td class="n pct">${percent(r.total, whole)}</td>` +
          `<td class="n">${formatCount(r.samples)}</td><td class="loc">${esc(r.location)}</td></tr>`;
      })
      .join('');
    const more = rows.length > shown.length ? `<tr><td colspan="7" class="muted">and ${formatCount(rows.length - shown.length)} more rows</td></tr>` : '';
    const head = this.view === 'bottom-up' ? 'Function (callers below)' : 'Function (callees below)';
    this.body.innerHTML = `<table class="calltree ${this.view}"><thead><tr><th>${head}</th><th class="n">Self</th><th class="n">%</th>` +
      `<th class="n">Total</th><th class="n">%</th><th class="n">Samples</th><th>Location</th></tr></thead><tbody>${body}${more}</tbody></table>`;
  }

  drawFlame() {
    const t = this.tree;
    if (!t || this.view !== 'flame') return;
    this.layout = flameLayout(t.answer.nodes, t.end, this.zoom);
    const w = Math.max(100, this.body.clientWidth - 2);
    const h = Math.max(1, this.layout.levels) * FLAME_ROW_H;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    const ctx = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const cs = getComputedStyle(document.documentElement);
    const theme = { dark: cs.getPropertyValue('--is-dark').trim() === '1', bg: cs.getPropertyValue('--panel-bg').trim(),
      fg: cs.getPropertyValue('--fg').trim(), muted: cs.getPropertyValue('--muted').trim() };
    ctx.fillStyle = theme.bg;
    ctx.fillRect(0, 0, w, h);
    const a = t.answer;
    drawFlame(ctx, this.layout, (i) => str(a.strings, a.nodes.name[i]) ?? '', w, theme, this.hover);
  }

  /** @param {number} node the node to make full width, -1 for the whole tree */
  zoomTo(node) {
    this.zoom = node;
    this.hover = -1;
    /** @type {HTMLElement} */ (this.el.querySelector('.flame-reset')).hidden = node < 0;
    this.drawFlame();
  }

  /** The flame box under a pointer event, or -1. @param {MouseEvent} e */
  flameBoxAt(e) {
    const l = this.layout;
    if (!l) return -1;
    const r = this.canvas.getBoundingClientRect();
    return flameHit(l, (e.clientX - r.left) / r.width, Math.floor((e.clientY - r.top) / FLAME_ROW_H));
  }

  installFlamePointer() {
    const c = this.canvas;
    c.addEventListener('pointermove', (e) => {
      const k = this.flameBoxAt(e);
      if (k !== this.hover) {
        this.hover = k;
        this.drawFlame();
      }
      if (k < 0 || !this.tree || !this.layout) return this.onHover(null, 0, 0);
      const a = this.tree.answer;
      const i = this.layout.node[k];
      const n = a.nodes;
      const loc = formatLocation(str(a.strings, n.url[i]), n.line[i], n.column[i]);
      this.onHover(
        `<b>${esc(str(a.strings, n.name[i]) || '(anonymous)')}</b> ${formatDuration(n.total[i])} (${percent(n.total[i], a.total_ns)})` +
          ` · self ${formatDuration(n.self[i])}${loc ? `<br><span class="muted">${esc(loc)}</span>` : ''}`,
        e.clientX, e.clientY);
    });
    c.addEventListener('pointerleave', () => {
      this.hover = -1;
      this.drawFlame();
      this.onHover(null, 0, 0);
    });
    c.addEventListener('click', (e) => {
      const k = this.flameBoxAt(e);
      if (k < 0 || !this.tree || !this.layout) return;
      const i = this.layout.node[k];
      // Clicking the zoomed node again zooms out to its parent.
      this.zoomTo(i === this.zoom ? this.tree.answer.nodes.parent[i] : i);
    });
  }
}
