// bundle.mjs: assemble the browser edition's single page.
//
//   node web/bundle.mjs --module build/web/attnlab-module.js --wasm build/web/attnlab-module.wasm \
//        --page web/attnlab.html --script web/paint.js --script web/page.js --script web/attnlab.js \
//        --version 0.1.0 --out build/web/attnlab.html \
//        [--catalogue ja=build/locale/ja/LC_MESSAGES/attnlab.mo ...] LESSON...
//
// The page template has five placeholders: @BUNDLE@ (a zip archive of the
// lessons as lessons/NAME, the files their load lines name beside them, and
// the catalogues as locale/LANG.mo, each deflated unless that does not
// help), @WASM@ (the WebAssembly module) and @MODULE@ (emcc's loader),
// both raw-deflated (the page inflates them with the browser's
// DecompressionStream and runs the loader), all three as 7-bit text
// (below), @SCRIPT@ (the page's scripts, in order) and @VERSION@. Whatever goes inside a <script> element must not contain
// "</script" or "<!--"; 7-bit text has no "<", and the scripts are checked.
//
// 7-bit text: the bytes as a stream of 7-bit chunks (the last padded with
// zeros), each written as the ASCII character of that value, except the
// four an HTML parser would change or end the element at (NUL, LF, CR and
// "<"): such a chunk and the one after it go into one two-byte UTF-8
// character, U+00A0 + (i·128 + next) for the i-th of the four, or U+00A0 +
// (4·128 + i) when it is the last chunk. 8 bytes of page carry 7 bytes
// (base64 carries 6), and the page decodes it with a loop (attnlab.js:
// from7bit).
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
// The chunks the HTML parser would not keep, in their order of 7-bit text.
const AWKWARD = [0x00, 0x0a, 0x0d, 0x3c];
// bytes as 7-bit text (see above).
function to7bit(bytes) {
  const chunks = [];
  let acc = 0, bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 7) { bits -= 7; chunks.push((acc >> bits) & 127); }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) chunks.push((acc << (7 - bits)) & 127);
  const out = [];
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i], a = AWKWARD.indexOf(c);
    if (a < 0) out.push(String.fromCharCode(c));
    else if (i + 1 < chunks.length) out.push(String.fromCharCode(0xa0 + (a << 7 | chunks[++i])));
    else out.push(String.fromCharCode(0xa0 + (4 << 7 | a)));
  }
  return out.join('');
}
const bundle = to7bit(zip(members));
const wasmRaw = readFileSync(opt.wasm), wasm = to7bit(deflateRawSync(wasmRaw, { level: 9 }));

const read = (p) => readFileSync(p, 'utf8');
const moduleRaw = readFileSync(opt.module), module = to7bit(deflateRawSync(moduleRaw, { level: 9 }));
const script = opt.script.map(read).join('\n');
for (const [name, text] of [[opt.script.join(' '), script]]) {
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
const utf8 = (t) => Buffer.byteLength(t, 'utf8');
console.log(`  WebAssembly ${kb(wasmRaw.length)}, deflated and as 7-bit text ${kb(utf8(wasm))}; loader ${kb(moduleRaw.length)}, deflated and as 7-bit text ${kb(utf8(module))}; ` +
  `scripts ${kb(script.length)}; bundle as 7-bit text ${kb(utf8(bundle))} (` +
  Object.entries(sizes).map(([k, v]) => `${k} ${kb(v)}`).join(', ') + ` before deflating); the page's own HTML ` +
  kb(page.length));
