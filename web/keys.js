// Keyboard navigation like the tools users know (chrome://tracing, Perfetto):
// W/S zoom at the mouse and A/D pan while held, smoothly, per animation frame.

/** Every shortcut, as the help overlay lists them. */
export const SHORTCUTS = [
  ['W / S', 'Zoom in / out at the mouse (hold)'],
  ['A / D', 'Pan left / right (hold)'],
  ['Wheel, Ctrl+wheel', 'Zoom at the mouse'],
  ['Shift+wheel, wheel over names', 'Scroll the tracks'],
  ['Drag', 'Pan (and scroll)'],
  ['Click', 'Select; click a process or group name to fold it'],
  ['Hover a track name', 'Pin it to the top, or hide it (the “hidden” button brings it back)'],
  ['Drag a track name', 'Reorder threads, processes, tracks of a group, pinned tracks'],
  ['Drag the names’ edge', 'Widen or narrow the names'],
  ['F', 'Zoom to the selection (whole trace if none)'],
  ['M', 'Mark the selection’s time range and show its statistics (again: clear)'],
  ['Shift+drag', 'Select a time range over the tracks under the drag (on the ruler: all tracks)'],
  ['← / →', 'Previous / next sibling'],
  ['↑ / ↓', 'Parent / first child'],
  ['/ or Ctrl+F', 'Search'],
  ['Enter / Shift+Enter', 'Next / previous match (in the search box)'],
  ['Esc', 'Clear selection, close overlays'],
  ['?', 'This help'],
];

/**
 * @typedef {{zoom: (factor: number) => void, pan: (px: number) => void, width: () => number,
 *   zoomToSelection: () => void, mark: () => void, help: () => void, search: () => void,
 *   escape: () => void, walk: (dir: 'left'|'right'|'up'|'down') => void}} KeyActions
 */

/**
 * Install the key handlers on `target` (the window).
 * @param {Window} target
 * @param {KeyActions} act
 */
export function installKeys(target, act) {
  /** @type {Set<string>} */
  const held = new Set();
  let last = 0;
  let running = false;

  const step = (/** @type {number} */ now) => {
    const dt = Math.min(0.05, (now - last) / 1000);
    last = now;
    if (held.size === 0) {
      running = false;
      return;
    }
    // About 3x zoom and most of a screen of pan per second, like chrome://tracing.
    if (held.has('w')) act.zoom(Math.exp(-dt * 2.5));
    if (held.has('s')) act.zoom(Math.exp(dt * 2.5));
    if (held.has('a')) act.pan(-dt * act.width() * 0.8);
    if (held.has('d')) act.pan(dt * act.width() * 0.8);
    requestAnimationFrame(step);
  };

  target.addEventListener('keydown', (e) => {
    const el = /** @type {HTMLElement|null} */ (e.target);
    // Keys go to text fields when one has focus; a checkbox or button does not type.
    const typing = el && (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || (el.tagName === 'INPUT' && !['checkbox', 'radio', 'button'].includes(/** @type {HTMLInputElement} */ (el).type)));
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') {
      e.preventDefault();
      act.search();
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if ('wasd'.includes(k) && k.length === 1) {
      e.preventDefault();
      held.add(k);
      if (!running) {
        running = true;
        last = performance.now();
        requestAnimationFrame(step);
      }
      return;
    }
    /** @type {Record<string, () => void>} */
    const map = {
      f: act.zoomToSelection,
      m: act.mark,
      '?': act.help,
      '/': act.search,
      Escape: act.escape,
      ArrowLeft: () => act.walk('left'),
      ArrowRight: () => act.walk('right'),
      ArrowUp: () => act.walk('up'),
      ArrowDown: () => act.walk('down'),
    };
    const f = map[k];
    if (f) {
      e.preventDefault();
      f();
    }
  });
  target.addEventListener('keyup', (e) => held.delete(e.key.toLowerCase()));
  target.addEventListener('blur', () => held.clear());
}
