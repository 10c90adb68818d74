// The diagnostics badge: what the reader repaired or could not place, per kind.
import { esc, formatCount } from './format.js';

/**
 * @param {HTMLButtonElement} badge
 * @param {HTMLElement} popup
 * @param {import('./types.js').Diagnostic[]} diags
 */
export function setupDiagnostics(badge, popup, diags) {
  const total = diags.reduce((n, d) => n + d.count, 0);
  badge.textContent = diags.length === 0 ? 'No diagnostics' : `⚠ ${formatCount(total)} diagnostic${total === 1 ? '' : 's'}`;
  badge.classList.toggle('has', diags.length > 0);
  badge.disabled = diags.length === 0;
  badge.title = diags.length === 0 ? 'The reader repaired nothing' : 'What the reader repaired or could not place';
  popup.innerHTML =
    '<h2>Diagnostics</h2><table class="diag"><tr><th>Kind</th><th>Count</th><th>First at byte</th><th>Example</th></tr>' +
    diags
      .map(
        (d) =>
          `<tr data-kind="${esc(d.kind)}"><td><b>${esc(d.kind)}</b>${d.description ? `<div class="muted">${esc(d.description)}</div>` : ''}</td>` +
          `<td>${formatCount(d.count)}</td><td>${d.offset ?? '–'}</td><td><code>${esc(d.example ?? '')}</code></td></tr>`,
      )
      .join('') +
    '</table>';
  badge.addEventListener('click', () => {
    popup.hidden = !popup.hidden;
  });
}
