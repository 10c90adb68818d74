// Details of the items the details panel does not know by itself: an instant
// (name, category, scope, time, thread, process, args, the raw event) and a
// screenshot (the image, its time). Written into the details panel's element.
import { argsSection, rawEvent } from './details.js';
import { esc, formatDuration, formatTime } from './format.js';

/** @typedef {import('./details.js').DetailsPanel} DetailsPanel */
/** @typedef {import('./types.js').InstantDetails} InstantDetails */
/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {import('./timeline.js').Selection} Selection */

const SCOPES = /** @type {Record<string, string>} */ ({ t: 'thread', p: 'process', g: 'global' });

/** @param {Array<[string, string]>} rows */
function facts(rows) {
  return `<table class="facts">${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>`;
}

/**
 * Labels of a process and a thread by id, from the summary.
 * @param {Summary} s @param {number|null} process @param {number|null} thread
 */
export function placeLabels(s, process, thread) {
  const p = s.processes.find((x) => x.id === process) ?? null;
  const th = thread === null ? null : s.processes.flatMap((x) => x.threads).find((x) => x.id === thread) ?? null;
  return { process: p ? p.label : null, thread: th ? th.label : null };
}

/**
 * @param {DetailsPanel} panel
 * @param {InstantDetails} d
 * @param {Summary} summary
 */
export function showInstant(panel, d, summary) {
  panel.onShow(false);
  const where = placeLabels(summary, d.process, d.thread);
  /** @type {Array<[string, string]>} */
  const rows = [
    ['Category', esc(d.cat || '–')],
    ['Start', formatTime(d.ts - summary.start_ns)],
    ['Scope', `${SCOPES[d.scope] ?? esc(d.scope)} <span class="muted">(ph ${esc(d.ph)})</span>`],
  ];
  if (where.thread) rows.push(['Thread', esc(where.thread)]);
  if (where.process) rows.push(['Process', esc(where.process)]);
  panel.el.innerHTML = `<h2>${esc(d.name || '(unnamed)')} <span class="muted">instant ${d.id}</span></h2>` +
    `<div class="cols"><section class="facts-col">${facts(rows)}</section></div>`;
  const cols = /** @type {HTMLElement} */ (panel.el.querySelector('.cols'));
  cols.append(argsSection(d));
  const raw = rawEvent(d.raw);
  if (raw) panel.el.append(raw);
}

/**
 * A screenshot: the image at its size (up to the panel's), and its time.
 * @param {DetailsPanel} panel
 * @param {Selection} sel
 * @param {string} url
 * @param {number} origin
 */
export function showScreenshot(panel, sel, url, origin) {
  panel.onShow(false);
  const shown = (sel.count ?? 1) > 1
    ? `<span class="muted">${sel.count} screenshots in this pixel: zoom in to see each</span>`
    : sel.dur > 0 ? `${formatDuration(sel.dur)} (until the next one)` : '–';
  /** @type {Array<[string, string]>} */
  const rows = [['Taken at', formatTime(sel.ts - origin)], ['Shown for', shown]];
  panel.el.innerHTML = `<h2>Screenshot <span class="muted">snapshot ${sel.id}</span></h2>` +
    `<div class="cols"><section class="facts-col">${facts(rows)}</section>` +
    `<section><img class="shot" src="${esc(url)}" alt="Screenshot at ${esc(formatTime(sel.ts - origin))}"></section></div>`;
}
