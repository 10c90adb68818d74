// A node http server serving web/ and answering docs/api.md from a MockModel.
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { range, rangeSlices, profile } from './mock-analysis.mjs';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * @param {string} webDir
 * @param {import('./mock-model.mjs').MockModel} model
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function startMockServer(webDir, model) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const json = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const p = url.pathname;
    const q = (k) => url.searchParams.get(k);
    try {
      if (p === '/api/summary') return json(200, model.summary);
      // What the real server answers when it does not follow a growing file.
      if (p === '/api/version') return json(200, { version: 1, follow: false });
      let m;
      if ((m = p.match(/^\/api\/track\/(.+)$/))) {
        const t = model.track(decodeURIComponent(m[1]), Number(q('t0')), Number(q('t1')), Number(q('px')));
        return t ? json(200, t) : json(404, { error: 'no such track' });
      }
      if ((m = p.match(/^\/api\/(slice|async)\/(\d+)$/))) {
        const d = model.item(m[1], Number(m[2]));
        return d ? json(200, d) : json(404, { error: `no such ${m[1]}` });
      }
      const rq = () => ({ t0: Number(q('t0')), t1: Number(q('t1')), by: q('by') || 'name', name: q('name'),
        tracks: q('tracks') === null ? null : q('tracks').split(',') });
      if (p === '/api/range') return json(200, range(model, rq()));
      if (p === '/api/range/slices') return json(200, rangeSlices(model, rq(), q('key'), Number(q('limit') || 1000)));
      if (p === '/api/profile') {
        const times = q('t0') === null ? { t0: null, t1: null } : { t0: Number(q('t0')), t1: Number(q('t1')) };
        return json(200, profile(model.profiles, { ...times, tracks: q('tracks') === null ? null : q('tracks').split(','), view: q('view') || 'top-down' }));
      }
      if ((m = p.match(/^\/api\/object\/(\d+)$/))) {
        const o = model.objects[Number(m[1])];
        return o ? json(200, o) : json(404, { error: 'no such object' });
      }
      if (p === '/api/flows') return json(200, model.flows(Number(q('t0')), Number(q('t1'))));
      if (p === '/api/search') {
        return json(200, model.search(q('q') || '', { offset: Number(q('offset') || 0), limit: Number(q('limit') || 1000),
          sort: q('sort') || 'time', order: q('order') || undefined }));
      }
      if (p.startsWith('/api/')) return json(404, { error: 'no such endpoint' });
      const name = p === '/' ? 'index.html' : path.normalize(p).replace(/^\/+/, '');
      if (name.includes('..') || !TYPES[path.extname(name)]) return json(404, { error: 'not found' });
      const body = await fs.readFile(path.join(webDir, name));
      res.writeHead(200, { 'content-type': TYPES[path.extname(name)] });
      res.end(body);
    } catch (e) {
      json(404, { error: String(e.message) });
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(() => r())) };
}
