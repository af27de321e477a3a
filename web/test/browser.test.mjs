// browser.test.mjs: the browser edition in a real Chromium.
//
//   cd web && node --test test/browser.test.mjs      (make test-web does this;
//   BUILD=dir for another build directory, CHROMIUM=path for another browser)
//
// Drives Debian's chromium (CHROMIUM, default /usr/bin/chromium) with
// puppeteer-core and opens build/web/attnlab.html from file://. It steps,
// hovers, scroll-edits, opens bad lessons (file picker and drag-and-drop),
// downloads the stage as PNG and SVG, checks that the page asks the network
// for nothing and logs no error, and compares the stage layout with the
// native program's `--export` (same cells in the same places, within 2 px,
// in the SVG's numbers and in the PNG's pixels; the same dash pattern). It
// also serves the tree over HTTP to open a lesson with ?lesson=, and writes
// screenshots at three sizes, light and dark, to build/web/shots/ for a
// person to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, mkdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve, relative, extname } from 'node:path';
import puppeteer from 'puppeteer-core';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BUILD = relative(ROOT, resolve(ROOT, process.env.BUILD || 'build'));
const PAGE = join(ROOT, BUILD, 'web', 'attnlab.html');
const NATIVE = join(ROOT, BUILD, 'attnlab');
const SHOTS = join(ROOT, BUILD, 'web', 'shots');
const TOUR = join(ROOT, 'lessons', '01-tour.lesson');
// The bundled lessons the page holds: those that load no NumPy files.
const webLesson = (n) => n.endsWith('.lesson') && !/=\s*load\s/.test(readFileSync(join(ROOT, 'lessons', n), 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'attnlab-web-'));
let browser, page;
const problems = [];          // console errors, page errors, network requests
const requests = [];

// Wait ms milliseconds.
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A hang limit: ms on an idle machine (ten times what the wait takes there
// or more), times TIME_SCALE, the Makefile's factor for a busy machine.
// Nothing here judges speed; `make bench` does.
const hang = (ms) => ms * Math.max(1, Number(process.env.TIME_SCALE) || 1);
// Two animation frames: the page has drawn whatever the last event changed.
const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
// The last frame's display list, as plain objects.
const list = () => page.evaluate(() => window.attnlab.list);
// Field offsets and enum values the page read from the module.
const roles = () => page.evaluate(() => window.attnlab.layout);
// The strings of the text runs of a role (all roles when undefined).
async function texts(role) {
  const [l, L] = [await list(), await roles()];
  return l.cmds.filter((c) => c.kind === L.DRAW_TEXT && (role === undefined || c.role === L[role])).map((c) => c.text);
}
// Press a key with modifiers held, then let the page draw.
async function key(k, mods = []) {
  for (const m of mods) await page.keyboard.down(m);
  await page.keyboard.press(k);
  for (const m of mods.reverse()) await page.keyboard.up(m);
  await settle();
}
// The stage title and the lesson · stage N / M line.
const stageLabel = async () => (await texts('ROLE_TITLE')).join(' | ');
// Filled heatmap cells of a display list.
const cellsOf = (l, L) => l.cmds.filter((c) => c.role === L.ROLE_CELL && c.kind === L.DRAW_RECT && !(c.width > 0) && c.color[3] !== 0);  // not a plot point's hover area
// The value printed inside a cell.
const cellText = (l, L, c) => l.cmds.find((t) => t.role === L.ROLE_CELL_TEXT && t.kind === L.DRAW_TEXT &&
  t.x >= c.x - 0.5 && t.y >= c.y - 0.5 && t.x + t.w <= c.x + c.w + 0.5 && t.y + t.h <= c.y + c.h + 0.5);

// Debian's chromium, headless, with a fresh profile and no background traffic.
async function launch() {
  const b = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    userDataDir: mkdtempSync(join(tmp, 'profile-')),
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return b;
}

// A page at url, watched for errors and requests, once the first frame is drawn.
async function openPage(url, viewport = { width: 1280, height: 800 }) {
  const p = await browser.newPage();
  p.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  p.on('pageerror', (e) => problems.push('page error: ' + e.message));
  p.on('request', (r) => requests.push(r.url()));
  await p.setViewport(viewport);
  await p.goto(url);
  await p.waitForFunction('window.attnlab && window.attnlab.ready === true && window.attnlab.frames > 0', { timeout: hang(10000) });
  return p;
}

// Pixels of a PNG file at the given points, decoded by the browser itself.
async function pngPixels(file, points) {
  const url = 'data:image/png;base64,' + readFileSync(file).toString('base64');
  return page.evaluate(async (src, pts) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    return { w: img.width, h: img.height, px: pts.map(([x, y]) => Array.from(d.slice((y * c.width + x) * 4, (y * c.width + x) * 4 + 4))) };
  }, url, points);
}

// Files the page downloads land in dir (CDP download behaviour).
async function allowDownloads(dir) {
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
}
// The first file in dir ending in suffix, once it is there.
// (Chromium writes NAME.crdownload and renames it when the file is whole.)
async function waitFile(dir, suffix) {
  const end = Date.now() + hang(5000);
  while (Date.now() < end) {
    const f = readdirSync(dir).find((n) => n.endsWith(suffix));
    if (f) return join(dir, f);
    await sleep(20);
  }
  throw new Error('no ' + suffix + ' downloaded to ' + dir);
}

before(async () => {
  assert.ok(existsSync(PAGE), PAGE + ' is missing: run make web');
  browser = await launch();
  page = await openPage('file://' + PAGE);
});

after(async () => {
  if (browser) await browser.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('the page starts offline with the picker of bundled lessons', async () => {
  const size = readFileSync(PAGE).length;
  console.log(`# ${PAGE}: ${size} bytes`);
  assert.ok(size <= 2 * 1024 * 1024, `the page is ${size} bytes, over 2 MB`);
  const t = await page.evaluate(() => ({ ready: window.attnlab.readyMs, first: window.attnlab.firstFrameMs }));
  console.log(`# from opening the page: module ready after ${t.ready.toFixed(0)} ms, first frame after ${t.first.toFixed(0)} ms`);
  assert.ok(t.first > 0, 'a first frame was drawn');
  const all = (await texts()).join('\n');
  assert.match(all, /Choose a lesson/);
  for (const f of readdirSync(join(ROOT, 'lessons')).filter(webLesson)) {
    const title = /^title:\s*(.*)$/m.exec(readFileSync(join(ROOT, 'lessons', f), 'utf8'))[1].trim();
    assert.ok(all.includes(title), `the picker lists "${title}"`);
  }
});

test('Enter opens the first lesson; → and ← step through the stages', async () => {
  await key('Enter');
  assert.match(await stageLabel(), /stage 1 \/ 10/);
  await key('ArrowRight');
  await key('ArrowRight');
  assert.match(await stageLabel(), /stage 3 \/ 10/);
  await key('ArrowLeft');
  assert.match(await stageLabel(), /stage 2 \/ 10/);
  await key('End');
  assert.match(await stageLabel(), /stage 10 \/ 10/);
  await key('Home');
  assert.match(await stageLabel(), /stage 1 \/ 10/);
});

test('hovering a cell shows its explanation in the explain panel', async () => {
  await key('4');                                   // Q·Kᵀ and Q·Kᵀ/√d_k
  const [l, L] = [await list(), await roles()];
  const cell = cellsOf(l, L).find((c) => c.panel === 1 && c.row === 1 && c.col === 2);
  assert.ok(cell, 'a cell (panel 1, row 1, col 2) on stage 4');
  const shown = cellText(l, L, cell).text;
  const dpr = await page.evaluate(() => window.attnlab.devicePixelRatio());
  await page.mouse.move((cell.x + cell.w / 2) / dpr, (cell.y + 3) / dpr);
  await settle();
  const explain = await page.evaluate(() => window.attnlab.explain());
  assert.ok(explain && explain.length > 20, 'an explanation: ' + explain);
  // it ends with the cell's value, at full precision; the cell shows it rounded
  const last = Number(explain.replace(/−/g, '-').match(/-?[\d.]+\s*$/)[0]);
  const decimals = (shown.split('.')[1] || '').length;
  assert.equal(last.toFixed(decimals), shown, `the explanation "${explain}" ends at the shown value ${shown}`);
  assert.match(explain, /sqrt|√/);
  const overlay = (await texts('ROLE_OVERLAY')).join('\n');
  const firstLine = explain.split('\n')[0].split(' ')[0];
  assert.ok(overlay.includes(firstLine), 'the panel on the canvas draws the explanation');
  await page.mouse.move(2, 2);
});

test('scrolling over an input changes it and the numbers downstream', async () => {
  await key('3');                                   // raw scores Q·Kᵀ
  const before = await list(), L = await roles();
  const scoreBefore = cellText(before, L, cellsOf(before, L).find((c) => c.row === 0 && c.col === 0)).text;
  await key('1');                                   // embeddings: X is an input
  const l = await list();
  const x00 = cellsOf(l, L).find((c) => c.row === 0 && c.col === 0);
  const valueBefore = cellText(l, L, x00).text;
  const dpr = await page.evaluate(() => window.attnlab.devicePixelRatio());
  await page.mouse.move((x00.x + x00.w / 2) / dpr, (x00.y + 3) / dpr);
  await page.mouse.wheel({ deltaY: -100 });         // up: +0.1
  await settle();
  const l2 = await list();
  const valueAfter = cellText(l2, L, cellsOf(l2, L).find((c) => c.row === 0 && c.col === 0)).text;
  assert.equal(Number(valueAfter).toFixed(2), (Number(valueBefore) + 0.1).toFixed(2), `X[0][0] ${valueBefore} -> ${valueAfter}`);
  assert.ok((await page.evaluate(() => window.attnlab.flags())) & 16, 'the lesson is marked edited');
  await page.mouse.move(2, 2);
  await key('3');
  const after = await list();
  const scoreAfter = cellText(after, L, cellsOf(after, L).find((c) => c.row === 0 && c.col === 0)).text;
  assert.notEqual(scoreAfter, scoreBefore, 'the raw score of the first token with itself changed');
  await key('r');                                   // undo every edit
  const undone = await list();
  assert.equal(cellText(undone, L, cellsOf(undone, L).find((c) => c.row === 0 && c.col === 0)).text, scoreBefore);
});

test('a bad lesson opened from disk shows FILE:LINE:COL, as on the desktop', async () => {
  const dir = join(ROOT, 'tests', 'bad-lessons');
  const cases = readdirSync(dir).filter((n) => n.endsWith('.lesson')).slice(0, 6);
  assert.ok(cases.length > 0);
  for (const [i, name] of cases.entries()) {
    const expected = readFileSync(join(dir, name.replace(/\.lesson$/, '.expected')), 'utf8').trim()
      .replace('tests/bad-lessons/', '');
    if (i % 2 === 0) {                              // the file picker (O)
      // the interception starts asynchronously: a round trip makes sure it is on before the key
      const waiting = page.waitForFileChooser();
      await page.evaluate(() => 0);
      await page.keyboard.press('o');
      const chooser = await waiting;
      await chooser.accept([join(dir, name)]);
    } else {                                        // drag and drop
      const b64 = readFileSync(join(dir, name)).toString('base64');
      await page.evaluate((n, data) => {
        const bytes = Uint8Array.from(atob(data), (ch) => ch.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], n));
        document.getElementById('stage').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, name, b64);
    }
    await page.waitForFunction((e) => window.attnlab.list.cmds.some((c) => c.text === e), { timeout: hang(5000) }, expected)
      .catch(() => {});
    const shown = await texts('ROLE_OVERLAY');
    assert.ok(shown.includes(expected), `${name}: expected the line\n  ${expected}\ngot\n  ${shown.join('\n  ')}`);
  }
  assert.match(await stageLabel(), /A short tour of attention/, 'the open lesson stays');
});

test('S downloads the stage as a 1280x800 PNG and Shift+S as SVG', async () => {
  const dir = mkdtempSync(join(tmp, 'dl-'));
  await allowDownloads(dir);
  await key('4');
  await key('s');
  const png = await waitFile(dir, '.png');
  const b = readFileSync(png);
  assert.deepEqual([...b.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  assert.equal(b.readUInt32BE(16), 1280);
  assert.equal(b.readUInt32BE(20), 800);
  assert.match(png, /01-tour-04-scaled_scores\.png$/);
  await key('S', ['Shift']);
  const svg = readFileSync(await waitFile(dir, '.svg'), 'utf8');
  assert.match(svg, /^<\?xml[^]*<svg [^>]*width="1280" height="800"/);
  assert.match(svg, /<title>A short tour of attention<\/title>/);
});

test('Ctrl+S downloads the edited lesson, and it loads in the native program with the edit', async () => {
  const dir = mkdtempSync(join(tmp, 'lesson-'));
  await allowDownloads(dir);
  await key('1');
  const [l, L] = [await list(), await roles()];
  const x00 = cellsOf(l, L).find((c) => c.row === 0 && c.col === 0);
  const dpr = await page.evaluate(() => window.attnlab.devicePixelRatio());
  await page.mouse.move((x00.x + x00.w / 2) / dpr, (x00.y + 3) / dpr);
  await page.mouse.wheel({ deltaY: 100 });          // down: 0.9 -> 0.8
  await page.mouse.wheel({ deltaY: 100 });          // 0.7
  await settle();
  await page.mouse.move(2, 2);
  await key('s', ['Control']);
  const saved = await waitFile(dir, '.lesson');
  assert.match(saved, /01-tour\.lesson$/);
  const dump = JSON.parse(execFileSync(NATIVE, ['--dump', saved], { encoding: 'utf8' }));
  const X = dump.stages[0].matrices.find((m) => m.name === 'X');
  assert.ok(Math.abs(X.data[0][0] - 0.7) < 1e-12, `X[0][0] = ${X.data[0][0]} in the saved lesson`);
  assert.equal(X.data[0][1], 0.1, 'the other inputs are kept');
  assert.ok(!((await page.evaluate(() => window.attnlab.flags())) & 16), 'saved: no longer marked edited');
  // the saved text is now the lesson's: scroll the value back for the tests below
  await page.mouse.move((x00.x + x00.w / 2) / dpr, (x00.y + 3) / dpr);
  await page.mouse.wheel({ deltaY: -100 });
  await page.mouse.wheel({ deltaY: -100 });
  await settle();
  await page.mouse.move(2, 2);
  const back = await list();
  assert.equal(cellText(back, L, cellsOf(back, L).find((c) => c.row === 0 && c.col === 0)).text, '0.90');
});

// For every filled cell of the browser's layout, the nearest rectangle of
// the native SVG export is within 2 px on every edge and has the same
// colour; and the native PNG has that colour just inside its four corners.
test('every stage of every bundled lesson is laid out like the native export: same cells in the same places', async () => {
  // Runs the browser shapes (Arabic, Hebrew, Indic scripts, marks: the page's COMPLEX
  // pattern) are measured by the browser's own fonts, so those lessons lay out on
  // their own widths; every other lesson must land on the native cells.
  const COMPLEX = /[\u0300-\u036f\u0590-\u0dff\u0e00-\u0fff\u1000-\u109f\u1100-\u11ff\u1780-\u18af\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufb1d-\ufeff]/;
  const all = readdirSync(join(ROOT, 'lessons')).filter(webLesson).sort();
  const lessons = all.filter((n) => !COMPLEX.test(readFileSync(join(ROOT, 'lessons', n), 'utf8')));
  assert.ok(lessons.length >= all.length - 2, 'at most two bundled lessons are shaped by the browser');
  const outSvg = mkdtempSync(join(tmp, 'svg-')), outPng = mkdtempSync(join(tmp, 'png-'));
  const paths = lessons.map((n) => join(ROOT, 'lessons', n));
  execFileSync(NATIVE, ['--export', outSvg, '--format', 'svg', '--size', '1280x800', ...paths], { stdio: 'ignore' });
  execFileSync(NATIVE, ['--export', outPng, '--size', '1280x800', ...paths], { stdio: 'ignore' });
  const L = await roles();
  let compared = 0, worst = 0, stages = 0;
  const far = [];
  for (const lesson of lessons) {
    assert.equal(await page.evaluate((n, t) => window.attnlab.openText(n, t), lesson,
      readFileSync(join(ROOT, 'lessons', lesson), 'utf8')), 0, lesson);
    await key('Home');
    // one file per stage, or per sub-step (NN-kv_cache-t1 … -t6, -all; NN-online_softmax-b1 …, -final):
    // in the order the arrow key visits them
    const stem = lesson.replace(/\.lesson$/, '-');
    const order = (f) => {
      const m = f.slice(stem.length).match(/^(\d+)-[a-z_]+(?:-([tb])(\d+)|-(all|final))?\.svg$/);
      assert.ok(m, 'an exported file name: ' + f);
      return [+m[1], m[3] !== undefined ? +m[3] : m[4] !== undefined ? 1e9 : 0];
    };
    const files = readdirSync(outSvg).filter((f) => f.startsWith(stem))
      .sort((a, b) => { const x = order(a), y = order(b); return x[0] - y[0] || x[1] - y[1]; });
    assert.ok(files.length > 0, lesson + ' was exported');
    for (let k = 1; k <= files.length; k++, stages++) {
      if (k > 1) await key('ArrowRight');
      const shot = await page.evaluate(() => window.attnlab.shot(1280, 800));
      const cells = cellsOf(shot, L);
      const base = files[k - 1];
      const svg = readFileSync(join(outSvg, base), 'utf8');
      const rects = [...svg.matchAll(/<rect x="([-\d.]+)" y="([-\d.]+)" width="([-\d.]+)" height="([-\d.]+)" fill="#([0-9a-f]{6})"/g)]
        .map((m) => ({ x: +m[1], y: +m[2], w: +m[3], h: +m[4], fill: m[5] }));
      const hex = (c) => c.slice(0, 3).map((v) => v.toString(16).padStart(2, '0')).join('');
      for (const c of cells) {
        // the native rectangle nearest to this cell must be a cell of the same colour
        const off = (r) => Math.max(Math.abs(r.x - c.x), Math.abs(r.y - c.y), Math.abs(r.x + r.w - c.x - c.w), Math.abs(r.y + r.h - c.y - c.h));
        let best = Infinity, match = null;
        for (const r of rects) { const o = off(r); if (o < best) { best = o; match = r; } }
        if (!(best <= 2) || match.fill !== hex(c.color))
          far.push(`${base}: cell (${c.panel},${c.row},${c.col}) at ${c.x.toFixed(1)},${c.y.toFixed(1)} ` +
            `${c.w.toFixed(1)}x${c.h.toFixed(1)} #${hex(c.color)}: the nearest native rectangle is ${best.toFixed(2)} px away ` +
            (match ? `at ${match.x},${match.y} ${match.w}x${match.h} #${match.fill}` : ''));
        worst = Math.max(worst, best);
        compared++;
      }
      // pixels: 3 px inside each corner of up to 40 cells
      const some = cells.filter((c) => c.w >= 10 && c.h >= 10).slice(0, 40);
      const pts = some.flatMap((c) => [[c.x + 3, c.y + 3], [c.x + c.w - 4, c.y + 3], [c.x + 3, c.y + c.h - 4], [c.x + c.w - 4, c.y + c.h - 4]])
        .map(([x, y]) => [Math.round(x), Math.round(y)]);
      const pngName = base.replace(/\.svg$/, '.png');
      const got = await pngPixels(join(outPng, pngName), pts);
      assert.equal(got.w, 1280);
      some.forEach((c, i) => {
        for (let j = 0; j < 4; j++) {
          const px = got.px[4 * i + j];
          const d = Math.max(...[0, 1, 2].map((ch) => Math.abs(px[ch] - c.color[ch])));
          assert.ok(d <= 6, `${base}: native PNG at ${pts[4 * i + j]} is ${px} but the browser's cell (${c.panel},${c.row},${c.col}) at ${c.x},${c.y} ${c.w}x${c.h} is ${c.color}`);
        }
      });
    }
  }
  console.log(`# ${compared} cells of ${stages} stages compared with the native export; largest edge offset ${worst.toFixed(2)} px`);
  assert.deepEqual(far.slice(0, 10), [], `${far.length} cells more than 2 px from the native ones`);
  assert.ok(compared > 50);
});

test('a heatmap too fine for a rectangle a cell (one image command) is drawn as the native export draws it', async () => {
  const n = 150, toks = Array.from({ length: n }, (_, i) => 't' + i).join(' ');
  const text = `title: Fine\n[setup]\nseed: 4\ntokens: ${toks}\nX = randn ${n}x8\nqueries: X\nmask: causal\n[softmax]\n`;
  const dir = mkdtempSync(join(tmp, 'fine-')), path = join(dir, 'fine.lesson');
  writeFileSync(path, text);
  execFileSync(NATIVE, ['--export', dir, '--format', 'svg', '--size', '1280x800', path], { stdio: 'ignore' });
  const svg = readFileSync(join(dir, 'fine-01-softmax.svg'), 'utf8');
  // the native rectangles, bucketed by their corner's whole pixel
  const grid = new Map();
  for (const m of svg.matchAll(/<rect x="([-\d.]+)" y="([-\d.]+)" width="([-\d.]+)" height="([-\d.]+)" fill="#([0-9a-f]{6})"/g)) {
    const r = { x: +m[1], y: +m[2], w: +m[3], h: +m[4], fill: m[5] }, k = Math.round(r.x) + ',' + Math.round(r.y);
    if (!grid.has(k)) grid.set(k, []);
    grid.get(k).push(r);
  }
  assert.equal(await page.evaluate((t) => window.attnlab.openText('fine.lesson', t), text), 0);
  const L = await roles();
  const cells = cellsOf(await page.evaluate(() => window.attnlab.shot(1280, 800)), L);
  assert.ok(cells.length >= 2 * n * n, 'every cell of both panels is drawn, found ' + cells.length);
  // each cell: a native rectangle of the same colour within 2 px (the browser measures
  // labels with its own fonts, so the grid may sit a little apart), as for the bundled lessons
  const hex = (c) => c.slice(0, 3).map((v) => v.toString(16).padStart(2, '0')).join('');
  let missing = 0;
  for (const c of cells) {
    let ok = false;
    for (let dx = -2; dx <= 2 && !ok; dx++)
      for (let dy = -2; dy <= 2 && !ok; dy++)
        for (const r of grid.get((Math.round(c.x) + dx) + ',' + (Math.round(c.y) + dy)) || [])
          ok = ok || (r.fill === hex(c.color) && Math.abs(r.x - c.x) <= 2 && Math.abs(r.y - c.y) <= 2
                      && Math.abs(r.w - c.w) <= 0.5 && Math.abs(r.h - c.h) <= 0.5);
    missing += !ok;
  }
  assert.equal(missing, 0, missing + ' of ' + cells.length + ' cells have no native rectangle of their colour');
  const live = await list();
  assert.ok(cellsOf(live, L).length >= 2 * n * n, 'the live frame draws them too');
});

test('dashed lines have the native export\'s dash pattern', async () => {
  const dir = mkdtempSync(join(tmp, 'dash-'));
  execFileSync(NATIVE, ['--export', dir, '--format', 'svg', '--size', '1280x800', TOUR], { stdio: 'ignore' });
  const svg = readFileSync(join(dir, '01-tour-09-entropy.svg'), 'utf8');
  const m = svg.match(/stroke-width="([\d.]+)" stroke-dasharray="([\d.]+) ([\d.]+)"/);
  assert.ok(m, 'the native entropy stage has a dashed bound');
  const native = [+m[2] / +m[1], +m[3] / +m[1]];
  // every dash the canvas is given, in stroke widths
  await page.evaluate(() => {
    const set = CanvasRenderingContext2D.prototype.setLineDash;
    window.dashes = [];
    CanvasRenderingContext2D.prototype.setLineDash = function (d) {
      if (d.length) window.dashes.push([d[0] / this.lineWidth, d[1] / this.lineWidth]);
      return set.call(this, d);
    };
  });
  assert.equal(await page.evaluate((t) => window.attnlab.openText('01-tour.lesson', t), readFileSync(TOUR, 'utf8')), 0);
  await key('9');
  assert.match(await stageLabel(), /stage 9 \//);
  const dashes = await page.evaluate(() => window.dashes);
  assert.ok(dashes.length > 0, 'the entropy stage draws dashed lines');
  for (const d of dashes) assert.deepEqual(d.map((x) => +x.toFixed(6)), native);
});

test('F asks the browser for fullscreen; leaving it clears the state', async () => {
  await key('f');
  await page.waitForFunction(() => !!document.fullscreenElement, { timeout: hang(3000) }).catch(() => {});
  const inFull = await page.evaluate(() => !!document.fullscreenElement);
  assert.ok(inFull, 'document.fullscreenElement is set');
  await page.evaluate(() => document.exitFullscreen());
  await page.waitForFunction(() => !document.fullscreenElement && !(window.attnlab.flags() & 1), { timeout: hang(3000) });
});

test('? shows the browser edition\'s keys, drawn by the program', async () => {
  await key('?');
  assert.ok((await page.evaluate(() => window.attnlab.flags())) & 32, 'the keys are shown');
  const shown = (await list()).cmds.map((c) => c.text || '').join('\n');   /* in the open lesson's language */
  assert.match(shown, /Shift\+S/);
  assert.match(shown, /\?lesson=URL/);
  assert.doesNotMatch(shown, /Ctrl\+Q|Ctrl\+Shift\+S/, 'not the desktop\'s quit and save-as keys');
  await key('Escape');
  assert.ok(!((await page.evaluate(() => window.attnlab.flags())) & 32), 'Esc hides them');
});

test('the page speaks the browser\'s language, and a lesson\'s language wins', async () => {
  const p = await browser.newPage();
  const old = page;
  page = p;
  try {
    await p.evaluateOnNewDocument(() => {
      Object.defineProperty(navigator, 'language', { get: () => 'de-DE' });
      Object.defineProperty(navigator, 'languages', { get: () => ['de-DE', 'de'] });
    });
    p.on('pageerror', (e) => problems.push('page error: ' + e.message));
    await p.setViewport({ width: 1280, height: 800 });
    await p.goto('file://' + PAGE);
    await p.waitForFunction('window.attnlab && window.attnlab.ready === true && window.attnlab.frames > 0', { timeout: hang(10000) });
    await settle();
    const bar = () => p.evaluate(() => [document.documentElement.lang,
      ...[...document.querySelectorAll('#bar button')].map((b) => b.textContent + '|' + b.title)]);
    let b = await bar();
    assert.match(b[0], /^de\b/);
    assert.ok(b.includes('Lektionen|Lektion wählen (L)'), 'the lessons button in German: ' + b.join(', '));
    assert.match((await list()).cmds.map((c) => c.text || '').join('\n'), /Lektion/, 'the picker in German');
    await key('?');
    assert.match((await list()).cmds.map((c) => c.text || '').join('\n'), /diese Stufe als SVG herunterladen/);
    await key('Escape');
    await p.evaluate(() => window.attnlab.openText('ja.lesson',
      'title: 猫\nlanguage: ja\n[setup]\ntokens: 猫 が\nX =\n  1 0\n  0 1\n[softmax]\n'));
    await settle();
    await p.evaluate(() => window.attnlab.frame());
    b = await bar();
    assert.equal(b[0], 'ja', 'a lesson with language: ja switches the page');
    assert.ok(b.includes('レッスン|レッスンを選ぶ (L)'), 'the lessons button in Japanese: ' + b.join(', '));
    await p.keyboard.press('s');
    // the PNG is encoded off the main thread: its toast comes when the blob is ready
    await p.waitForFunction(() => window.attnlab.list.cmds.some((c) => /ダウンロードしました/.test(c.text || '')),
      { timeout: hang(5000) }).catch(() => {});
    assert.match((await list()).cmds.map((c) => c.text || '').join('\n'), /ダウンロードしました/, 'the download toast in Japanese');
  } finally {
    page = old;
    await p.close();
  }
});

test('touch: a swipe steps, a tap pins a cell', async () => {
  const p = await openPage('file://' + PAGE, { width: 1024, height: 768, deviceScaleFactor: 2, hasTouch: true });
  const old = page;
  page = p;
  try {
    await key('Enter');
    const dims = await page.evaluate(() => [document.getElementById('stage').width, document.getElementById('stage').getBoundingClientRect().width]);
    assert.equal(dims[0], dims[1] * 2, 'the canvas has two device pixels per CSS pixel');
    await page.touchscreen.touchStart(700, 300);
    await page.touchscreen.touchMove(500, 305);
    await page.touchscreen.touchEnd();
    await settle();
    assert.match(await stageLabel(), /stage 2 \/ 10/);
    const [l, L] = [await list(), await roles()];
    const c = cellsOf(l, L)[0];
    await page.touchscreen.tap((c.x + c.w / 2) / 2, (c.y + 3) / 2);
    await settle();
    assert.ok(await page.evaluate(() => window.attnlab.explain()), 'the tapped cell is explained');
  } finally {
    page = old;
    await p.close();
  }
});

test('from a web server: ?lesson= opens a lesson of the same site', async () => {
  const types = { '.html': 'text/html', '.lesson': 'text/plain' };
  const server = createServer((req, res) => {
    const path = join(ROOT, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!path.startsWith(ROOT) || !existsSync(path)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': types[extname(path)] || 'application/octet-stream' });
    res.end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  const p = await openPage(`http://127.0.0.1:${port}/${BUILD}/web/attnlab.html?lesson=/lessons/03-four-words-by-hand.lesson`);
  try {
    await p.waitForFunction(() => window.attnlab.flags() & 4, { timeout: hang(5000) });
    const title = readFileSync(join(ROOT, 'lessons', '03-four-words-by-hand.lesson'), 'utf8').match(/^title:\s*(.*)$/m)[1].trim();
    // the fetch and the first frame of the lesson come after the page is ready
    await p.waitForFunction((t) => (window.attnlab.list?.cmds || []).some((c) => (c.text || '').includes(t)),
      { timeout: hang(10000) }, title).catch(() => {});
    const shown = await p.evaluate(() => window.attnlab.list.cmds.map((c) => c.text).join('\n'));
    assert.ok(shown.includes(title), 'the lesson from ?lesson= is open');
    const missing = await p.evaluate(() => window.attnlab.openURL('/lessons/no-such.lesson'));
    assert.equal(missing, -1);
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const err = await p.evaluate(() => window.attnlab.list.cmds.map((c) => c.text).join('\n'));
    assert.match(err, /no-such\.lesson: error: cannot open: HTTP 404/);
  } finally {
    await p.close();
    server.close();
  }
});

test('screenshots at three sizes, light and dark (build/web/shots/)', async () => {
  mkdirSync(SHOTS, { recursive: true });
  const sizes = [[1280, 720, 1], [1920, 1080, 1], [1024, 768, 2]];
  for (const [w, h, s] of sizes) {
    const p = await openPage('file://' + PAGE, { width: w, height: h, deviceScaleFactor: s });
    const old = page;
    page = p;
    try {
      await key('Enter');
      await key('5');                               // softmax
      const [l, L] = [await list(), await roles()];
      const c = cellsOf(l, L).find((x) => x.row === 1 && x.col === 1) || cellsOf(l, L)[0];
      await page.mouse.move((c.x + c.w / 2) / s, (c.y + 3) / s);
      await settle();
      for (const theme of ['light', 'dark']) {
        if (theme === 'dark') await key('t');
        const file = join(SHOTS, `${w}x${h}-${theme}.png`);
        await page.screenshot({ path: file });
        assert.ok(readFileSync(file).length > 10000, file);
      }
    } finally {
      page = old;
      await p.close();
    }
  }
});

test('nothing was fetched from the network and nothing was logged as an error', async () => {
  const outside = requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:') && !u.startsWith('http://127.0.0.1:'));
  assert.deepEqual(outside, []);
  // the one 404 above is the test's own missing lesson
  assert.deepEqual(problems.filter((p) => !/404/.test(p)), []);
  writeFileSync(join(tmp, 'ok'), '');
});
