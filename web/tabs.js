// The bottom panel: tabs (Details, Range, Profile) over one area, shown when any
// tab has something; its top edge can be dragged to resize it.

export class Tabs {
  /**
   * @param {HTMLElement} root the panel (`#bottom`)
   * @param {HTMLElement} bar the tab bar inside it
   * @param {HTMLElement} grip the resize handle on its top edge
   * @param {() => void} onResize the rest of the page changed size
   */
  constructor(root, bar, grip, onResize) {
    this.root = root;
    this.bar = bar;
    /** @type {Map<string, {button: HTMLButtonElement, panel: HTMLElement}>} */
    this.tabs = new Map();
    /** @type {string|null} */
    this.active = null;
    this.onResize = onResize;
    /** @type {(name: string) => void} a tab came to the front */
    this.onShow = () => {};
    /** @type {() => void} the panel closed */
    this.onClose = () => {};
    bar.addEventListener('click', (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest('button[data-tab]');
      if (b) this.show(/** @type {string} */ (/** @type {HTMLElement} */ (b).dataset.tab));
    });
    grip.addEventListener('pointerdown', (e) => {
      const startY = e.clientY;
      const startH = root.getBoundingClientRect().height;
      grip.setPointerCapture(e.pointerId);
      const move = (/** @type {PointerEvent} */ m) => {
        const h = Math.max(90, Math.min(window.innerHeight - 120, startH + startY - m.clientY));
        root.style.height = `${h}px`;
        this.onResize();
      };
      const up = () => {
        grip.removeEventListener('pointermove', move);
        grip.removeEventListener('pointerup', up);
      };
      grip.addEventListener('pointermove', move);
      grip.addEventListener('pointerup', up);
    });
  }

  /**
   * @param {string} name
   * @param {string} label
   * @param {HTMLElement} panel
   */
  add(name, label, panel) {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.tab = name;
    button.setAttribute('role', 'tab');
    button.textContent = label;
    button.hidden = true;
    this.bar.append(button);
    panel.hidden = true;
    panel.setAttribute('role', 'tabpanel');
    this.tabs.set(name, { button, panel });
  }

  /** Make a tab available and bring it to the front. @param {string} name */
  show(name) {
    const t = this.tabs.get(name);
    if (!t) return;
    t.button.hidden = false;
    this.active = name;
    for (const [n, x] of this.tabs) {
      x.panel.hidden = n !== name;
      x.button.setAttribute('aria-selected', String(n === name));
    }
    this.setOpen(true);
    this.onShow(name);
  }

  /** Show a tab's button without opening the panel. @param {string} name */
  enable(name) {
    const t = this.tabs.get(name);
    if (t) t.button.hidden = false;
  }

  /** Make a tab available without bringing it to the front. @param {string} name */
  offer(name) {
    const t = this.tabs.get(name);
    if (!t) return;
    t.button.hidden = false;
    if (this.active === null) this.show(name);
  }

  /** Remove a tab (nothing to show); the next available one comes to the front. @param {string} name */
  remove(name) {
    const t = this.tabs.get(name);
    if (!t) return;
    t.button.hidden = true;
    t.panel.hidden = true;
    if (this.active !== name) return;
    this.active = null;
    const next = [...this.tabs].find(([, x]) => !x.button.hidden);
    if (next) this.show(next[0]);
    else this.setOpen(false);
  }

  /** @param {boolean} open */
  setOpen(open) {
    if (this.root.hidden === !open) return;
    this.root.hidden = !open;
    if (!open) this.onClose();
    this.onResize();
  }
}
