// The two tiers of end-to-end tests: the repository's fixtures (tests/fixtures,
// always there) and the external corpus (../shared beside the checkout, or
// $TRACESCOPE_SHARED), which CI always has. A corpus test without its corpus is
// registered as skipped with one line saying what and how to get it (node's test
// runner prints it as `# SKIP`), and the line is appended to $TRACESCOPE_SKIP_LOG
// for scripts/test's summary.
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The repository's fixtures directory. */
export const FIXTURES = path.join(ROOT, 'tests/fixtures');

/** The external corpus directory, whether or not it exists. */
export const SHARED = process.env.TRACESCOPE_SHARED || path.resolve(ROOT, '../shared');

/**
 * `test` for the tests of one corpus directory: the real `test` when `dir` exists,
 * else one that registers each test as skipped, saying why.
 * @param {string} dir absolute path the tests read
 * @param {string} what what those tests check, for the skip line
 * @returns {{present: boolean, test: (name: string, fn: () => unknown) => void}}
 */
export function corpusTier(dir, what) {
  if (fs.existsSync(dir)) return { present: true, test: (name, fn) => test(name, fn) };
  const file = path.basename(process.argv[1] || 'e2e');
  return {
    present: false,
    test(name) {
      const rel = path.relative(ROOT, dir);
      const why = `corpus test, needs ${rel.startsWith('../shared') ? rel : dir}: ${what} not checked; ` +
        'put the external corpus beside the checkout as ../shared, or set TRACESCOPE_SHARED (CI has it)';
      if (process.env.TRACESCOPE_SKIP_LOG) fs.appendFileSync(process.env.TRACESCOPE_SKIP_LOG, `SKIPPED e2e ${file} "${name}" (${why})\n`);
      test(name, { skip: why }, () => {});
    },
  };
}
