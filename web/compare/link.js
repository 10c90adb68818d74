// Two timelines on one time axis: the new trace's view is the base's shifted by
// an offset, so zooming or panning either moves both. The offset aligns the two
// starts, or a slice chosen on each side ("align here").

/** @typedef {import('../state.js').Store} Store */
/** @typedef {{t0: number, t1: number}} View */

/**
 * The view of the other side: `v` shifted by `offset` (base to new: +, new to base: -).
 * @param {View} v
 * @param {number} offset
 * @returns {View}
 */
export function shifted(v, offset) {
  return { t0: v.t0 + offset, t1: v.t1 + offset };
}

/**
 * The offset that puts a picked slice under its match on the other side: the
 * slices of one name in time order on each side (their start times), the picked
 * one the k-th of its own side's, its match the k-th of the other's (the last one
 * when the other has fewer). Null when there is nothing to match.
 * @param {number[]} ownTs starts on the picked slice's side
 * @param {number[]} farTs starts on the other side
 * @param {number} k index of the picked slice in ownTs
 * @param {boolean} ownIsBase whether the picked slice is on the base side
 * @returns {number|null} new time minus base time
 */
export function matchOffset(ownTs, farTs, k, ownIsBase) {
  if (farTs.length === 0 || k < 0 || k >= ownTs.length) return null;
  const far = farTs[Math.min(k, farTs.length - 1)];
  return ownIsBase ? far - ownTs[k] : ownTs[k] - far;
}

export class ViewLink {
  /**
   * @param {Store} base
   * @param {Store} next the new trace's store
   * @param {number} offset new time minus base time at the same place
   */
  constructor(base, next, offset) {
    this.base = base;
    this.next = next;
    this.offset = offset;
    this.busy = false;
    this.watch(base);
    this.watch(next);
  }

  /** Follow a store's view changes while it is one of the two linked. @param {Store} store */
  watch(store) {
    store.on(['view'], (s) => {
      if (store === this.base) this.follow(s.view, this.next, this.offset);
      else if (store === this.next) this.follow(s.view, this.base, -this.offset);
    });
  }

  /**
   * Link another store in place of a side's (that side now shows another run).
   * @param {'base'|'new'} side
   * @param {Store} store
   */
  replace(side, store) {
    if (side === 'base') this.base = store;
    else this.next = store;
    this.watch(store);
  }

  /** @param {View|null} v @param {Store} other @param {number} off */
  follow(v, other, off) {
    if (this.busy || !v) return;
    this.busy = true;
    try {
      other.set({ view: shifted(v, off) });
    } finally {
      this.busy = false;
    }
  }

  /** Change the offset, keeping the base's view: the new side moves. @param {number} offset */
  align(offset) {
    this.offset = offset;
    this.follow(this.base.state.view, this.next, offset);
  }
}
