import { test } from 'node:test';
import assert from 'node:assert/strict';
import { colorFor, hashName, paletteIndex, palette, PALETTE_SIZE, needsDarkText } from '../colors.js';

test('hash is FNV-1a and stable', () => {
  assert.equal(hashName(''), 0x811c9dc5);
  assert.equal(hashName('a'), 0xe40c292c);
  assert.equal(hashName('RunTask'), hashName('RunTask'));
});

test('same name, same colour; digits do not matter', () => {
  assert.equal(colorFor('RunTask', null, false), colorFor('RunTask', null, false));
  assert.equal(paletteIndex('Task 1'), paletteIndex('Task 22'));
  const idx = new Set(['A', 'B', 'parent', 'child', 'main', 'RunTask', 'Paint', 'Layout'].map(paletteIndex));
  assert.ok(idx.size >= 5, 'names spread over the palette');
});

test('cname reserved colours win; unknown cname falls back to the name', () => {
  assert.equal(colorFor('x', 'terrible', false), 'rgb(180 0 0)');
  assert.equal(colorFor('x', 'good', true), 'rgb(0 125 0)');
  assert.equal(colorFor('x', 'not-a-colour', false), colorFor('x', null, false));
  assert.equal(colorFor('x', 'toString', false), colorFor('x', null, false));
});

test('light and dark palettes differ and have the full size', () => {
  assert.equal(palette(false).length, PALETTE_SIZE);
  assert.notDeepEqual(palette(false), palette(true));
});

test('text contrast', () => {
  assert.equal(needsDarkText('rgb(255 255 0)'), true);
  assert.equal(needsDarkText('rgb(0 0 180)'), false);
  assert.equal(needsDarkText('hsl(10 50% 70%)'), true);
  assert.equal(needsDarkText('hsl(10 50% 36%)'), false);
});
