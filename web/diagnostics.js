// The diagnostics badge: what the reader repaired or could not place, per kind.
// Errors (something dropped or made up) are loud, warnings (a repair by rule) are
// marked, infos (what real producers routinely write) are quiet: a Chrome trace full
// of flows cut off by its ring buffer is not a damaged trace.
import { esc, formatCount } from './format.js';

/** @typedef {'error'|'warning'|'info'} Severity */

/** @type {Severity[]} */
const ORDER = ['error', 'warning', 'info'];

/** @type {Record<Severity, string>} */
const ICON = { error: '✖', warning: '⚠', info: 'ℹ' };

/** @type {Record<Severity, string>} */
const MEANING = {
  error: 'something the trace says was dropped or made up',
  warning: 'repaired by a rule that may not be what the writer meant',
  info: 'what real producers routinely write; nothing lost',
};

/**
 * @param {import('./types.js').Diagnostic} d
 * @returns {Severity}
 */
function severityOf(d) {
  return d.severity === 'error' || d.severity === 'info' ? d.severity : 'warning';
}

/**
 * What the badge says: the worst severity present names it, the others follow.
 * @param {import('./types.js').Diagnostic[]} diags
 * @returns {{level: Severity|null, text: string, title: string, counts: Record<Severity, number>}}
 */
export function badgeState(diags) {
  /** @type {Record<Severity, number>} */
  const counts = { error: 0, warning: 0, info: 0 };
  for (const d of diags) counts[severityOf(d)] += d.count;
  const present = ORDER.filter((s) => counts[s] > 0);
  if (present.length === 0) return { level: null, text: 'No diagnostics', title: 'The reader repaired nothing', counts };
  const word = (/** @type {Severity} */ s) => `${formatCount(counts[s])} ${s === 'info' ? 'info' : s + (counts[s] === 1 ? '' : 's')}`;
  const level = present[0];
  const text = `${ICON[level]} ${[level, ...present.slice(1)].map(word).join(' · ')}`;
  const title = present.map((s) => `${word(s)}: ${MEANING[s]}`).join('\n');
  return { level, text, title, counts };
}

/**
 * @param {HTMLButtonElement} badge
 * @param {HTMLElement} popup
 * @param {import('./types.js').Diagnostic[]} diags
 */
export function setupDiagnostics(badge, popup, diags) {
  const st = badgeState(diags);
  badge.textContent = st.text;
  badge.title = st.title;
  badge.disabled = st.level === null;
  badge.dataset.severity = st.level ?? '';
  badge.classList.toggle('has', st.level === 'warning');
  // Colours inline: the page's stylesheet knows only one warning colour.
  const s = badge.style;
  s.color = st.level === 'error' ? '#fff' : st.level === 'info' ? 'var(--muted)' : '';
  s.background = st.level === 'error' ? '#dc2626' : '';
  s.borderColor = st.level === 'error' ? '#dc2626' : '';
  s.fontWeight = st.level === 'error' ? '700' : st.level === 'info' ? 'normal' : '';
  const rows = [...diags].sort((a, b) => ORDER.indexOf(severityOf(a)) - ORDER.indexOf(severityOf(b)) || (a.offset ?? 0) - (b.offset ?? 0));
  const colour = { error: '#dc2626', warning: 'var(--warn)', info: 'var(--muted)' };
  popup.innerHTML =
    '<h2>Diagnostics</h2><table class="diag"><tr><th>Severity</th><th>Kind</th><th>Count</th><th>First at byte</th><th>Example</th></tr>' +
    rows
      .map((d) => {
        const sev = severityOf(d);
        return (
          `<tr data-kind="${esc(d.kind)}" data-severity="${sev}"><td style="white-space:nowrap;color:${colour[sev]};font-weight:${sev === 'info' ? 'normal' : '600'}">${ICON[sev]} ${sev}</td>` +
          `<td><b>${esc(d.kind)}</b>${d.description ? `<div class="muted">${esc(d.description)}</div>` : ''}</td>` +
          `<td>${formatCount(d.count)}</td><td>${d.offset ?? '–'}</td><td><code>${esc(d.example ?? '')}</code></td></tr>`
        );
      })
      .join('') +
    '</table><p class="muted">Errors: ' + MEANING.error + '. Warnings: ' + MEANING.warning + '. Infos: ' + MEANING.info +
    '. Every occurrence: <code>tracescope tables FILE --table diagnostics</code>.</p>';
  badge.addEventListener('click', () => {
    popup.hidden = !popup.hidden;
  });
}
