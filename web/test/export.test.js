import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableText, fileName } from '../export.js';

/** @type {import('../export.js').ExportColumn[]} */
const columns = [
  { label: 'Name', value: (i) => ['RunTask', 'say "hi", then go', 'tab\there', ''][i] },
  { label: 'Total', unit: 'ns', value: (i) => [1500, 2, 3, 4][i] },
  { label: 'Thread time', unit: 'ns', value: (i) => [null, 7, null, 0][i] },
];

test('CSV: header with units, raw values, quotes where needed, CRLF lines', () => {
  assert.equal(tableText(columns, [1, 0, 3], 'csv'),
    'Name,Total (ns),Thread time (ns)\r\n"say ""hi"", then go",2,7\r\nRunTask,1500,\r\n,4,0\r\n');
});

test('TSV for the clipboard: tabs inside cells become spaces', () => {
  assert.equal(tableText(columns, [2], 'tsv'), 'Name\tTotal (ns)\tThread time (ns)\r\ntab here\t3\t\r\n');
});

test('file names keep letters, digits, dots and dashes', () => {
  assert.equal(fileName('range', 'Run Task/1', 0, 1500, 'by-name'), 'range-Run-Task-1-0-1500-by-name');
  assert.equal(fileName('range', '', 5, 6, 'counters'), 'range-5-6-counters');
});
