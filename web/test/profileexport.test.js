import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableText } from '../export.js';
import { treeTable, functionsTable } from '../profileexport.js';

// main (30 µs, self 10) > parse (15, self 15), main > "" (5, self 5, anonymous).
const answer = {
  view: 'top-down', samples: 4, total_ns: 30000, truncated: false,
  strings: ['main', 'parse', '', 'app.js'],
  nodes: {
    parent: [-1, 0, 0], depth: [0, 1, 1], name: [0, 1, 2], url: [3, 3, -1], line: [10, 20, -1], column: [2, -1, -1],
    self: [10000, 15000, 5000], total: [30000, 15000, 5000], self_samples: [2, 1, 1], total_samples: [4, 1, 1],
  },
};

test('a tree of slices: every node with depth, stack, raw times and count', () => {
  const t = treeTable(/** @type {any} */ (answer), true);
  assert.equal(tableText(t.columns, t.order, 'csv'), [
    'Depth,Function,Stack,Self (ns),Total (ns),Count',
    '0,main,main,10000,30000,2',
    '1,parse,main > parse,15000,15000,1',
    '1,(anonymous),main > (anonymous),5000,5000,1',
    '',
  ].join('\r\n'));
});

test('a tree of samples: samples and the source location, empty when unknown', () => {
  const t = treeTable(/** @type {any} */ (answer), false);
  assert.equal(tableText(t.columns, t.order, 'tsv'), [
    'Depth\tFunction\tStack\tSelf (ns)\tTotal (ns)\tSamples\tLocation',
    '0\tmain\tmain\t10000\t30000\t4\tapp.js:10:2',
    '1\tparse\tmain > parse\t15000\t15000\t1\tapp.js:20',
    '1\t(anonymous)\tmain > (anonymous)\t5000\t5000\t1\t',
    '',
  ].join('\r\n'));
});

test('the sandwich functions in the order given, names with commas quoted', () => {
  const rows = [
    { name: 'a, b', url: null, line: -1, column: -1, self: 1, total: 2, count: 3 },
    { name: 'c', url: 'x.js', line: 5, column: -1, self: 4, total: 5, count: 6 },
  ];
  const t = functionsTable(rows, [1, 0], true);
  assert.equal(tableText(t.columns, t.order, 'csv'), 'Function,Self (ns),Total (ns),Count\r\nc,4,5,6\r\n"a, b",1,2,3\r\n');
  const s = functionsTable(rows, [1, 0], false);
  assert.equal(tableText(s.columns, s.order, 'csv').split('\r\n')[1], 'c,4,5,6,x.js:5');
});
