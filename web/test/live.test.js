import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stuckWindow, clock } from '../live.js';

test('stick to the end: the window keeps its width and ends just after the newest event', () => {
  assert.deepEqual(stuckWindow({ t0: 1000, t1: 2000 }, 10_000), { t0: 9020, t1: 10_020 });
});

test('the time of the last update reads HH:MM:SS', () => {
  const ms = new Date(2026, 10, 24, 9, 5, 7).getTime();
  assert.equal(clock(ms), '09:05:07');
});
