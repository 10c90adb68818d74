// The bar over the tracks: the track filter (a name substring or /regex/), fold
// and unfold every process and group, and the list of hidden tracks to bring back.
import { esc, formatCount } from './format.js';
import { processKey } from './layout.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./state.js').Store} Store */

/**
 * Every foldable key of the trace: processes and their groups.
 * @param {Timeline} tl
 */
export function foldKeys(tl) {
  const keys = new Set(tl.summary.processes.map(processKey));
  for (const at of tl.places.values()) if (at.group) keys.add(at.group);
  return [...keys];
}

/**
 * A hidden key's label: the track's, or the process's.
 * @param {Timeline} tl @param {string} key
 */
function hiddenLabel(tl, key) {
  const at = tl.places.get(key);
  if (at) {
    const th = at.thread;
    const own = th ? (th.tracks[0] === at.track ? th.label : `${th.label} · ${at.track.name}`) : at.track.name;
    return `${own} <span class="muted">· ${esc(at.process.label)}</span>`;
  }
  const p = tl.summary.processes.find((x) => processKey(x) === key);
  if (p) return `${esc(p.label)} <span class="muted">(process)</span>`;
  const th = tl.summary.processes.flatMap((x) => x.threads).find((x) => `T${x.id}` === key);
  return th ? esc(th.label) : esc(key);
}

/**
 * @param {HTMLElement} bar
 * @param {Timeline} tl
 * @param {Store} store
 * @returns {{closePopup: () => boolean}}
 */
export function setupTrackBar(bar, tl, store) {
  bar.innerHTML =
    '<input id="track-filter" type="search" placeholder="Filter tracks: name or /regex/" aria-label="Filter tracks" autocomplete="off" spellcheck="false">' +
    '<span id="track-filter-status" class="muted" aria-live="polite"></span>' +
    '<button id="collapse-all" type="button" title="Fold every process and group">Collapse all</button>' +
    '<button id="expand-all" type="button" title="Unfold every process and group">Expand all</button>' +
    '<button id="hidden-button" type="button" hidden title="Hidden tracks and processes"></button>' +
    '<span class="grow"></span><span id="track-hint" class="muted">Hover a track name to pin or hide it; drag it to reorder.</span>';
  const popup = document.createElement('section');
  popup.id = 'hidden-popup';
  popup.className = 'popup';
  popup.hidden = true;
  popup.setAttribute('aria-label', 'Hidden tracks');
  document.body.append(popup);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (bar.querySelector(s));
  const input = /** @type {HTMLInputElement} */ (q('#track-filter'));
  const status = q('#track-filter-status');
  const hiddenButton = /** @type {HTMLButtonElement} */ (q('#hidden-button'));

  let timer = 0;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => store.set({ filter: input.value }), 80);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      input.value = '';
      store.set({ filter: '' });
      input.blur();
    }
  });
  q('#collapse-all').addEventListener('click', () => store.set({ folds: { ...store.state.folds, ...Object.fromEntries(foldKeys(tl).map((k) => [k, true])) } }));
  q('#expand-all').addEventListener('click', () => store.set({ folds: { ...store.state.folds, ...Object.fromEntries(foldKeys(tl).map((k) => [k, false])) } }));

  const renderPopup = () => {
    const hidden = store.state.hidden;
    popup.innerHTML = `<h2>Hidden (${hidden.length}) <button type="button" class="unhide-all">Show all</button></h2><ul class="hidden-list">` +
      hidden.map((k) => `<li><button type="button" class="unhide" data-key="${esc(k)}">Show</button> ${hiddenLabel(tl, k)}</li>`).join('') + '</ul>';
  };
  popup.addEventListener('click', (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest('button');
    if (!b) return;
    if (b.classList.contains('unhide-all')) store.set({ hidden: [] });
    else if (b.dataset.key) store.toggleIn('hidden', b.dataset.key, false);
  });
  hiddenButton.addEventListener('click', () => {
    renderPopup();
    popup.hidden = !popup.hidden;
  });

  const update = () => {
    const s = store.state;
    if (input.value !== s.filter && document.activeElement !== input) input.value = s.filter;
    const err = tl.layout.filterError;
    const n = tl.layout.tracks;
    status.textContent = err ? `bad regex: ${err}` : s.filter ? `${formatCount(n)} track${n === 1 ? '' : 's'} shown` : '';
    status.classList.toggle('warn', !!err);
    hiddenButton.hidden = s.hidden.length === 0;
    hiddenButton.textContent = `${formatCount(s.hidden.length)} hidden`;
    if (s.hidden.length === 0) popup.hidden = true;
    else if (!popup.hidden) renderPopup();
  };
  // After the timeline's own subscription has laid the tracks out.
  store.on(['filter', 'hidden', 'pinned', 'folds'], update);
  update();
  return {
    closePopup() {
      const open = !popup.hidden;
      popup.hidden = true;
      return open;
    },
  };
}
