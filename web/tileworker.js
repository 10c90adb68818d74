// Fetches and parses track tiles off the main thread, so a burst of tiles arriving
// while the user zooms never steals time from drawing. Columns come back as typed
// arrays whose buffers are transferred, not copied.

/** @type {Map<string, AbortController>} */
const inflight = new Map();

/** Columns of numbers to typed arrays (`scope` and `strings` stay as they are). */
const F64 = new Set(['ts', 'dur', 'value', 'min', 'max']);
const I32 = new Set(['row', 'id', 'name', 'count', 'flags', 'color']);

/**
 * @param {Record<string, unknown>} obj
 * @param {ArrayBuffer[]} buffers
 */
function typed(obj, buffers) {
  for (const [k, v] of Object.entries(obj)) {
    if (!Array.isArray(v)) continue;
    const T = F64.has(k) ? Float64Array : I32.has(k) ? Int32Array : null;
    if (!T) continue;
    const a = T.from(/** @type {number[]} */ (v));
    buffers.push(a.buffer);
    obj[k] = a;
  }
}

// The page sends a frame's requests and aborts together, as one array.
self.onmessage = (/** @type {MessageEvent} */ e) => {
  for (const m of [e.data].flat()) handle(m);
};

/** @param {{key: string, url?: string, abort?: boolean}} m */
async function handle(m) {
  const { key, url, abort } = m;
  if (abort) {
    inflight.get(key)?.abort();
    inflight.delete(key);
    return;
  }
  const ctrl = new AbortController();
  inflight.set(key, ctrl);
  const began = performance.now();
  try {
    const res = await fetch(/** @type {string} */ (url), { signal: ctrl.signal });
    const text = await res.text();
    const ms = performance.now() - began;
    const data = JSON.parse(text);
    if (!res.ok) throw new Error((data && data.error) || `${res.status} for ${url}`);
    /** @type {ArrayBuffer[]} */
    const buffers = [];
    typed(data, buffers);
    if (data.instants) typed(data.instants, buffers);
    self.postMessage({ key, data, ms, bytes: text.length }, { transfer: buffers });
  } catch (err) {
    const error = /** @type {Error} */ (err);
    self.postMessage({ key, error: error.name === 'AbortError' ? 'abort' : error.message, ms: performance.now() - began });
  } finally {
    inflight.delete(key);
  }
}
