import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, MAX_INFLIGHT } from '../api.js';

/** An Api whose worker records requests and answers when told to. */
function fake() {
  const api = new Api('');
  /** @type {any[]} */
  const sent = [];
  /** @type {any} */
  const worker = { onmessage: null, postMessage: (/** @type {any} */ m) => sent.push(...[m].flat()) };
  api.makeWorker = () => worker;
  let tiles = 0;
  api.onTile = () => tiles++;
  const answer = (/** @type {string} */ key) => worker.onmessage({ data: { key, data: { ts: [], dur: [] }, ms: 1 } });
  return { api, sent, answer, tiles: () => tiles };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test('the same tile asked for twice is fetched once (coalescing)', async () => {
  const { api, sent, answer, tiles } = fake();
  api.beginFrame();
  assert.equal(api.tile('s:0:0', 10, 3), null);
  assert.equal(api.tile('s:0:0', 10, 3), null);
  api.endFrame();
  assert.equal(sent.length, 1);
  assert.match(sent[0].url, /\/api\/track\/s%3A0%3A0\?t0=3072&t1=4096&px=512$/);
  answer(sent[0].key);
  await tick();
  assert.equal(tiles(), 1);
  api.beginFrame();
  assert.ok(api.tile('s:0:0', 10, 3));
  api.endFrame();
  assert.equal(sent.length, 1, 'a loaded tile is not fetched again');
  assert.equal(api.isIdle(), true);
});

test('queued tiles the next frame does not want are dropped; in-flight ones are aborted', async () => {
  const { api, sent } = fake();
  api.beginFrame();
  for (let i = 0; i < MAX_INFLIGHT + 3; i++) api.tile('t', 8, i);
  api.endFrame();
  assert.equal(sent.length, MAX_INFLIGHT, 'at most MAX_INFLIGHT in flight');
  // The view moved: only tile 100 is wanted now.
  api.beginFrame();
  api.tile('t', 8, 100);
  api.endFrame();
  api.beginFrame();
  api.tile('t', 8, 100);
  api.endFrame();
  await tick();
  const aborted = sent.filter((m) => m.abort).map((m) => m.key);
  assert.deepEqual(aborted.sort(), ['t|8|0', 't|8|1', 't|8|2', 't|8|3']);
  const fetched = sent.filter((m) => m.url).map((m) => m.key);
  assert.ok(fetched.includes('t|8|100'));
  assert.ok(!fetched.includes(`t|8|${MAX_INFLIGHT}`), 'stale queued tiles are never fetched');
});

test('whenIdle resolves once every request is answered', async () => {
  const { api, sent, answer } = fake();
  api.beginFrame();
  api.tile('a', 7, 0);
  api.tile('b', 7, 0);
  api.endFrame();
  let idle = false;
  api.whenIdle().then(() => (idle = true));
  answer(sent[0].key);
  await tick();
  assert.equal(idle, false);
  answer(sent[1].key);
  await tick();
  assert.equal(idle, true);
});

test('range and profile requests: integer times, optional tracks and name', async () => {
  const { rangeParams, profileParams } = await import('../api.js');
  assert.equal(rangeParams({ t0: 10.7, t1: 20.2, tracks: null, name: null, by: 'name' }), 't0=10&t1=21&by=name');
  assert.equal(rangeParams({ t0: 0, t1: 5, tracks: ['s:0:0', 'c:1'], name: 'a b&c', by: 'thread' }), 't0=0&t1=5&by=thread&tracks=s%3A0%3A0%2Cc%3A1&name=a+b%26c');
  assert.equal(profileParams({ t0: null, t1: null, tracks: null, view: 'bottom-up' }), 'view=bottom-up&max_nodes=20000');
  assert.equal(profileParams({ t0: 1, t1: 9, tracks: ['p:0'], view: 'top-down', maxNodes: 50 }), 't0=1&t1=9&tracks=p%3A0&view=top-down&max_nodes=50');
});

test('refresh (a new version of a followed trace) fetches loaded tiles again and keeps drawing them meanwhile', async () => {
  const { api, sent, answer } = fake();
  api.beginFrame();
  api.tile('s:0:0', 10, 3);
  api.endFrame();
  answer(sent[0].key);
  await tick();
  const old = api.tile('s:0:0', 10, 3);
  assert.deepEqual(old?.data, { ts: [], dur: [] });
  api.refresh();
  assert.equal(sent.filter((m) => m.url).length, 2, 'asked again');
  api.beginFrame();
  assert.equal(api.tile('s:0:0', 10, 3), old, 'the old answer is drawn until the new one comes');
  api.endFrame();
  const worker = /** @type {any} */ (api.worker);
  worker.onmessage({ data: { key: sent[1].key, data: { ts: [5], dur: [1] }, ms: 1 } });
  await tick();
  assert.deepEqual(api.tile('s:0:0', 10, 3)?.data, { ts: [5], dur: [1] });
  assert.equal(api.isIdle(), true);
});

test('while the view moves, a tile is fetched only once a second frame wants it, or when the motion stops', async () => {
  const { api, sent } = fake();
  const urls = () => sent.filter((m) => m.url).map((m) => m.key);
  // A moving frame wants tiles 0 and 1; the next one (still moving) wants 1 and 2.
  api.beginFrame(true);
  api.tile('t', 8, 0);
  api.tile('t', 8, 1);
  api.endFrame();
  assert.deepEqual(urls(), [], 'nothing fetched after one frame of motion');
  api.beginFrame(true);
  api.tile('t', 8, 1);
  api.tile('t', 8, 2);
  api.endFrame();
  assert.deepEqual(urls(), ['t|8|1'], 'tile 1 was wanted twice; 0 was passed over, 2 waits');
  assert.equal(api.isIdle(), false);
  // No frame follows: the motion stopped, and tile 2 is fetched after SETTLE_MS.
  const { SETTLE_MS } = await import('../api.js');
  await new Promise((r) => setTimeout(r, SETTLE_MS + 20));
  assert.deepEqual(urls(), ['t|8|1', 't|8|2']);
  // A frame of a view at rest fetches at once.
  api.beginFrame(false);
  api.tile('t', 8, 5);
  api.endFrame();
  assert.deepEqual(urls(), ['t|8|1', 't|8|2', 't|8|5']);
});

test('while the view moves, fewer requests are in flight at once', async () => {
  const { MOVING_INFLIGHT } = await import('../api.js');
  const { api, sent } = fake();
  for (let f = 0; f < 2; f++) {
    api.beginFrame(true);
    for (let i = 0; i < 8; i++) api.tile('m', 9, i);
    api.endFrame();
  }
  assert.equal(sent.filter((m) => m.url).length, MOVING_INFLIGHT);
  assert.ok(MOVING_INFLIGHT < MAX_INFLIGHT);
  // At rest, up to MAX_INFLIGHT.
  api.beginFrame(false);
  for (let i = 0; i < 8; i++) api.tile('m', 9, i);
  api.endFrame();
  assert.equal(sent.filter((m) => m.url).length, MAX_INFLIGHT);
});
