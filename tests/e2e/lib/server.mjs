// Start `tracescope view FILE --no-open --port 0` and read the URL it prints.
import { spawn } from 'node:child_process';

/**
 * @param {string} bin path of the tracescope binary
 * @param {string} [file] trace to open; none: the built-in demo trace
 * @param {string[]} [extra] more arguments of `tracescope view`
 * @returns {Promise<{url: string, loadMs: number, stderr: () => string, close: () => Promise<void>}>}
 */
export function startServer(bin, file, extra = []) {
  const began = performance.now();
  const args = [...(file ? ['view', file, '--no-open', '--port', '0'] : ['view', '--no-open', '--port', '0']), ...extra];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const close = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tracescope view ${file}: no URL after 120 s\n${err}`));
    }, 120_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/https?:\/\/[^\s]+/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[0], loadMs: performance.now() - began, stderr: () => err, close });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`tracescope view ${file} exited with ${code}: ${err.trim()}`), { stderr: err, code }));
    });
  });
}
