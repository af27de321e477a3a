// lib.mjs: what the browser tests share: the paths, a headless Chromium,
// pages watched for errors and requests, and ways to read the page (the
// display list through window.attnlab, the DOM) and to drive it.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, relative } from 'node:path';
import puppeteer from 'puppeteer-core';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BUILD = relative(ROOT, resolve(ROOT, process.env.BUILD || 'build'));
export const PAGE = join(ROOT, BUILD, 'web', 'attnlab.html');
export const NATIVE = join(ROOT, BUILD, 'attnlab');
export const SHOTS = join(ROOT, BUILD, 'web', 'shots');
export const TOUR = join(ROOT, 'lessons', '01-tour.lesson');
export const URL0 = 'file://' + PAGE;
// The bundled lessons: every lessons/*.lesson (those that load NumPy files
// come with them).
export const bundled = () => readdirSync(join(ROOT, 'lessons')).filter((n) => n.endsWith('.lesson')).sort();
// A lesson's title, as its file says it.
export const titleOf = (name) => /^title:\s*(.*)$/m.exec(readFileSync(join(ROOT, 'lessons', name), 'utf8'))[1].trim();
export const tmp = mkdtempSync(join(tmpdir(), 'attnlab-web-'));
export const problems = [];          // console errors, page errors
export const requests = [];          // every URL a page asked for

// Wait ms milliseconds.
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A hang limit: ms on an idle machine (ten times what the wait takes there
// or more), times TIME_SCALE, the Makefile's factor for a busy machine.
// Nothing here judges speed: the speed figures are printed, not judged.
export const hang = (ms) => ms * Math.max(1, Number(process.env.TIME_SCALE) || 1);

// Debian's chromium, headless, with a fresh profile and no background traffic.
export async function launch() {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    userDataDir: mkdtempSync(join(tmp, 'profile-')),
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--allow-file-access-from-files'],
  });
}

// Until the page has drawn its first frame.
export const ready = (p) => p.waitForFunction('window.attnlab && window.attnlab.ready === true && window.attnlab.frames > 0',
  { timeout: hang(15000) });

// A page at url, watched for errors and requests, once the first frame is
// drawn. opt: viewport (with touch, deviceScaleFactor), languages (the
// browser's, in order).
export async function openPage(browser, url, opt = {}) {
  const p = await browser.newPage();
  p.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  p.on('pageerror', (e) => problems.push('page error: ' + e.message));
  p.on('request', (r) => requests.push(r.url()));
  if (opt.languages) {
    await p.evaluateOnNewDocument((langs) => {
      Object.defineProperty(navigator, 'language', { get: () => langs[0] });
      Object.defineProperty(navigator, 'languages', { get: () => langs });
    }, opt.languages);
  }
  await p.setViewport(opt.viewport || { width: 1280, height: 800 });
  await p.goto(url);
  await ready(p);
  await settle(p);
  return p;
}

// Two animation frames: the page has drawn whatever the last event changed.
export const settle = (p) => p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
// The last frame's display list, as plain objects.
export const list = (p) => p.evaluate(() => window.attnlab.list);
// Field offsets and enum values the page read from the module.
export const roles = (p) => p.evaluate(() => window.attnlab.layout);
// The program's state bits (web_flags).
export const flags = (p) => p.evaluate(() => window.attnlab.flags());
// The strings of the text runs of a role (all roles when undefined).
export async function texts(p, role) {
  const [l, L] = [await list(p), await roles(p)];
  return l.cmds.filter((c) => c.kind === L.DRAW_TEXT && (role === undefined || c.role === L[role])).map((c) => c.text);
}
// Press a key with modifiers held, then let the page draw.
export async function key(p, k, mods = []) {
  for (const m of mods) await p.keyboard.down(m);
  await p.keyboard.press(k);
  for (const m of [...mods].reverse()) await p.keyboard.up(m);
  await settle(p);
}
// The stage title and the lesson · stage N / M line.
export const stageLabel = async (p) => (await texts(p, 'ROLE_TITLE')).join(' | ');
// Until the stage label matches re (the address may open a lesson a little later).
export async function waitStage(p, re) {
  await p.waitForFunction((src) => {
    const h = window.attnlab, l = h.list;
    return l && l.cmds.some((c) => c.role === h.layout.ROLE_TITLE && new RegExp(src).test(c.text));
  }, { timeout: hang(5000) }, re.source).catch(() => {});
  return stageLabel(p);
}
// Filled heatmap cells of a display list (not a plot point's hover area).
export const cellsOf = (l, L) => l.cmds.filter((c) => c.role === L.ROLE_CELL && c.kind === L.DRAW_RECT && !(c.width > 0) && c.color[3] !== 0);
// The value printed inside a cell.
export const cellText = (l, L, c) => l.cmds.find((t) => (t.role === L.ROLE_CELL_TEXT || t.role === L.ROLE_MASKED) &&
  t.kind === L.DRAW_TEXT && t.x >= c.x - 0.5 && t.y >= c.y - 0.5 && t.x + t.w <= c.x + c.w + 0.5 && t.y + t.h <= c.y + c.h + 0.5);
// The centre of a cell in CSS pixels.
export async function cellPoint(p, c) {
  const dpr = await p.evaluate(() => window.attnlab.devicePixelRatio());
  const box = await p.evaluate(() => { const r = document.getElementById('stage').getBoundingClientRect(); return [r.left, r.top]; });
  return { x: box[0] + (c.x + c.w / 2) / dpr, y: box[1] + (c.y + c.h / 2) / dpr };
}

// Files the page downloads land in dir (CDP download behaviour).
export async function allowDownloads(p, dir) {
  const cdp = await p.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
}
// The first file in dir ending in suffix, once it is there.
// (Chromium writes NAME.crdownload and renames it when the file is whole.)
export async function waitFile(dir, suffix) {
  const end = Date.now() + hang(5000);
  while (Date.now() < end) {
    const f = readdirSync(dir).find((n) => n.endsWith(suffix));
    if (f) return join(dir, f);
    await sleep(20);
  }
  throw new Error('no ' + suffix + ' downloaded to ' + dir);
}

// The median of numbers.
export function median(v) {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
}

// Scroll the first input cell of the stage shown (panel 0, row 0, col 0)
// one step up with the wheel, then move the pointer away.
export async function editFirstInput(p) {
  const L = await roles(p);
  const c = cellsOf(await list(p), L).find((x) => x.panel === 0 && x.row === 0 && x.col === 0);
  const at = await cellPoint(p, c);
  await p.mouse.move(at.x, at.y);
  await p.mouse.wheel({ deltaY: -100 });
  await settle(p);
  await p.mouse.move(2, 2);
}
