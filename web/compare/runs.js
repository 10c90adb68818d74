// Which run of each side the compare page's timelines show, as the URL hash
// keeps it: `#base=2&new=3` (1-based; the first runs are left out).

/**
 * The runs the URL hash asks for (`#base=2&new=3`), each within its side's runs.
 * @param {string} hash
 * @param {{base: {files: string[]}, new: {files: string[]}}} info
 * @returns {{base: number, new: number}}
 */
export function runsFromHash(hash, info) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const run = (/** @type {'base'|'new'} */ side) => {
    const n = Number(p.get(side));
    return Number.isInteger(n) && n >= 1 && n <= info[side].files.length ? n : 1;
  };
  return { base: run('base'), new: run('new') };
}

/**
 * The hash that keeps the runs shown ('' when both are the first).
 * @param {{base: number, new: number}} runs
 */
export function runsHash(runs) {
  const p = new URLSearchParams();
  if (runs.base !== 1) p.set('base', String(runs.base));
  if (runs.new !== 1) p.set('new', String(runs.new));
  return p.toString();
}
