// bundle.mjs: assemble the browser edition's single page.
//
//   node web/bundle.mjs --module build/web/attnlab-module.js --wasm build/web/attnlab-module.wasm \
//        --page web/attnlab.html --script web/paint.js --script web/page.js --script web/attnlab.js \
//        --version 0.1.0 --out build/web/attnlab.html \
//        [--catalogue ja=build/locale/ja/LC_MESSAGES/attnlab.mo ...] LESSON...
//
// The page template has five placeholders: @BUNDLE@ (a zip archive, in
// base64, of the lessons as lessons/NAME, the files their load lines name
// beside them, and the catalogues as locale/LANG.mo, each deflated unless
// that does not help), @WASM@ (the WebAssembly module, raw-deflated, in
// base64: the page inflates it with the browser's DecompressionStream),
// @MODULE@ (emcc's loader), @SCRIPT@ (the page's scripts, in order) and
// @VERSION@. Whatever goes inside a <script> element must not contain
// "</script" or "<!--"; base64 cannot, and the scripts are checked.
// Written to a temporary name, then renamed. Prints what takes the space.
import { readFileSync, writeFileSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';

const args = process.argv.slice(2);
const opt = { script: [] };
const lessons = [], catalogues = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--catalogue') {
    const m = /^([a-z]{2,3}(?:_[A-Z]{2})?)=(.+)$/.exec(args[++i] || '');
    if (!m) {
      console.error(`bundle.mjs: error: --catalogue wants LANG=FILE.mo, found '${args[i]}'`);
      process.exit(2);
    }
    catalogues.push({ lang: m[1], file: m[2] });
  } else if (args[i] === '--script') opt.script.push(args[++i]);
  else if (args[i].startsWith('--')) opt[args[i].slice(2)] = args[++i];
  else lessons.push(args[i]);
}
for (const k of ['module', 'wasm', 'page', 'version', 'out']) {
  if (!opt[k]) {
    console.error(`bundle.mjs: error: --${k} is missing`);
    process.exit(2);
  }
}
if (!opt.script.length) {
  console.error('bundle.mjs: error: --script is missing');
  process.exit(2);
}

// A zip archive of members [{name, data}]: stored or deflated, whichever is
// smaller; no data descriptors, no extra fields.
function zip(members) {
  const parts = [], central = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8'), packed = deflateRawSync(m.data, { level: 9 });
    const deflated = packed.length < m.data.length, body = deflated ? packed : m.data;
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(0x800, 6);                       // names in UTF-8
    head.writeUInt16LE(deflated ? 8 : 0, 8);
    head.writeUInt32LE(0x00210000, 10);                 // 1980-01-01 00:00: the page is the same at every build
    head.writeUInt32LE(crc32(m.data), 14);
    head.writeUInt32LE(body.length, 18);
    head.writeUInt32LE(m.data.length, 22);
    head.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    head.copy(dir, 6, 4, 30);                           // version needed .. name length, as in the local header
    dir.writeUInt32LE(offset, 42);
    central.push(dir, name);
    parts.push(head, name, body);
    offset += head.length + name.length + body.length;
  }
  const cd = Buffer.concat(central), end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

// The lessons, the files their load lines name (kept beside them, at the
// same relative path), and the catalogues.
const members = [], sizes = {};
const add = (name, data, what) => {
  members.push({ name, data });
  sizes[what] = (sizes[what] || 0) + data.length;
};
for (const p of lessons) {
  const text = readFileSync(p);
  add('lessons/' + basename(p), text, 'lessons');
  for (const m of text.toString('utf8').matchAll(/^[^#\n]*=\s*load\s+"([^"\n]+)"/gm)) {
    const rel = normalize(m[1]);
    if (rel.startsWith('..') || rel.startsWith('/')) continue;
    if (!members.some((x) => x.name === 'lessons/' + rel)) add('lessons/' + rel, readFileSync(join(dirname(p), rel)), 'loaded files');
  }
}
for (const c of catalogues) add('locale/' + c.lang + '.mo', readFileSync(c.file), 'catalogues');
const bundle = zip(members).toString('base64');
const wasmRaw = readFileSync(opt.wasm), wasm = deflateRawSync(wasmRaw, { level: 9 }).toString('base64');

const read = (p) => readFileSync(p, 'utf8');
const module = read(opt.module), script = opt.script.map(read).join('\n');
for (const [name, text] of [[opt.module, module], [opt.script.join(' '), script]]) {
  if (/<\/script/i.test(text) || /<!--/.test(text)) {
    console.error(`bundle.mjs: error: ${name} contains "</script" or "<!--" and cannot be inlined`);
    process.exit(1);
  }
}
const page = read(opt.page);
const values = { VERSION: opt.version, BUNDLE: bundle, WASM: wasm, MODULE: module, SCRIPT: script };
for (const key of Object.keys(values)) {
  if (page.split(`@${key}@`).length !== 2) {
    console.error(`bundle.mjs: error: ${opt.page} must hold @${key}@ exactly once`);
    process.exit(1);
  }
}
// one pass, with a function: the inserted text is never searched again, and
// '$' in it means nothing
const out = page.replace(/@(VERSION|BUNDLE|WASM|MODULE|SCRIPT)@/g, (m, key) => values[key]);
writeFileSync(opt.out + '.tmp', out);
renameSync(opt.out + '.tmp', opt.out);
const kb = (n) => (n / 1024).toFixed(0) + ' KB';
console.log(`${opt.out}: ${statSync(opt.out).size} bytes (${kb(statSync(opt.out).size)}), ${lessons.length} lessons, ` +
  `${catalogues.length} catalogues`);
console.log(`  WebAssembly ${kb(wasmRaw.length)}, deflated and in base64 ${kb(wasm.length)}; loader ${kb(module.length)}; ` +
  `scripts ${kb(script.length)}; bundle in base64 ${kb(bundle.length)} (` +
  Object.entries(sizes).map(([k, v]) => `${k} ${kb(v)}`).join(', ') + ` before deflating); the page's own HTML ` +
  kb(page.length));
