import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, formatTime, formatTick, formatValue, unitFor } from '../format.js';

test('durations use the unit that keeps 1-3 integer digits', () => {
  assert.equal(formatDuration(76700), '76.7 µs');
  assert.equal(formatDuration(3000), '3 µs');
  assert.equal(formatDuration(2800), '2.8 µs');
  assert.equal(formatDuration(100), '100 ns');
  assert.equal(formatDuration(3100), '3.1 µs');
  assert.equal(formatDuration(0), '0 ns');
  assert.equal(formatDuration(1_500_000), '1.5 ms');
  assert.equal(formatDuration(12_345_678_901), '12.346 s');
  assert.equal(formatDuration(NaN), '–');
});

test('times keep every nanosecond', () => {
  assert.equal(formatTime(1234550000), '1.23455 s');
  assert.equal(formatTime(1100), '1.1 µs');
  assert.equal(formatTime(522975545427123), '522975.545427123 s');
  assert.equal(formatTime(999), '999 ns');
  assert.equal(formatTime(-1500), '-1.5 µs');
});

test('units', () => {
  assert.deepEqual(unitFor(999), ['ns', 1]);
  assert.deepEqual(unitFor(1000), ['µs', 1000]);
  assert.deepEqual(unitFor(2e9), ['s', 1e9]);
});

test('tick labels have the digits their step needs', () => {
  assert.equal(formatTick(1_500_000, 500_000, ['ms', 1e6]), '1.5 ms');
  assert.equal(formatTick(2_000_000, 500_000, ['ms', 1e6]), '2 ms');
  assert.equal(formatTick(20, 10, ['ns', 1]), '20 ns');
  assert.equal(formatTick(3e9, 1e9, ['s', 1e9]), '3 s');
});

test('counter values', () => {
  assert.equal(formatValue(12345), '12,345');
  assert.equal(formatValue(1.23456), '1.235');
  assert.equal(formatValue(0.5), '0.5');
});
