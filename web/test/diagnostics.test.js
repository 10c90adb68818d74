import { test } from 'node:test';
import assert from 'node:assert/strict';
import { badgeState } from '../diagnostics.js';

/**
 * @param {string} kind
 * @param {any} severity
 * @param {number} count
 */
const d = (kind, severity, count) => ({ kind, severity, count, offset: 0, example: null });

test('no diagnostics: a quiet, disabled badge', () => {
  const s = badgeState([]);
  assert.equal(s.level, null);
  assert.equal(s.text, 'No diagnostics');
});

test('the worst severity names the badge, the others follow', () => {
  const s = badgeState([d('unbound_flow', 'info', 741), d('syntax_error', 'error', 1), d('overlap', 'warning', 2), d('comment', 'info', 1)]);
  assert.equal(s.level, 'error');
  assert.equal(s.text, '✖ 1 error · 2 warnings · 742 info');
  assert.deepEqual(s.counts, { error: 1, warning: 2, info: 742 });
  assert.match(s.title, /^1 error: something the trace says was dropped or made up\n2 warnings: /);
});

test('infos alone are quiet', () => {
  const s = badgeState([d('unbound_flow', 'info', 2157)]);
  assert.equal(s.level, 'info');
  assert.equal(s.text, 'ℹ 2,157 info');
});

test('a diagnostic without a severity (an older server) counts as a warning', () => {
  assert.equal(badgeState([d('overlap', undefined, 1)]).text, '⚠ 1 warning');
});
