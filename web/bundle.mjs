// bundle.mjs: assemble the browser edition's single page.
//
//   node web/bundle.mjs --module build/web/attnlab-module.js --page web/attnlab.html \
//        --script web/attnlab.js --version 0.1.0 --out build/web/attnlab.html \
//        [--catalogue ja=build/locale/ja/LC_MESSAGES/attnlab.mo ...] LESSON...
//
// The page template has five placeholders: @LESSONS@ (the lessons as a JSON
// array of {name, text}), @CATALOGUES@ (the interface's message catalogues
// as a JSON array of {lang, mo}, the .mo file in base64), @MODULE@ (emcc's
// loader with the wasm inside as base64), @SCRIPT@ (web/attnlab.js) and
// @VERSION@. Whatever goes inside a
// <script> element must not contain "</script"; JSON escapes "<" for that,
// and the two scripts are checked. Written to a temporary name, then renamed.
import { readFileSync, writeFileSync, renameSync, statSync } from 'node:fs';
import { basename } from 'node:path';

const args = process.argv.slice(2);
const opt = {};
const lessons = [], catalogues = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--catalogue') {
    const m = /^([a-z]{2,3}(?:_[A-Z]{2})?)=(.+)$/.exec(args[++i] || '');
    if (!m) {
      console.error(`bundle.mjs: error: --catalogue wants LANG=FILE.mo, found '${args[i]}'`);
      process.exit(2);
    }
    catalogues.push({ lang: m[1], mo: readFileSync(m[2]).toString('base64') });
  } else if (args[i].startsWith('--')) opt[args[i].slice(2)] = args[++i];
  else lessons.push(args[i]);
}
for (const k of ['module', 'page', 'script', 'version', 'out']) {
  if (!opt[k]) {
    console.error(`bundle.mjs: error: --${k} is missing`);
    process.exit(2);
  }
}

const read = (p) => readFileSync(p, 'utf8');
const json = JSON.stringify(lessons.map((p) => ({ name: basename(p), text: read(p) })))
  .replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
const module = read(opt.module), script = read(opt.script);
for (const [name, text] of [[opt.module, module], [opt.script, script]]) {
  if (/<\/script/i.test(text) || /<!--/.test(text)) {
    console.error(`bundle.mjs: error: ${name} contains "</script" or "<!--" and cannot be inlined`);
    process.exit(1);
  }
}
const page = read(opt.page);
const values = { VERSION: opt.version, LESSONS: json, CATALOGUES: JSON.stringify(catalogues), MODULE: module, SCRIPT: script };
for (const key of Object.keys(values)) {
  if (page.split(`@${key}@`).length !== 2) {
    console.error(`bundle.mjs: error: ${opt.page} must hold @${key}@ exactly once`);
    process.exit(1);
  }
}
// one pass, with a function: the inserted text is never searched again, and
// '$' in it means nothing
const out = page.replace(/@(VERSION|LESSONS|CATALOGUES|MODULE|SCRIPT)@/g, (m, key) => values[key]);
writeFileSync(opt.out + '.tmp', out);
renameSync(opt.out + '.tmp', opt.out);
console.log(`${opt.out}: ${statSync(opt.out).size} bytes, ${lessons.length} lessons, ${catalogues.length} catalogues`);
