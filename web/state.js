// The page's one state: what is shown (visible range, track layout choices, open
// tab, theme) and what is chosen (selection, marked range, highlights). Views read
// it and subscribe to the keys they draw; changes go through `set`, which calls
// each subscriber of a changed key once, with every key that changed. Nothing
// else holds view state, so the URL hash (hash.js) can save and restore it all.

/** @typedef {import('./timeline.js').Selection} Selection */
/** @typedef {import('./timeline.js').Arrow} Arrow */
/** @typedef {import('./range.js').Range} Range */
/** @typedef {import('./types.js').RangeSlicesAnswer} RangeSlicesAnswer */

/**
 * @typedef {'system'|'light'|'dark'} ThemeChoice
 * @typedef {{
 *   view: {t0: number, t1: number}|null,
 *   selection: Selection|null,
 *   mark: Range|null,
 *   highlight: RangeSlicesAnswer|null,
 *   search: {query: string, regex: RegExp|null}|null,
 *   selArrows: Arrow[],
 *   allArrows: Arrow[],
 *   pinned: string[],
 *   hidden: string[],
 *   folds: Record<string, boolean>,
 *   order: Record<string, string[]>,
 *   filter: string,
 *   tab: string|null,
 *   theme: ThemeChoice,
 *   labelW: number|null,
 * }} ViewState
 *
 * `pinned`: track ids shown in the pinned area, in its order. `hidden`: track ids and
 * process keys (`P<id>`) not shown. `folds`: group key -> folded, for the groups the
 * user opened or closed (others keep their default: see layout.js). `order`: parent
 * key -> child keys in the order the user dragged them to. `labelW`: the label
 * column's width when the user has resized it.
 */

/** @returns {ViewState} */
export function initialState() {
  return {
    view: null,
    selection: null,
    mark: null,
    highlight: null,
    search: null,
    selArrows: [],
    allArrows: [],
    pinned: [],
    hidden: [],
    folds: {},
    order: {},
    filter: '',
    tab: null,
    theme: 'system',
    labelW: null,
  };
}

/** The keys that change the vertical layout of the tracks. */
export const LAYOUT_KEYS = /** @type {const} */ (['pinned', 'hidden', 'folds', 'order', 'filter', 'labelW']);

/**
 * @typedef {keyof ViewState} Key
 * @typedef {(s: ViewState, changed: Set<Key>) => void} Listener
 */

export class Store {
  /** @param {Partial<ViewState>} [init] */
  constructor(init = {}) {
    /** @type {ViewState} */
    this.s = { ...initialState(), ...init };
    /** @type {Array<{keys: Set<Key>|null, fn: Listener}>} */
    this.subs = [];
  }

  /** The current state (read only: change it with `set`). */
  get state() {
    return this.s;
  }

  /**
   * Change some keys; subscribers of the keys whose value changed (by identity)
   * are called once, in subscription order, after every key is written.
   * @param {Partial<ViewState>} patch
   */
  set(patch) {
    /** @type {Set<Key>} */
    const changed = new Set();
    for (const k of /** @type {Key[]} */ (Object.keys(patch))) {
      if (this.s[k] === patch[k]) continue;
      changed.add(k);
    }
    if (changed.size === 0) return;
    this.s = { ...this.s, ...patch };
    for (const sub of [...this.subs]) {
      if (!sub.keys || [...sub.keys].some((k) => changed.has(k))) sub.fn(this.s, changed);
    }
  }

  /**
   * Call `fn` whenever one of `keys` changes (null: any key).
   * @param {readonly Key[]|null} keys
   * @param {Listener} fn
   * @returns {() => void} unsubscribes
   */
  on(keys, fn) {
    const sub = { keys: keys ? new Set(keys) : null, fn };
    this.subs.push(sub);
    return () => {
      this.subs = this.subs.filter((x) => x !== sub);
    };
  }

  /** Add or remove `item` of a list key. @param {'pinned'|'hidden'} key @param {string} item @param {boolean} on */
  toggleIn(key, item, on) {
    const list = this.s[key];
    if (on === list.includes(item)) return;
    this.set({ [key]: on ? [...list, item] : list.filter((x) => x !== item) });
  }

  /** Fold or unfold groups. @param {Record<string, boolean>} folds */
  fold(folds) {
    this.set({ folds: { ...this.s.folds, ...folds } });
  }
}
