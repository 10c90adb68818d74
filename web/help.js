// The `?` overlay: every keyboard and mouse shortcut.
import { SHORTCUTS } from './keys.js';
import { esc } from './format.js';

/** @param {HTMLElement} el */
export function setupHelp(el) {
  el.innerHTML =
    '<div class="help-box" role="dialog" aria-label="Keyboard shortcuts"><h2>Keyboard and mouse</h2><table>' +
    SHORTCUTS.map(([k, v]) => `<tr><th><kbd>${esc(k)}</kbd></th><td>${esc(v)}</td></tr>`).join('') +
    '</table><p class="muted">Press ? or Esc to close.</p></div>';
  el.addEventListener('click', (e) => {
    if (e.target === el) el.hidden = true;
  });
  return {
    toggle() {
      el.hidden = !el.hidden;
    },
    close() {
      el.hidden = true;
    },
  };
}
