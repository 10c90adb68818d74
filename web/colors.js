// Slice colours: a stable hash of the name picks a palette entry, so a function has
// the same colour in every trace and every session; Chrome's reserved `cname`
// colour names win when the trace sets one.

/** Chrome's reserved colour names (catapult's color_scheme.js) as [r, g, b]. */
/** @type {Record<string, [number, number, number]>} */
export const CNAMES = {
  thread_state_uninterruptible: [182, 125, 143],
  thread_state_iowait: [255, 140, 0],
  thread_state_running: [126, 200, 148],
  thread_state_runnable: [133, 160, 210],
  thread_state_unknown: [199, 155, 125],
  background_memory_dump: [0, 180, 180],
  light_memory_dump: [0, 0, 180],
  detailed_memory_dump: [180, 0, 180],
  vsync_highlight_color: [0, 0, 255],
  generic_work: [125, 125, 125],
  good: [0, 125, 0],
  bad: [180, 125, 0],
  terrible: [180, 0, 0],
  black: [0, 0, 0],
  grey: [221, 221, 221],
  white: [255, 255, 255],
  yellow: [255, 255, 0],
  olive: [100, 100, 0],
  rail_response: [67, 135, 253],
  rail_animation: [244, 74, 63],
  rail_idle: [238, 142, 0],
  rail_load: [13, 168, 97],
  startup: [230, 230, 0],
  heap_dump_stack_frame: [128, 128, 128],
  heap_dump_object_type: [0, 0, 255],
  heap_dump_child_node_highlight: [255, 0, 0],
  cq_build_running: [255, 255, 119],
  cq_build_passed: [153, 238, 102],
  cq_build_failed: [238, 136, 136],
  cq_build_abandoned: [187, 187, 187],
  cq_build_attempt_runnig: [222, 222, 75],
  cq_build_attempt_passed: [103, 218, 35],
  cq_build_attempt_failed: [197, 81, 81],
};

/** Number of hashed palette entries. */
export const PALETTE_SIZE = 30;

/**
 * 32-bit FNV-1a of a string: fast, stable across sessions and browsers.
 * @param {string} s
 */
export function hashName(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Palette index of a name. Digits are ignored so `Task 1` and `Task 2` look alike.
 * @param {string} name
 */
export function paletteIndex(name) {
  return hashName(name.replace(/[0-9]+/g, '')) % PALETTE_SIZE;
}

/**
 * The palette for a theme: hues spread around the wheel, alternating lightness so
 * neighbours differ; muted in light mode, deeper in dark mode.
 * @param {boolean} dark
 * @returns {string[]}
 */
export function palette(dark) {
  const cached = dark ? PALETTES.dark : PALETTES.light;
  if (cached) return cached;
  /** @type {string[]} */
  const out = [];
  for (let i = 0; i < PALETTE_SIZE; i++) {
    const hue = Math.round((i * 360 * 7) / PALETTE_SIZE) % 360;
    const sat = 45 + (i % 3) * 10;
    const light = dark ? 36 + (i % 2) * 8 : 62 + (i % 2) * 10;
    out.push(`hsl(${hue} ${sat}% ${light}%)`);
  }
  if (dark) PALETTES.dark = out;
  else PALETTES.light = out;
  return out;
}

/** Both palettes, built once: colours are looked up for every new name of every tile. */
/** @type {{light: string[]|null, dark: string[]|null}} */
const PALETTES = { light: null, dark: null };

/**
 * The fill for an item: its `cname` if reserved, else its name's palette entry.
 * @param {string} name
 * @param {string | null | undefined} cname
 * @param {boolean} dark
 */
export function colorFor(name, cname, dark) {
  const key = `${dark ? 1 : 0}${cname ?? ''}\u0000${name}`;
  let c = memo.get(key);
  if (c === undefined) {
    if (memo.size > 50000) memo.clear();
    c = computeColor(name, cname, dark);
    memo.set(key, c);
  }
  return c;
}

/** @type {Map<string, string>} colours by theme, cname and name: names repeat endlessly */
const memo = new Map();

/** @param {string} name @param {string | null | undefined} cname @param {boolean} dark */
function computeColor(name, cname, dark) {
  if (cname && Object.prototype.hasOwnProperty.call(CNAMES, cname)) {
    const [r, g, b] = CNAMES[cname];
    return `rgb(${r} ${g} ${b})`;
  }
  return palette(dark)[paletteIndex(name)];
}

/**
 * Whether text on a fill should be dark: relative luminance of an `rgb()` or
 * `hsl()` colour string as produced here.
 * @param {string} fill
 */
export function needsDarkText(fill) {
  const rgb = fill.match(/^rgb\((\d+) (\d+) (\d+)\)$/);
  if (rgb) {
    const [r, g, b] = rgb.slice(1).map(Number);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > 140;
  }
  const hsl = fill.match(/^hsl\(\d+ \d+% (\d+)%\)$/);
  return hsl ? Number(hsl[1]) >= 55 : true;
}
