import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExact, ExactNumber } from '../exactjson.js';

test('numbers keep their text: 64-bit ids are not rounded', () => {
  const v = /** @type {any} */ (parseExact('{"main_frame_id":14107898137686480567,"f":1.50,"a":[-3,2e3],"s":"x\\"y","t":true,"n":null}'));
  assert.ok(v.main_frame_id instanceof ExactNumber);
  assert.equal(String(v.main_frame_id), '14107898137686480567');
  assert.equal(JSON.parse('14107898137686480567'), 14107898137686480000, 'what JSON.parse would show');
  assert.deepEqual([String(v.f), String(v.a[0]), String(v.a[1])], ['1.50', '-3', '2e3']);
  assert.deepEqual([v.s, v.t, v.n], ['x"y', true, null]);
});

test('bad JSON throws', () => {
  for (const bad of ['{', '{"a" 1}', '[1,]x', '01', '"abc']) assert.throws(() => parseExact(bad), SyntaxError, bad);
  assert.deepEqual(parseExact(' [ ] '), []);
});
