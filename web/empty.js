// An empty trace: nothing has a time, so there is no axis to draw. The page says
// so, and what the file does hold (named processes and threads, diagnostics),
// and lists those names with their toggles open.
import { esc, formatCount } from './format.js';

/** @typedef {import('./types.js').Summary} Summary */

/**
 * The message for a trace with nothing to draw, or null when it has something.
 * @param {Summary} s
 * @returns {string|null}
 */
export function emptyTraceMessage(s) {
  // The server sends null times for a trace without timed events.
  const [t0, t1] = /** @type {Array<number|null|undefined>} */ ([s.start_ns, s.end_ns]);
  if (typeof t0 === 'number' && typeof t1 === 'number') return null;
  const threads = s.processes.reduce((n, p) => n + p.threads.length, 0);
  const facts = [];
  if (s.events > 0) facts.push(`${formatCount(s.events)} event${s.events === 1 ? '' : 's'}, none with a time (metadata only)`);
  if (s.processes.length > 0) {
    const names = s.processes.slice(0, 5).map((p) => esc(p.label)).join(', ');
    facts.push(`${s.processes.length} process${s.processes.length === 1 ? '' : 'es'} and ${threads} thread${threads === 1 ? '' : 's'} named: ${names}${s.processes.length > 5 ? ', …' : ''}`);
  }
  const diags = s.diagnostics.reduce((n, d) => n + d.count, 0);
  if (diags > 0) facts.push(`${formatCount(diags)} diagnostic${diags === 1 ? '' : 's'}: see the badge above`);
  const list = facts.length ? `<ul>${facts.map((f) => `<li>${f}</li>`).join('')}</ul>` : '';
  const head = s.events === 0 ? 'This trace is empty: it holds no events.' : 'Nothing to draw: none of this trace’s events has a time.';
  return `<div><b>${head}</b></div>${list}` +
    '<div class="muted">A trace needs events such as <code>{"ph":"X","ts":0,"dur":10,"pid":1,"tid":1,"name":"work"}</code>.</div>';
}

/**
 * Folds that open every "N empty" toggle: in a trace with nothing to draw, the
 * names are all there is.
 * @param {Summary} s
 * @returns {Record<string, boolean>}
 */
export function openEmpty(s) {
  /** @type {Record<string, boolean>} */
  const folds = { empty: false };
  for (const p of s.processes) folds[`P${p.id}:empty`] = false;
  return folds;
}
