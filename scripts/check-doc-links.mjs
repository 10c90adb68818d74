#!/usr/bin/env node
// Checks that the repository's documents stand alone: no Markdown link in a tracked
// document points outside the repository, and no document (Markdown, or a crate's
// doc comments) sends the reader to a file of the external corpus (`../shared/...`),
// which a clone does not have. Links to files missing from this checkout are listed
// as warnings. Exits 1 on a link that leaves the repository.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const markdown = tracked.filter((f) => f.endsWith('.md') && !f.includes('node_modules/'));
// The crates' own docs (what `cargo doc` shows) and the fuzz targets' usage notes.
const rust = tracked.filter((f) => f.endsWith('.rs') && (/^crates\/[^/]+\/src\//.test(f) || f.startsWith('fuzz/')));

const MD_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const HTML_LINK = /\b(?:href|src)="([^"]+)"/g;
const CORPUS_PATH = /(?<![\w.])(?:\.\.\/)+shared\/[\w.\/-]+/g;
const MACHINE_PATH = /(?<![\w.])\/work\/[\w.\/-]+/g;

const failures = [];
const warnings = [];
let links = 0;

/** Every text line of a file a reader reads: all of a Markdown file, doc comments of Rust. */
function docLines(file) {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  if (file.endsWith('.md')) return lines.map((text, i) => ({ text, line: i + 1 }));
  return lines.map((text, i) => ({ text, line: i + 1 })).filter((l) => /^\s*\/\/[!/]/.test(l.text));
}

for (const file of [...markdown, ...rust]) {
  for (const { text, line } of docLines(file)) {
    const where = `${file}:${line}`;
    for (const re of [CORPUS_PATH, MACHINE_PATH]) {
      for (const m of text.matchAll(re)) failures.push(`${where}: names ${m[0]}, outside the repository`);
    }
    if (!file.endsWith('.md')) continue;
    for (const re of [MD_LINK, HTML_LINK]) {
      for (const m of text.matchAll(re)) {
        const target = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        links++;
        const rel = decodeURI(target.split('#')[0]);
        const abs = rel.startsWith('/') ? rel : path.resolve(path.join(ROOT, path.dirname(file)), rel);
        const inside = path.relative(ROOT, abs);
        if (rel.startsWith('/') || inside.startsWith('..') || path.isAbsolute(inside)) {
          failures.push(`${where}: links ${target}, outside the repository`);
        } else if (!fs.existsSync(abs)) {
          warnings.push(`${where}: links ${target}, missing from this checkout`);
        }
      }
    }
  }
}

for (const w of warnings) console.log(`doc links: warning: ${w}`);
for (const f of failures) console.error(`doc links: ${f}`);
if (failures.length) {
  console.error(`doc links: ${failures.length} reference(s) outside the repository; a clone has only the repository: ` +
    'put what they point to in docs/ (or tests/fixtures/) and link that');
  process.exit(1);
}
console.log(`doc links: ${markdown.length} documents and the crate docs, ${links} links, none outside the repository`);
