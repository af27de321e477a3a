import puppeteer from 'puppeteer-core';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs';
const b = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, userDataDir: mkdtempSync('/tmp/wt/p-'), args: ['--no-sandbox','--disable-gpu'] });
const page = await b.newPage();
await page.setViewport({width:1280,height:800});
await page.goto('file:///work/wt/web/build/web/attnlab.html');
await page.waitForFunction('window.attnlab && window.attnlab.ready && window.attnlab.frames>0');
await page.keyboard.press('Enter');
const out = '/tmp/wt/svgx'; 
try { execFileSync('../build/attnlab', ['--export', out, '--format', 'svg', '../lessons/01-tour.lesson']); } catch(e) {}
for (const k of [2]) {
  await page.keyboard.press(String(k));
  const shot = await page.evaluate(() => window.attnlab.shot(1280, 800));
  const L = await page.evaluate(() => window.attnlab.layout);
  const svg = readFileSync(out + '/' + readdirSync(out).find(n => n.startsWith('01-tour-0' + k)), 'utf8');
  const texts = [...svg.matchAll(/<text x="([-\d.]+)" y="([-\d.]+)"[^>]*>([^<]*)</g)].map(m => [+m[1], +m[2], m[3]]);
  const bt = shot.cmds.filter(c => c.kind === L.DRAW_TEXT);
  console.log('native texts', texts.slice(0, 30));
  console.log('browser texts', bt.slice(0, 30).map(c => [c.x.toFixed(1), c.y.toFixed(1), c.w.toFixed(1), c.h.toFixed(1), c.text]));
  const cells = shot.cmds.filter(c => c.role === L.ROLE_CELL && c.kind === L.DRAW_RECT);
  console.log(cells.slice(0,3).map(c => [c.x, c.y, c.w, c.h]));
  console.log([...svg.matchAll(/<rect x="([-\d.]+)" y="([-\d.]+)" width="([-\d.]+)" height="([-\d.]+)"/g)].slice(0,12).map(m=>m.slice(1).join(',')));
}
await b.close();
