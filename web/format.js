// Time formatting. Times are integer nanoseconds (JS numbers, exact below 2^53).

/** @typedef {'ns'|'µs'|'ms'|'s'} Unit */

/** @type {Array<[Unit, number]>} unit and its size in ns, largest first */
export const UNITS = [['s', 1e9], ['ms', 1e6], ['µs', 1e3], ['ns', 1]];

/**
 * The largest unit in which `ns` is at least 1 (ns for 0).
 * @param {number} ns
 * @returns {[Unit, number]}
 */
export function unitFor(ns) {
  const a = Math.abs(ns);
  for (const u of UNITS) if (a >= u[1]) return u;
  return UNITS[UNITS.length - 1];
}

/**
 * Trim trailing zeros of a fixed-point string ("2.500" -> "2.5", "3.000" -> "3").
 * @param {string} s
 */
function trimZeros(s) {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/**
 * A duration in the unit that keeps 1-3 integer digits: 76700 -> "76.7 µs".
 * `digits` is the number of significant fraction digits kept at most.
 * @param {number} ns
 * @param {number} [digits]
 */
export function formatDuration(ns, digits = 3) {
  if (!Number.isFinite(ns)) return '–';
  const [unit, size] = unitFor(ns);
  if (size === 1) return `${Math.round(ns)} ns`;
  return `${trimZeros((ns / size).toFixed(digits))} ${unit}`;
}

/**
 * A timestamp relative to the trace start, exact to the ns when it matters:
 * 1234550000 -> "1.23455 s". Uses more digits than a duration so that two
 * distinct times never print the same.
 * @param {number} ns
 */
export function formatTime(ns) {
  if (!Number.isFinite(ns)) return '–';
  const [unit, size] = unitFor(ns);
  if (size === 1) return `${Math.round(ns)} ns`;
  const digits = Math.round(Math.log10(size));
  return `${trimZeros((ns / size).toFixed(digits))} ${unit}`;
}

/**
 * A ruler label at a tick of `step` ns: as many fraction digits as the step needs
 * in the chosen unit, so ticks 1.5 ms and 2 ms read "1.5 ms", "2 ms".
 * @param {number} ns
 * @param {number} step
 * @param {[Unit, number]} unit
 */
export function formatTick(ns, step, unit) {
  const [name, size] = unit;
  const digits = Math.max(0, Math.ceil(-Math.log10(step / size) - 1e-9));
  return `${trimZeros((ns / size).toFixed(Math.min(digits, 9)))} ${name}`;
}

/**
 * A count with thousands separators ("12,345").
 * @param {number} n
 */
export function formatCount(n) {
  return COUNT.format(n);
}

/** One formatter: `toLocaleString` builds one per call (0.1 ms, every frame while filtering tracks). */
const COUNT = new Intl.NumberFormat('en-US');

/**
 * A counter value: integers exactly, others with 4 significant digits.
 * @param {number} v
 */
export function formatValue(v) {
  if (Number.isInteger(v)) return formatCount(v);
  if (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3) return v.toPrecision(4);
  return trimZeros(v.toFixed(Math.max(0, 3 - Math.floor(Math.log10(Math.abs(v) || 1)))));
}

/**
 * Escape text for HTML.
 * @param {string} s
 */
export function esc(s) {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
