import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimeScale } from '../timescale.js';

test('ns <-> px round trip', () => {
  const s = new TimeScale(1000, 5000, 400);
  assert.equal(s.nsPerPx, 10);
  assert.equal(s.toPx(1000), 0);
  assert.equal(s.toPx(3000), 200);
  assert.equal(s.toNs(400), 5000);
});

test('zoom keeps the time under the mouse fixed', () => {
  const s = new TimeScale(0, 1000, 100);
  const before = s.toNs(25);
  s.zoom(0.5, 25);
  assert.equal(s.t1 - s.t0, 500);
  assert.ok(Math.abs(s.toNs(25) - before) < 1e-9);
  s.zoom(1e-9, 25);
  assert.equal(s.t1 - s.t0, 10, 'never narrower than the minimum span');
});

test('pan moves by pixels', () => {
  const s = new TimeScale(0, 1000, 100);
  s.pan(10);
  assert.deepEqual([s.t0, s.t1], [100, 1100]);
});

test('resize keeps the scale', () => {
  const s = new TimeScale(0, 1000, 100);
  s.resize(200);
  assert.deepEqual([s.t0, s.t1], [0, 2000]);
});

test('ticks follow 1-2-5 steps in adaptive units relative to the origin', () => {
  const s = new TimeScale(1000, 4000, 600); // 3 µs over 600 px: 5 ns/px
  const { step, ticks } = s.ticks(1000, 90);
  assert.equal(step, 500);
  assert.deepEqual(ticks.map((t) => t.label), ['0 µs', '0.5 µs', '1 µs', '1.5 µs', '2 µs', '2.5 µs', '3 µs']);
  assert.equal(ticks[1].px, 100);
  const big = new TimeScale(0, 10e9, 1000);
  assert.deepEqual(big.ticks(0, 90).ticks.slice(0, 3).map((t) => t.label), ['0 s', '1 s', '2 s']);
  const ms = new TimeScale(0, 20e6, 1000);
  assert.equal(ms.ticks(0, 90).ticks[1].label, '2 ms');
  const deep = new TimeScale(1_234_500_000, 1_234_500_500, 1000); // 500 ns at 1.2345 s
  const labels = deep.ticks(0, 90).ticks.map((t) => t.label);
  assert.equal(labels[0], '1234500 µs');
  assert.equal(labels[1], '1234500.05 µs');
});
