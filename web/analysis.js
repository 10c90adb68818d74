// Wires the analysis together: a range (shift-drag, M) or a name ("select all with
// this name") opens the Range tab; the Profile tab (call trees, flame graph and
// sandwich of slices or CPU samples) follows the range (or the whole trace); stack
// frames, objects and snapshots picked on the timeline fill the details panel.
import { Tabs } from './tabs.js';
import { RangePanel } from './rangepanel.js';
import { ProfilePanel, threadChoices, threadsOf } from './profilepanel.js';
import { rangeTracks } from './range.js';
import { formatLocation, str } from './calltree.js';
import { formatDuration, formatTime } from './format.js';

/** @typedef {import('./api.js').Api} Api */
/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./timeline.js').Selection} Selection */
/** @typedef {import('./details.js').DetailsPanel} DetailsPanel */
/** @typedef {import('./range.js').Range} Range */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

export class Analysis {
  /**
   * @param {Api} api
   * @param {Timeline} tl
   * @param {DetailsPanel} details
   * @param {(html: string|null, x: number, y: number) => void} onHover the tooltip
   */
  constructor(api, tl, details, onHover) {
    this.api = api;
    this.tl = tl;
    this.details = details;
    const s = tl.summary;
    this.origin = s.start_ns;
    /** @type {Set<string>} */
    this.samples = new Set();
    /** @type {Map<string, string>} track names by id */
    const names = new Map();
    /** @type {Map<string, string>} what a track is part of: its process */
    this.processOf = new Map();
    for (const p of s.processes) {
      for (const t of p.tracks) {
        names.set(t.id, t.name);
        this.processOf.set(t.id, p.label);
      }
      for (const th of p.threads) {
        for (const t of th.tracks) {
          names.set(t.id, t.name);
          this.processOf.set(t.id, p.label);
          if (t.kind === 'samples') this.samples.add(t.id);
        }
      }
    }
    this.tabs = new Tabs($('bottom'), $('tab-buttons'), $('bottom-grip'), () => tl.resize());
    this.tabs.add('details', 'Details', $('details'));
    this.tabs.add('range', 'Range', $('range-panel'));
    this.tabs.add('profile', 'Profile', $('profile-panel'));
    this.tabs.add('query', 'Query', $('query-panel'));
    $('query-button').addEventListener('click', () => this.tabs.show('query'));
    this.tabs.onShow = (/** @type {string} */ name) => {
      tl.store.set({ tab: name });
      if (name === 'profile') this.profile.ensure();
    };
    this.tabs.onClose = () => tl.store.set({ tab: null });
    $('bottom-close').addEventListener('click', () => this.tabs.setOpen(false));
    // While the user walks through the search's list, the list stays in front.
    details.onShow = (front) => (front && this.tabs.active !== 'search' ? this.tabs.show('details') : this.tabs.offer('details'));
    details.onHide = () => this.tabs.remove('details');
    details.onSelectAll = (name) => this.selectAll(name);
    this.range = new RangePanel($('range-panel'), api, this.origin,
      (h) => tl.store.set({ highlight: h }),
      (t0, t1) => {
        const pad = Math.max(1000, (t1 - t0) * 0.05);
        tl.scale.set(t0 - pad, t1 + pad);
        tl.requestDraw();
      },
      (id) => names.get(id) ?? null);
    this.profile = new ProfilePanel($('profile-panel'), api, onHover, threadChoices(s));
    /** Whether the trace has anything to aggregate (slices or CPU samples). */
    this.profiled = this.profile.sources.length > 0;
    if (this.profiled) {
      this.profile.open({ t0: null, t1: null, threads: null, label: 'Whole trace' });
      // A CPU profile's tab is there from the start (as before slices had trees); a
      // trace of slices only gets it from the Profile button or a range, so closing
      // the details (Escape) still closes the panel.
      if (this.profile.sources.includes('samples')) this.tabs.enable('profile');
      const b = $('profile-button');
      b.hidden = false;
      b.addEventListener('click', () => this.tabs.show('profile'));
    }
    this.names = names;
    tl.onRange = (r) => this.setRange(r);
    this.itemSeq = 0;
  }

  /** A track's label and its process's ("CrRendererMain (tid 7) · Renderer (pid 3)"). @param {string} id */
  trackName(id) {
    const n = this.names.get(id);
    const p = this.processOf.get(id);
    return n ? (p ? `${n} · ${p}` : n) : id;
  }

  /** Show the statistics (and profile) of a range, and mark it on the timeline. @param {Range} r */
  setRange(r) {
    this.tl.store.set({ mark: r, highlight: null });
    const span = formatDuration(r.t1 - r.t0);
    const where = r.tracks ? `${r.tracks.length} track${r.tracks.length === 1 ? '' : 's'}` : 'all tracks';
    // The grouping chosen for the last range stays; after "select all", by name again.
    const prev = this.range.query;
    const by = prev && prev.name === null ? prev.by : 'name';
    this.range.open({ t0: r.t0, t1: r.t1, tracks: rangeTracks(r.tracks), name: null, by }, `Range of ${span} · ${where}`);
    this.tabs.show('range');
    if (this.profiled) {
      this.profile.open({ t0: r.t0, t1: r.t1, threads: threadsOf(r.tracks),
        label: `Range ${formatTime(r.t0 - this.origin)} – ${formatTime(r.t1 - this.origin)} · ${where}` });
      this.tabs.offer('profile');
    }
  }

  /** Forget the range: the Range tab goes, the profile is of the whole trace again. */
  clearRange() {
    this.tl.store.set({ mark: null, highlight: null });
    this.range.clear();
    this.tabs.remove('range');
    if (this.profiled) this.profile.open({ t0: null, t1: null, threads: null, label: 'Whole trace' });
  }

  /** Statistics of every slice named `name` over the whole trace, per thread. @param {string} name */
  selectAll(name) {
    const s = this.tl.summary;
    this.tl.store.set({ highlight: null });
    this.range.open({ t0: s.start_ns, t1: s.end_ns + 1, tracks: null, name, by: 'thread' }, `All “${name}” slices · whole trace`);
    this.tabs.show('range');
  }

  /**
   * Details of a stack frame, object or snapshot picked on the timeline.
   * @param {Selection} sel
   */
  async showItem(sel) {
    const seq = ++this.itemSeq;
    try {
      if (sel.kind === 'object' || sel.kind === 'snapshot') {
        const o = await this.api.object(sel.id);
        if (seq === this.itemSeq) this.details.showObject(o, sel.kind === 'snapshot' ? sel.index ?? null : null);
      } else if (sel.kind === 'frame') {
        // The samples of the item's span on its thread: its frame is the node at its row.
        const p = await this.api.profile({ t0: sel.ts, t1: sel.ts + Math.max(1, sel.dur), tracks: [sel.track], view: 'top-down', maxNodes: 5000 });
        if (seq !== this.itemSeq) return;
        const n = p.nodes;
        let k = -1;
        for (let i = 0; i < n.parent.length && k < 0; i++) if (n.depth[i] === sel.row && str(p.strings, n.name[i]) === sel.name) k = i;
        this.details.showFrame({
          name: sel.name, ts: sel.ts, dur: sel.dur,
          location: k < 0 ? '' : formatLocation(str(p.strings, n.url[k]), n.line[k], n.column[k]),
          samples: k < 0 ? null : n.total_samples[k], self: k < 0 ? null : n.self[k],
        });
      }
    } catch (e) {
      if (seq === this.itemSeq) this.details.error(/** @type {Error} */ (e).message);
    }
  }
}
