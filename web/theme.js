// Light and dark: follow the system, or the user's choice (a toolbar button that
// cycles system -> light -> dark), kept in localStorage. The theme in effect is
// `data-theme` on <html>, which style.css reads; the canvas reads the same
// variables.

/** @typedef {import('./state.js').ThemeChoice} ThemeChoice */
/** @typedef {import('./state.js').Store} Store */

const KEY = 'tracescope.theme';
/** @type {ThemeChoice[]} */
export const CHOICES = ['system', 'light', 'dark'];
const LABEL = { system: '◐ System', light: '☀ Light', dark: '☾ Dark' };

/** The next choice of the cycle. @param {ThemeChoice} c @returns {ThemeChoice} */
export function nextTheme(c) {
  return CHOICES[(CHOICES.indexOf(c) + 1) % CHOICES.length];
}

/** The theme in effect for a choice. @param {ThemeChoice} c @param {boolean} systemDark */
export function effectiveTheme(c, systemDark) {
  return c === 'system' ? (systemDark ? 'dark' : 'light') : c;
}

/**
 * @param {HTMLButtonElement} button
 * @param {Store} store
 */
export function setupTheme(button, store) {
  const media = matchMedia('(prefers-color-scheme: dark)');
  /** @type {string|null} */
  let saved = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch {
    // Storage may be off (private windows): the choice lasts for this page only.
  }
  const show = () => {
    const c = store.state.theme;
    document.documentElement.dataset.theme = effectiveTheme(c, media.matches);
    button.textContent = LABEL[c];
    button.title = `Theme: ${c === 'system' ? 'as the system' : c} (click for ${nextTheme(c)})`;
  };
  if (CHOICES.includes(/** @type {ThemeChoice} */ (saved))) store.set({ theme: /** @type {ThemeChoice} */ (saved) });
  show();
  // Registered before the canvas's listeners, so they read the new colours.
  media.addEventListener('change', show);
  store.on(['theme'], (s) => {
    show();
    try {
      localStorage.setItem(KEY, s.theme);
    } catch {
      // As above.
    }
  });
  button.addEventListener('click', () => store.set({ theme: nextTheme(store.state.theme) }));
}
