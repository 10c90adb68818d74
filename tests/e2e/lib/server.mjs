// Start `tracescope view FILE... --no-open --port 0` and read the URL it prints.
import { spawn } from 'node:child_process';

/**
 * @param {string} bin path of the tracescope binary
 * @param {string | string[]} [file] trace to open, or several on one timeline; none:
 *   the built-in demo trace
 * @param {string[]} [extra] more arguments of `tracescope view`
 * @returns {Promise<{url: string, loadMs: number, stdout: () => string, stderr: () => string, close: () => Promise<void>}>}
 */
export function startServer(bin, file, extra = []) {
  const files = file === undefined ? [] : [file].flat();
  const args = ['view', ...files, '--no-open', '--port', '0', ...extra];
  return startCommand(bin, args, files.join(' ') || undefined);
}

/**
 * Start `tracescope ARGS` (a command that serves, e.g. `diff A B --view --no-open
 * --port 0`) and read the URL it prints.
 * @param {string} bin
 * @param {string[]} args
 * @param {string} [file] named in errors
 * @returns {Promise<{url: string, loadMs: number, stdout: () => string, stderr: () => string, close: () => Promise<void>}>}
 */
export function startCommand(bin, args, file = args.join(' ')) {
  const began = performance.now();
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
        resolve({ url: m[0], loadMs: performance.now() - began, stdout: () => out, stderr: () => err, close });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`tracescope view ${file} exited with ${code}: ${err.trim()}`), { stderr: err, code }));
    });
  });
}
