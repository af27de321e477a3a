// page.test.mjs: the browser edition's page for every student: the lesson
// list, the buttons from the keyboard, undo, the address as the state,
// unsaved edits, a lesson with its NumPy files, touch, the text view for
// screen readers, right-to-left text, axe-core's WCAG 2.1 AA rules, and the
// speed figures (printed, never judged: the file's size is the one figure
// held to its bound, as it does not depend on the machine).
//
//   cd web && node --test test/page.test.mjs      (make test-web runs it after browser.test.mjs)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, statSync, mkdirSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import {
  ROOT, PAGE, SHOTS, URL0, tmp, problems, hang, launch, openPage, ready, settle, list, roles, flags, texts, key,
  stageLabel, waitStage, cellsOf, cellText, cellPoint, allowDownloads, waitFile, median, sleep, editFirstInput, bundled,
} from './lib.mjs';

let browser;
const PHONE = { width: 390, height: 844, deviceScaleFactor: 3, hasTouch: true, isMobile: true };

before(async () => { browser = await launch(); });
after(async () => { if (browser) await browser.close(); });

// The centre of an element (a selector) in CSS pixels.
const centre = (p, sel) => p.evaluate((s) => {
  const r = document.querySelector(s).getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}, sel);
// The link fields of the address.
const hash = (p) => p.evaluate(() => decodeURIComponent(location.hash));

test('the lesson list is a list of links: a click, Tab and Enter open a lesson', async () => {
  const p = await openPage(browser, URL0);
  try {
    const links = await p.$$eval('#lessons a', (as) => as.map((a) => [a.getAttribute('href'), a.textContent]));
    assert.ok(links.length >= 12 && links.every(([h]) => /^#lesson=\d\d-/.test(h)), 'real links: ' + links[0]);
    const at = await centre(p, '#lessons li:nth-child(2) a');
    await p.mouse.click(at.x, at.y);
    assert.match(await waitStage(p, /stage 1 \/ 13/), /From one-hot words/, 'a click on the second lesson opens it');
    assert.match(await hash(p), /^#lesson=02-one-hot-to-qkv&stage=1/);
    assert.ok(!((await flags(p)) & 8), 'the list is closed');
    await key(p, 'l');
    await key(p, 'Tab');                                  // from the open lesson (focused) to the next
    const focused = await p.evaluate(() => document.activeElement.textContent);
    assert.match(focused, /^3 /);
    await key(p, 'Enter');
    assert.match(await waitStage(p, /stage 1 \/ 7/), /Four words by hand/);
  } finally {
    await p.close();
  }
});

test('by keyboard alone: a lesson, the slide focused, Enter into its cells, the arithmetic said, an edit, Esc out', async () => {
  const p = await openPage(browser, URL0);
  try {
    await key(p, 'Enter');                                // the first lesson of the list (focused)
    await waitStage(p, /stage 1 \//);
    assert.equal(await p.evaluate(() => document.activeElement.id), 'stage', 'focus is on the slide');
    const live = () => p.evaluate(() => document.getElementById('live').textContent);
    await key(p, 'Enter');
    assert.ok((await flags(p)) & 16384, 'Enter starts the cell cursor');
    const first = await live();
    assert.match(first, /\S/, 'the first cell is explained in the live region');
    await key(p, 'ArrowRight');
    const second = await live();
    assert.ok(second && second !== first, 'ArrowRight moves to the next cell, said: ' + second);
    assert.match(await stageLabel(p), /stage 1 \//, 'the arrows move the cell, not the stage');
    await key(p, 'Tab');
    assert.equal(await p.evaluate(() => document.activeElement.id), 'stage', 'Tab stays on the slide: the next heatmap');
    assert.ok((await flags(p)) & 128, 'the cursor is on an input of stage 1 (X)');
    await key(p, '+');
    assert.ok((await flags(p)) & 16, 'the input was edited by keyboard');
    await key(p, 'Escape');
    assert.ok(!((await flags(p)) & 16384), 'Esc leaves the cells');
    await key(p, 'ArrowRight');
    assert.match(await stageLabel(p), /stage 2 \//, 'then → steps again');
  } finally {
    await p.close();
  }
});

test('the help is HTML: a dialog of the key table that keeps focus inside and gives it back; a page heading; Arabic mirrors the page', async () => {
  const p = await openPage(browser, URL0 + '#lesson=01-tour');
  try {
    await waitStage(p, /stage 1 \//);
    assert.equal(await p.evaluate(() => document.querySelector('h1').textContent), 'A short tour of attention', 'an h1 names the lesson');
    await p.focus('#bar button[data-act="help"]');
    await key(p, 'Enter');
    const help = await p.evaluate(() => ({
      open: !document.getElementById('help').hidden,
      rows: [...document.querySelectorAll('#help-keys tr')].map((r) => [r.cells[0].textContent, r.cells[1].textContent]),
      focus: document.activeElement.closest('#help') !== null,
    }));
    assert.ok(help.open && help.focus, 'the help opens with focus in it');
    assert.ok(help.rows.length >= 20, 'a row per key: ' + help.rows.length);
    assert.ok(help.rows.some(([k, w]) => k === 'Enter' && /cells by keyboard/.test(w)), 'the cell cursor is in the help');
    assert.ok(help.rows.some(([k, w]) => k === 'T' && /light \/ dark/.test(w)), 'T: light / dark');
    const overlay = await p.evaluate(() => window.attnlab.list.cmds.filter((c) => c.role === window.attnlab.layout.ROLE_OVERLAY).length);
    assert.equal(overlay, 0, 'the canvas draws no second help under it');
    for (let i = 0; i < 3; i++) {
      await p.keyboard.press('Tab');
      assert.ok(await p.evaluate(() => document.activeElement.closest('#help') !== null), 'Tab stays in the dialog');
    }
    await p.keyboard.down('Shift');
    await p.keyboard.press('Tab');
    await p.keyboard.up('Shift');
    assert.ok(await p.evaluate(() => document.activeElement.closest('#help') !== null), 'Shift+Tab stays in the dialog');
    await key(p, 'Escape');
    assert.ok(await p.evaluate(() => document.getElementById('help').hidden), 'Esc closes it');
    assert.equal(await p.evaluate(() => document.activeElement.dataset.act), 'help', 'focus goes back to the button that opened it');
    // the lesson list and the link box keep focus inside too, and give it back
    for (const [open, id, back] of [['picker', 'picker', 'picker'], ['link', 'linkbox', 'link']]) {
      await p.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('no')); });
      const sel = (open === 'link' ? '#menu' : '#bar') + ` button[data-act="${open}"]`;
      if (open === 'link') await p.evaluate(() => { document.getElementById('menu').hidden = false; });
      await p.focus(sel);
      await key(p, 'Enter');
      await p.waitForFunction((d) => !document.getElementById(d).hidden, { timeout: hang(3000) }, id);
      for (let i = 0; i < 30; i++) {
        await p.keyboard.press('Tab');
        assert.ok(await p.evaluate((d) => document.activeElement.closest('#' + d) !== null, id), `Tab stays in #${id}`);
      }
      await key(p, 'Escape');
      assert.ok(await p.evaluate((d) => document.getElementById(d).hidden, id), `Esc closes #${id}`);
      assert.equal(await p.evaluate(() => document.activeElement.dataset.act), back, `focus goes back from #${id}`);
    }
  } finally {
    await p.close();
  }
  const ar = await openPage(browser, URL0 + '#lesson=01-tour', { languages: ['ar'] });
  try {
    await waitStage(ar, /\//);
    const dir = await ar.evaluate(() => [document.documentElement.lang, document.documentElement.dir,
      getComputedStyle(document.getElementById('bar')).direction]);
    assert.deepEqual(dir, ['ar', 'rtl', 'rtl'], 'an Arabic interface is right to left, and its controls with it');
    await ar.click('#bar button[data-act="help"]');
    const title = await ar.evaluate(() => document.getElementById('help-title').textContent);
    assert.notEqual(title, 'Keys', 'the help speaks Arabic: ' + title);
  } finally {
    await ar.close();
  }
});

test('every toolbar button does its own action with Enter (and Space), shows a focus ring, and has a name', async () => {
  const p = await openPage(browser, URL0 + '#lesson=01-tour&stage=2');
  const dir = mkdtempSync(join(tmp, 'bar-'));
  try {
    await allowDownloads(p, dir);
    await waitStage(p, /stage 2 \//);
    await p.evaluate(() => {
      window.fileClicks = 0;
      document.getElementById('file').addEventListener('click', (e) => { window.fileClicks++; e.preventDefault(); });
    });
    const acts = await p.$$eval('#bar > button:not([hidden])', (bs) => bs.map((b) => b.dataset.act));
    const checked = [];
    for (const act of acts) {
      const before = { label: await stageLabel(p), flags: await flags(p),
        title: (await list(p)).cmds.find((c) => c.text && / \/ 10/.test(c.text)) };
      await p.focus(`#bar > button[data-act="${act}"]`);
      const ring = await p.evaluate(() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, parseFloat(s.outlineWidth)]; });
      assert.ok(ring[0] === 'solid' && ring[1] >= 2, `${act}: a focus ring (${ring})`);
      const name = await p.evaluate(() => document.activeElement.getAttribute('aria-label'));
      assert.ok(name && name.length > 2 && !/^[◀▶◐⛶?]$/.test(name), `${act}: a name in words (${name})`);
      await key(p, 'Enter');
      const now = { label: await stageLabel(p), flags: await flags(p) };
      switch (act) {
      case 'prev': assert.match(now.label, /stage 1 \//); break;
      case 'next': assert.match(now.label, /stage 2 \//); break;
      case 'smaller': case 'bigger': {
        const t = (await list(p)).cmds.find((c) => c.text && / \/ 10/.test(c.text));
        assert.notEqual(t.size, before.title.size, `${act} changes the text size`);
        assert.match(now.label, /stage 2 \//, `${act} does not step`);
        break;
      }
      case 'picker': assert.ok(now.flags & 8, 'the list opens'); await key(p, 'Escape'); break;
      case 'open':   // the file input is clicked (its dialog held back: Chrome's own chooser raced with the key)
        assert.equal(await p.evaluate(() => window.fileClicks), 1, 'open clicks the file input once'); break;
      case 'png': await waitFile(dir, '.png'); break;
      case 'theme': assert.notEqual(now.flags & 2, before.flags & 2, 'the theme changes'); break;
      case 'fullscreen':
        await p.waitForFunction(() => !!document.fullscreenElement, { timeout: hang(3000) });
        await p.evaluate(() => document.exitFullscreen());
        await p.waitForFunction(() => !document.fullscreenElement, { timeout: hang(3000) });
        break;
      case 'numbers': assert.ok(await p.evaluate(() => !document.getElementById('numbers').hidden)); break;
      case 'more': assert.ok(await p.evaluate(() => !document.getElementById('menu').hidden)); break;
      case 'help': assert.ok(now.flags & 32, 'the keys show'); await key(p, 'Escape'); break;
      default: assert.fail('a button the test does not know: ' + act);
      }
      if (!['prev', 'next'].includes(act)) assert.match(now.label, /stage 2 \//, `Enter on ${act} does not step`);
      checked.push(act);
    }
    // Space on the theme button switches the theme and does not step
    await p.focus('#bar button[data-act="theme"]');
    const f0 = await flags(p);
    await key(p, ' ');
    assert.notEqual((await flags(p)) & 2, f0 & 2);
    assert.match(await stageLabel(p), /stage 2 \//);
    // the canvas can be reached with Tab and shows a focus ring too
    await p.evaluate(() => document.getElementById('stage').focus({ focusVisible: true }));
    const ring = await p.evaluate(() => getComputedStyle(document.getElementById('stage')).outlineStyle);
    assert.equal(ring, 'solid');
    console.log(`# Enter on ${checked.length} toolbar buttons: ${checked.join(' ')}`);
  } finally {
    await p.close();
  }
});

// On a page at the tour's first stage, its first input edited one step
// (editFirstInput): x00 reads the number the input's first cell prints,
// was and edited are what it printed before and after the edit.
async function editedTour(p) {
  await waitStage(p, /stage 1 \//);
  const L = await roles(p);
  const x00 = () => list(p).then((l) => cellText(l, L, cellsOf(l, L).find((c) => c.panel === 0 && c.row === 0 && c.col === 0)).text);
  const was = await x00();
  await editFirstInput(p);
  const edited = await x00();
  assert.notEqual(edited, was);
  return { x00, was, edited };
}

test('undo and redo as on the desktop: Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y and ⌘Z', async () => {
  const p = await openPage(browser, URL0 + '#lesson=01-tour&stage=1');
  try {
    const { x00, was, edited } = await editedTour(p);
    for (const [undo, redo] of [[['Control'], ['Control', 'Shift']], [['Meta'], ['Control']]]) {
      await key(p, 'z', undo);
      assert.equal(await x00(), was, 'undone with ' + undo.join('+') + '+Z');
      await key(p, redo.length > 1 ? 'z' : 'y', redo);
      assert.equal(await x00(), edited, 'redone with ' + redo.join('+'));
    }
    await key(p, 'z', ['Meta']);
    assert.equal(await x00(), was);
    assert.ok(!((await flags(p)) & 16), 'nothing left to save');
  } finally {
    await p.close();
  }
});

test('R sets the lesson back to its file as one step of undo: it says how many edits, Ctrl+Z brings them back', async () => {
  const p = await openPage(browser, URL0 + '#lesson=01-tour&stage=1');
  try {
    const { x00, was, edited } = await editedTour(p);
    await key(p, 'r');
    assert.equal(await x00(), was, 'R: the file\'s number');
    assert.ok((await texts(p, 'ROLE_OVERLAY')).includes('lesson reset: 1 edit undone. Ctrl+Z brings it back'),
      'the message: ' + (await texts(p, 'ROLE_OVERLAY')).join(' | '));
    assert.ok(!((await flags(p)) & 16), 'nothing to save after R');
    assert.ok((await flags(p)) & 4096, 'R is a step to undo');
    await key(p, 'z', ['Control']);
    assert.equal(await x00(), edited, 'Ctrl+Z after R: the edit is back');
    assert.ok((await flags(p)) & 16, 'the edit is unsaved again');
    await p.evaluate(() => document.querySelector('button[data-act="reset"]').click());     // More's "back to the file"
    await settle(p);
    assert.equal(await x00(), was, 'the button does what R does');
    await key(p, 'z', ['Control']);
    assert.equal(await x00(), edited);
    await key(p, 'z', ['Control']);
    assert.equal(await x00(), was, 'then the edit itself is undone');
  } finally {
    await p.close();
  }
});

test('number keys reach every stage: 1 then 3 is stage 13 of lesson 2', async () => {
  const p = await openPage(browser, URL0 + '#lesson=02-one-hot-to-qkv');
  try {
    await waitStage(p, /stage 1 \/ 13/);
    await p.keyboard.press('1');
    await p.keyboard.press('3');
    await settle(p);
    assert.match(await stageLabel(p), /stage 13 \/ 13/);
    await sleep(1100);                                    // a second later, a new number
    await key(p, '4');
    assert.match(await stageLabel(p), /stage 4 \/ 13/);
  } finally {
    await p.close();
  }
});

test('the address is the slide: a link to stage 3 of lesson 2 survives Reload, Back steps back, the link button copies it', async () => {
  const p = await openPage(browser, URL0 + '#lesson=02-one-hot-to-qkv&stage=3');
  try {
    assert.match(await waitStage(p, /stage 3 \/ 13/), /stage 3 \/ 13/);
    await key(p, 'ArrowRight');
    await key(p, 't');                                    // a toggle: the same entry, rewritten
    await key(p, 'm');
    assert.match(await hash(p), /stage=4&mask=on&theme=dark/);
    await p.reload();
    await ready(p);
    assert.match(await waitStage(p, /stage 4 \/ 13/), /stage 4 \/ 13/, 'Reload restores the slide');
    const f = await flags(p);
    assert.ok((f & 2) && (f & 1024), 'with its theme and mask');
    await p.goBack();
    assert.match(await waitStage(p, /stage 3 \/ 13/), /stage 3 \/ 13/, 'Back steps back a stage');
    await p.goForward();
    assert.match(await waitStage(p, /stage 4 \/ 13/), /stage 4 \/ 13/);
    // the link button: the address of this slide to the clipboard
    await p.evaluate(() => { window.copied = null; navigator.clipboard.writeText = (t) => { window.copied = t; return Promise.resolve(); }; });
    await p.click('#bar button[data-act="more"]');
    await p.click('#menu button[data-act="link"]');
    await settle(p);
    const copied = await p.evaluate(() => window.copied);
    assert.ok(copied && copied.startsWith('file://') && /#lesson=02-one-hot-to-qkv&stage=4/.test(copied), 'copied ' + copied);
    assert.match((await texts(p, 'ROLE_OVERLAY')).join(' '), /link copied/);
    // where the page may not write to the clipboard, the link is shown selected
    await p.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('not allowed')); });
    await p.click('#menu button[data-act="link"]');
    const shown = await p.waitForFunction(() => !document.getElementById('linkbox').hidden &&
      document.activeElement.id === 'linkbox-url' && document.activeElement.value, { timeout: hang(3000) });
    assert.equal(await shown.jsonValue(), copied, 'the same link, shown to copy by hand');
    await key(p, 'Escape');
    assert.ok(await p.evaluate(() => document.getElementById('linkbox').hidden));
    // the copied link, in a new tab: the same slide
    const q = await openPage(browser, copied);
    assert.match(await waitStage(q, /stage 4 \/ 13/), /stage 4 \/ 13/);
    await q.close();
  } finally {
    await p.close();
  }
  // inside a sandboxed iframe (scripts only): the fragment still carries the slide
  const wrap = join(tmp, 'iframe.html');
  writeFileSync(wrap, `<!DOCTYPE html><title>course</title><iframe sandbox="allow-scripts" width="900" height="600" ` +
    `src="${URL0}#lesson=02-one-hot-to-qkv&stage=3"></iframe>`);
  const w = await browser.newPage();
  try {
    await w.goto('file://' + wrap);
    const frame = () => w.frames().find((fr) => fr.url().startsWith(URL0));
    await w.waitForFunction(() => document.querySelector('iframe'), { timeout: hang(5000) });
    for (let i = 0; i < 100 && !(frame() && await frame().evaluate(() => !!(window.attnlab && window.attnlab.ready)).catch(() => false)); i++) await sleep(50);
    const fr = frame();
    await fr.waitForFunction(() => window.attnlab.list && window.attnlab.list.cmds.some((c) => / stage 3 \/ 13/.test(c.text)),
      { timeout: hang(5000) });
    await fr.evaluate(() => document.getElementById('stage').focus());
    await w.keyboard.press('ArrowRight');
    await fr.waitForFunction(() => /stage=4/.test(location.hash), { timeout: hang(5000) });
    assert.match(await fr.evaluate(() => location.hash), /stage=4/, 'the framed page moves its own address');
  } finally {
    await w.close();
  }
});

test('links carry the lesson: an edit and a head switched off reopen the same slide; a file lesson travels whole; bad links say why; embed code', async () => {
  const p = await openPage(browser, URL0 + '#lesson=04-heads-entropy-causal');
  const shot = (q) => q.evaluate(() => window.attnlab.list.cmds.filter((c) => c.role === window.attnlab.layout.ROLE_CELL_TEXT)
    .map((c) => c.text).join(' '));
  try {
    await waitStage(p, /stage 1 \//);
    await editFirstInput(p);                              // an edit of X
    await key(p, '4');                                    // a stage of four heads
    await settle(p);
    for (let i = 0; i < 4 && !/stage 4 \//.test(await stageLabel(p)); i++) await key(p, 'ArrowRight');
    await p.evaluate(() => { const c = document.getElementById('stage'); c.dispatchEvent(new MouseEvent('mousemove', { clientX: 5, clientY: 5 })); });
    await p.keyboard.press('h');                          // head 1 alone, then A switches it off
    await key(p, 'a');
    const h = decodeURIComponent(await p.evaluate(() => location.hash));
    assert.match(h, /&ablate=\d+\.1(&|$)/, 'the link holds the head switched off: ' + h);
    assert.match(h, /&edits=1\.X\.1\.1:/, 'and the edit: ' + h);
    assert.doesNotMatch(h, /theme=/, 'and no theme the lesson has anyway');
    const q = await openPage(browser, URL0 + await p.evaluate(() => location.hash));
    try {
      await waitStage(q, new RegExp(await stageLabel(p).then((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))));
      assert.equal(await stageLabel(q), await stageLabel(p), 'the same stage');
      assert.equal(await shot(q), await shot(p), 'the same numbers on it');
      assert.ok((await flags(q)) & 16, 'the edit is the new page\'s own, unsaved');
    } finally { await q.close(); }
    // embed code: an iframe of this address
    await p.evaluate(() => { window.copied = null; navigator.clipboard.writeText = (t) => { window.copied = t; return Promise.resolve(); }; });
    await p.evaluate(() => document.querySelector('#menu button[data-act="embed"]').click());
    const code = await p.waitForFunction(() => window.copied, { timeout: hang(3000) }).then((x) => x.jsonValue());
    assert.match(code, /^<iframe src="file:[^"]+#lesson=04-heads-entropy-causal&amp;stage=\d+[^"]*" title="[^"]+" width="960" height="600"/);
  } finally {
    await p.close();
  }
  // a lesson opened from a file: its text in the link, opened again in a new page
  const file = join(tmp, 'mine.lesson');
  writeFileSync(file, readFileSync(join(ROOT, 'lessons', '03-four-words-by-hand.lesson')));
  const r = await openPage(browser, URL0);
  try {
    const [chooser] = await Promise.all([r.waitForFileChooser(), r.evaluate(() => document.getElementById('file').click())]);
    await chooser.accept([file]);
    await waitStage(r, /stage 1 \//);
    await r.waitForFunction(() => /text=/.test(location.hash), { timeout: hang(5000) });
    await key(r, 'ArrowRight');
    const link = await r.evaluate(() => location.href);
    assert.match(link, /#name=mine\.lesson&text=[\w-]+&stage=2/);
    const s = await openPage(browser, link);
    try {
      assert.match(await waitStage(s, /stage 2 \//), /Four words by hand/, 'the carried lesson opens at its stage');
    } finally { await s.close(); }
  } finally { await r.close(); }
  // what a link gets wrong is said
  const bad = await openPage(browser, URL0 + '#lesson=01-tour&stage=99&colour=red');
  try {
    assert.match(await waitStage(bad, /stage 10 \/ 10/), /stage 10 \/ 10/, 'past the last stage: the last');
    const said = await bad.evaluate(() => document.getElementById('live').textContent);
    assert.match(said, /field “colour” means nothing here|stage 99/, said);
  } finally { await bad.close(); }
  const cut = await openPage(browser, URL0 + '#name=x.lesson&text=AAAA&stage=1');
  try {
    await cut.waitForFunction(() => /does not unpack/.test(document.getElementById('live').textContent), { timeout: hang(5000) });
  } finally { await cut.close(); }
});

test('unsaved edits make the browser ask before the page goes; without edits it goes', async () => {
  const p = await openPage(browser, URL0 + '#lesson=01-tour&stage=1');
  try {
    await waitStage(p, /stage 1 \//);
    await editFirstInput(p);
    assert.ok((await flags(p)) & 16);
    const asked = new Promise((r) => p.once('dialog', (d) => { r(d.type()); d.dismiss(); }));
    await p.evaluate(() => { setTimeout(() => location.reload(), 0); });
    assert.equal(await Promise.race([asked, sleep(hang(5000)).then(() => 'no dialog')]), 'beforeunload');
    await settle(p);
    assert.ok((await flags(p)) & 16, 'staying keeps the edits');
    await key(p, 'r');                                    // back to the file: nothing to lose
    let dialog = false;
    p.once('dialog', (d) => { dialog = true; d.accept(); });
    await p.reload();
    await ready(p);
    assert.ok(!dialog, 'no question without edits');
  } finally {
    await p.close();
  }
});

test('a lesson opened with its .npy and .npz files (picker and drop); a .npy alone says what to do', async () => {
  const dir = mkdtempSync(join(tmp, 'numpy-'));
  execFileSync('/usr/bin/python3', ['-c', `
import numpy as np
np.save("${dir}/x.npy", np.array([[0.5, -1.25, 2.0], [1.0, 0.25, -0.5]]))
np.savez_compressed("${dir}/w.npz", W=np.array([[1.5, 0.0, 0.0], [0.0, 2.5, 0.0], [0.0, 0.0, -3.0]]))
`]);
  writeFileSync(join(dir, 'mix.lesson'), 'title: Loaded from NumPy\n[setup]\ntokens: a b\nX = load "x.npy"\n' +
    'W = load "w.npz" W\nqueries: X @ W\nkeys: X\nvalues: X\n[embeddings]\n[raw_scores]\n');
  const want = execFileSync('/usr/bin/python3', ['-c', `
import numpy as np
X = np.load("${dir}/x.npy"); W = np.load("${dir}/w.npz")["W"]
print(" ".join("%.2f" % v for v in (X @ W).ravel()))
`], { encoding: 'utf8' }).trim().split(' ');
  const p = await openPage(browser, URL0);
  try {
    const chooser = p.waitForFileChooser();
    await p.evaluate(() => 0);
    await p.keyboard.press('o');
    await (await chooser).accept(['mix.lesson', 'x.npy', 'w.npz'].map((f) => join(dir, f)));
    assert.match(await waitStage(p, /Loaded from NumPy/), /stage 1 \/ 2/, 'the lesson and both its files');
    await key(p, 'ArrowRight');
    const [l, L] = [await list(p), await roles(p)];
    const shown = cellsOf(l, L).filter((c) => c.panel === 0).sort((a, b) => a.row - b.row || a.col - b.col).map((c) => cellText(l, L, c).text);
    assert.deepEqual(shown, want, 'the queries X·W numpy computes from the loaded arrays');
    // a .npy by itself
    const again = p.waitForFileChooser();
    await p.evaluate(() => 0);
    await p.keyboard.press('o');
    await (await again).accept([join(dir, 'x.npy')]);
    await settle(p);
    assert.match((await texts(p, 'ROLE_OVERLAY')).join(' '), /x\.npy: a NumPy file: open it together with the lesson that loads it/);
    // dropped together
    const files = ['mix.lesson', 'w.npz', 'x.npy'].map((f) => [f, readFileSync(join(dir, f)).toString('base64')]);
    const lit = await p.evaluate((fs) => {
      const dt = new DataTransfer();
      for (const [n, d] of fs) dt.items.add(new File([Uint8Array.from(atob(d), (ch) => ch.charCodeAt(0))], n));
      const stage = document.getElementById('stage');
      stage.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
      const on = document.body.classList.contains('dropping') && getComputedStyle(document.getElementById('view'), '::after').borderTopStyle;
      stage.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      return [on, document.body.classList.contains('dropping')];
    }, files);
    assert.deepEqual(lit, ['dashed', false], 'files dragged over the page light it up; the drop puts it out');
    assert.match(await waitStage(p, /stage 1 \/ 2/), /Loaded from NumPy/);
    assert.equal(await p.evaluate(() => document.getElementById('error').textContent), '');
  } finally {
    await p.close();
  }
});

test('a model folder: its files picked, every layer of GPT-2; I types a sentence, the same stage after; a folder without weights says why', async () => {
  const dir = mkdtempSync(join(tmp, 'model-')), gpt = join(dir, 'tiny');
  execFileSync('/usr/bin/python3', [join(ROOT, 'tests', 'tiny_model.py'), gpt]);
  const files = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'].map((f) => join(gpt, f));
  const p = await openPage(browser, URL0);
  try {
    const chooser = p.waitForFileChooser();
    await p.evaluate(() => 0);
    await p.keyboard.press('o');
    await (await chooser).accept(files);
    const first = await waitStage(p, /model reads a sentence/);
    assert.match(first, /stage 1 \/ \d+/, 'the lesson of the folder opens at its first stage');
    assert.match(first, /layer 1/, 'a stage of the first layer: ' + first);
    const labels = async () => (await texts(p, 'ROLE_COL_LABEL')).concat(await texts(p, 'ROLE_ROW_LABEL')).join(' ');
    const before = await labels();
    assert.match(before, /Ġthe/, 'the default sentence, in GPT-2\'s tokens (the folder merges few words)');
    await key(p, 'ArrowRight');
    await key(p, 'ArrowRight');
    const at = await stageLabel(p), stage = /stage (\d+) \//.exec(at)[1];
    // I: the sentence in a field, another typed, Enter
    await key(p, 'i');
    assert.equal(await p.evaluate(() => document.getElementById('sentence').hidden), false, 'I opens the sentence field');
    assert.equal(await p.evaluate(() => document.activeElement.id), 'sentence-text');
    assert.equal(await p.evaluate(() => document.getElementById('sentence-text').value),
      'When Mary and John went to the store, John gave a drink to');
    await p.evaluate(readFileSync(join(ROOT, 'web', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
    const bad = await p.evaluate(async () => (await window.axe.run(document, { runOnly: { type: 'tag',
      values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id));
    assert.deepEqual(bad, [], 'axe-core: the sentence field, its label and buttons');
    await p.evaluate(() => { document.getElementById('sentence-text').value = ''; });
    await p.keyboard.type('The cat sat on the mat');
    await key(p, 'Enter');
    assert.equal(await p.evaluate(() => document.getElementById('sentence').hidden), true, 'Enter reads it and closes the field');
    const after = await waitStage(p, new RegExp('stage ' + stage + ' /'));
    assert.match(after, new RegExp('stage ' + stage + ' /'), 'the same stage: ' + at + ' then ' + after);
    const now = await labels();
    assert.match(now, /Ġ(cat|sat|mat)/, 'the new sentence\'s tokens: ' + now);
    assert.notEqual(now, before);
    assert.equal(await p.evaluate(() => document.getElementById('error').textContent), '');
    // a lesson without a model: I says so
    await p.evaluate(() => window.attnlab.openLesson('01-tour'));
    await waitStage(p, /stage 1 \//);
    await key(p, 'i');
    assert.equal(await p.evaluate(() => document.getElementById('sentence').hidden), true);
    assert.match((await texts(p, 'ROLE_OVERLAY')).join(' '), /this lesson reads no model/);
    // the weights left out
    const again = p.waitForFileChooser();
    await p.evaluate(() => 0);
    await p.keyboard.press('o');
    await (await again).accept([files[0], files[2]]);
    await settle(p);
    assert.match(await p.evaluate(() => document.getElementById('error').textContent),
      /^model: error: cannot open: a model folder needs config\.json and model\.safetensors$/);
  } finally {
    await p.close();
  }
});

// Whether boxes a and b (CSS pixels) overlap by more than a pixel.
const overlap = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
// The boxes of the page's visible controls and of the canvas.
const boxes = (p) => p.evaluate(() => [...document.querySelectorAll('#stage, #bar button, #menu button, #pin button, #numbers')]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map((e) => { const r = e.getBoundingClientRect(); return { id: e.id || e.dataset.act, l: r.left, t: r.top, r: r.right, b: r.bottom }; }));

test('touch at 390×844: tap a lesson, every toggle from the compact toolbar, tap a cell and step it with + and −', async () => {
  const p = await openPage(browser, URL0, { viewport: PHONE });
  const dir = mkdtempSync(join(tmp, 'touch-'));
  try {
    await allowDownloads(p, dir);
    let at = await centre(p, '#lessons li:nth-child(2) a');
    await p.touchscreen.tap(at.x, at.y);
    assert.match(await waitStage(p, /stage 1 \/ 13/), /From one-hot words/, 'a tap on a lesson opens it');
    const tap = async (sel) => { const c = await centre(p, sel); await p.touchscreen.tap(c.x, c.y); await settle(p); };
    await tap('#bar button[data-act="more"]');
    assert.ok(await p.evaluate(() => !document.getElementById('menu').hidden), 'the menu opens');
    // every control fits the screen, none over another, the stage above them
    let bx = await boxes(p);
    for (const a of bx) {
      assert.ok(a.l >= -0.5 && a.r <= 390.5, `${a.id} is on screen: ${a.l}..${a.r}`);
      for (const b of bx) if (a !== b && a.id !== 'stage' && b.id !== 'stage') assert.ok(!overlap(a, b), `${a.id} overlaps ${b.id}`);
    }
    const stageBox = bx.find((b) => b.id === 'stage'), first = Math.min(...bx.filter((b) => b.id !== 'stage').map((b) => b.t));
    assert.ok(stageBox.t < 5 && stageBox.b <= first + 0.5, 'the stage first, the controls below it');
    // the toggles: a stage with two heads and weights
    await key(p, '9');
    const f0 = await flags(p);
    await tap('#menu button[data-act="mask"]');
    assert.notEqual((await flags(p)) & 1024, f0 & 1024, 'mask');
    await tap('#menu button[data-act="scaling"]');
    assert.notEqual((await flags(p)) & 2048, f0 & 2048, 'scaling');
    await tap('#menu button[data-act="head"]');
    assert.match(await hash(p), /head=1/, 'head');
    await tap('#menu button[data-act="colder"]');
    assert.match(await hash(p), /temp=0\.8/, 'temperature down');
    await tap('#menu button[data-act="warmer"]');
    await tap('#menu button[data-act="warmer"]');
    assert.match(await hash(p), /temp=1\.25/, 'temperature up');
    await tap('#menu button[data-act="cmap"]');
    assert.match(await hash(p), /cmap=/, 'colormap');
    await tap('#menu button[data-act="predict"]');
    assert.ok((await flags(p)) & 256, 'predict');
    for (let i = 0; i < 2 && ((await flags(p)) & 256); i++) await tap('#menu button[data-act="predict"]');   /* reveal, off */
    assert.ok(!((await flags(p)) & 256), 'predict off');
    await tap('#menu button[data-act="svg"]');
    await waitFile(dir, '.svg');
    await tap('#menu button[data-act="png"]');
    await waitFile(dir, '.png');
    await tap('#bar button[data-act="theme"]');
    assert.ok((await flags(p)) & 2, 'theme');
    await tap('#bar button[data-act="numbers"]');
    assert.ok(await p.evaluate(() => document.querySelectorAll('#tables table').length > 0), 'the numbers');
    await tap('#bar button[data-act="numbers"]');
    // tap an input cell: pinned, with + and − beside it
    await key(p, '1');
    const L = await roles(p);
    const cell = cellsOf(await list(p), L).find((c) => c.panel === 0 && c.row === 0 && c.col === 0);
    const value = () => list(p).then((l) => cellText(l, L, cellsOf(l, L).find((c) => c.panel === 0 && c.row === 0 && c.col === 0)).text);
    const was = await value();
    at = await cellPoint(p, cell);
    await p.touchscreen.tap(at.x, at.y);
    await settle(p);
    assert.ok(await p.evaluate(() => !document.getElementById('pin').hidden), 'the + and − of a pinned input');
    await tap('#pin button[data-act="increase"]');
    assert.equal(Number(await value()).toFixed(2), (Number(was) + 0.1).toFixed(2), '+ steps the input up');
    // the edit is said in the toolbar, not over the slide's title
    assert.ok(await p.evaluate(() => !document.getElementById('edited').hidden), 'the toolbar says the edits are not saved');
    assert.equal((await list(p)).cmds.filter((c) => c.text && c.text.includes('edited, not saved')).length, 0);
    mkdirSync(SHOTS, { recursive: true });
    await p.screenshot({ path: join(SHOTS, 'phone-390x844.png') });
    await tap('#menu button[data-act="undo"]');
    assert.equal(await value(), was, 'undo');
    assert.ok(await p.evaluate(() => document.getElementById('edited').hidden), 'no edit left: nothing said');
    await tap('#menu button[data-act="redo"]');
    await tap('#pin button[data-act="decrease"]');
    await tap('#pin button[data-act="decrease"]');
    assert.equal(Number(await value()).toFixed(2), (Number(was) - 0.1).toFixed(2), '− steps it down');
    await tap('#menu button[data-act="save"]');
    await waitFile(dir, '.lesson');
    bx = await boxes(p);
    for (const a of bx) for (const b of bx) if (a !== b && a.id !== 'stage' && b.id !== 'stage') assert.ok(!overlap(a, b), `${a.id} overlaps ${b.id}`);
    // a swipe steps, as → does (a stage may take pages on the phone: the page after)
    await key(p, 'Home');
    await key(p, 'ArrowRight');
    const before = await stageLabel(p);
    await key(p, 'ArrowRight');
    const next = await stageLabel(p);
    await key(p, 'ArrowLeft');
    assert.equal(await stageLabel(p), before);
    await p.touchscreen.touchStart(300, 300);
    await p.touchscreen.touchMove(100, 305);
    await p.touchscreen.touchEnd();
    await settle(p);
    assert.equal(await stageLabel(p), next, 'the swipe went on a page');
  } finally {
    await p.close();
  }
  // the narrowest phone: 360 px
  const q = await openPage(browser, URL0 + '#lesson=04-heads-entropy-causal&stage=6', { viewport: { ...PHONE, width: 360, height: 740 } });
  try {
    await q.evaluate(() => document.querySelector('#bar button[data-act="more"]').click());
    await settle(q);
    const bx = await boxes(q);
    for (const a of bx) {
      assert.ok(a.l >= -0.5 && a.r <= 360.5, `${a.id} is on screen at 360 px`);
      for (const b of bx) if (a !== b && a.id !== 'stage' && b.id !== 'stage') assert.ok(!overlap(a, b), `${a.id} overlaps ${b.id} at 360 px`);
    }
  } finally {
    await q.close();
  }
});

test('the phone layout at 390×844: on every page of every bundled lesson, numbers at 12 CSS px or more, labels, prose, header, formula and notes at 14', async () => {
  const bad = [];
  let pages = 0, printed = 0;
  for (const f of bundled()) {
    const p = await openPage(browser, URL0 + '#lesson=' + f.replace(/\.lesson$/, '') + '&stage=1', { viewport: PHONE });
    try {
      await waitStage(p, /stage 1 \//);
      for (let guard = 0; guard < 400; guard++) {
        const r = await p.evaluate(() => {
          const h = window.attnlab, L = h.layout, l = h.list, d = h.devicePixelRatio(), paras = h.textView().paras || [];
          const texts = (role) => l.cmds.filter((c) => c.kind === L.DRAW_TEXT && c.role === L[role] && c.text && c.text.trim());
          const least = (cmds) => Math.min(1e9, ...cmds.map((c) => c.size / d));
          const numbers = texts('ROLE_CELL_TEXT');
          return {
            label: l.cmds.filter((c) => c.role === L.ROLE_TITLE).map((c) => c.text).join(' | '),
            numbers: least(numbers), printed: numbers.length,
            prose: least(texts('ROLE_BODY').filter((c) => c.text.length > 3 && paras.some((s) => s.includes(c.text.trim())))),
            labels: least(texts('ROLE_ROW_LABEL').concat(texts('ROLE_COL_LABEL'))),
            words: least(texts('ROLE_TITLE').concat(texts('ROLE_FORMULA'), texts('ROLE_BODY'))),
            width: l.cmds.some((c) => c.kind === L.DRAW_TEXT && c.x + c.w > l.width + 1),
          };
        });
        pages++;
        if (r.printed) printed++;
        const where = `${f}: ${r.label.slice(0, 70)}`;
        if (r.numbers < 12) bad.push(`numbers at ${r.numbers.toFixed(1)} px: ${where}`);
        if (r.prose < 14) bad.push(`prose at ${r.prose.toFixed(1)} px: ${where}`);
        if (r.words < 14) bad.push(`the header's line, the formula or the notes line at ${r.words.toFixed(1)} px: ${where}`);
        if (r.printed && r.labels < 14) bad.push(`labels at ${r.labels.toFixed(1)} px beside printed numbers: ${where}`);
        await p.keyboard.press('ArrowRight');
        await settle(p);
        if (await stageLabel(p) === r.label) break;
      }
    } finally {
      await p.close();
    }
  }
  console.log(`# phone 390x844: ${pages} pages of ${bundled().length} lessons, ${printed} printing numbers; ${bad.length} below the sizes`);
  assert.deepEqual(bad, []);
});

test('the text view: a screen reader hears each stage, and each panel\'s numbers are a table of what the stage prints', async () => {
  const p = await openPage(browser, URL0 + '#lesson=01-tour&stage=5');
  try {
    await waitStage(p, /stage 5 \//);
    const words = await p.evaluate(() => ({ text: document.getElementById('text').innerText,
      live: document.getElementById('text').getAttribute('aria-live'),
      label: document.getElementById('stage').getAttribute('aria-label') }));
    const title = (await texts(p, 'ROLE_TITLE'))[0], formula = (await texts(p, 'ROLE_FORMULA')).join(' ');
    assert.ok(words.text.includes(title) && words.text.includes(formula.slice(0, 10)), 'title and formula: ' + words.text);
    assert.match(words.text, /Softmax exponentiates/, 'and the explanation');
    assert.equal(words.live, 'polite');
    assert.ok(words.label.includes(title));
    await key(p, 'ArrowRight');
    const next = (await texts(p, 'ROLE_TITLE'))[0];
    assert.ok(await p.evaluate((t) => document.getElementById('text').innerText.includes(t), next), 'a new stage, new words');
    await key(p, 'ArrowLeft');
    await p.click('#bar button[data-act="numbers"]');
    await settle(p);
    const [l, L] = [await list(p), await roles(p)];
    const tables = await p.$$eval('#tables table', (ts) => ts.map((t) => ({
      caption: t.caption.textContent,
      cols: [...t.tHead.rows[0].cells].map((c) => [c.tagName, c.scope, c.textContent]),
      rows: [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => [c.tagName, c.scope, c.textContent])),
    })));
    assert.equal(tables.length, 2, 'a table a panel');
    let matched = 0;
    for (const c of l.cmds.filter((x) => x.kind === L.DRAW_TEXT && x.role === L.ROLE_CELL_TEXT)) {
      const row = tables[c.panel].rows[c.row];
      assert.equal(row[0][0], 'TH');
      assert.equal(row[0][1], 'row');
      assert.equal(row[c.col + 1][2], c.text, `panel ${c.panel} (${c.row}, ${c.col})`);
      matched++;
    }
    assert.equal(matched, 32, 'every printed number');
    assert.deepEqual(tables[1].cols.slice(1).map((c) => c[2]), ['the', 'cat', 'sat', 'down']);
    assert.ok(tables[1].cols.every((c) => c[0] === 'TH' && c[1] === 'col'));
    const copied = await p.evaluate(() => {
      const t = document.querySelector('#tables table'), s = window.getSelection();
      s.selectAllChildren(t);
      return s.toString();
    });
    assert.match(copied, /-0\.20[^]*0\.26/, 'the numbers can be selected and copied');
  } finally {
    await p.close();
  }
});

test('right-to-left paragraphs are drawn right to left, as on the desktop (lesson 12)', async () => {
  const p = await openPage(browser, URL0);
  try {
    await p.evaluate(() => {
      window.runs = [];
      const fill = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (t, x, y) {
        window.runs.push([t, this.direction]);
        return fill.call(this, t, x, y);
      };
    });
    assert.equal(await p.evaluate(() => window.attnlab.openLesson('12-arabic-pronoun')), 0);
    for (let i = 0; i < 4; i++) await key(p, 'ArrowRight');
    const runs = await p.evaluate(() => window.runs);
    const arabic = runs.filter(([t]) => /[\u0600-\u06ff]/.test(t) && /[.،؟:]\s*$/.test(t));
    assert.ok(arabic.length > 3, 'Arabic sentences were drawn');
    for (const [t, dir] of arabic) assert.equal(dir, 'rtl', `"${t}" is drawn right to left`);
    const latin = runs.filter(([t]) => /^[A-Za-z]/.test(t) && !/[\u0590-\u08ff]/.test(t));
    assert.ok(latin.length > 0 && latin.every(([, d]) => d === 'ltr'), 'Latin text left to right');
  } finally {
    await p.close();
  }
});

test('axe-core finds no serious or critical WCAG 2.1 AA problem, on a wide screen and a phone, light and dark', async () => {
  const axe = readFileSync(join(ROOT, 'web', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  const check = async (p, what) => {
    await p.evaluate(axe);
    const found = await p.evaluate(async () => {
      const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return { bad: r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`),
      passes: r.passes.length };
    });
    assert.deepEqual(found.bad, [], what);
    return found.passes;
  };
  let rules = 0;
  const p = await openPage(browser, URL0);
  try {
    rules += await check(p, 'the lesson list');
    await key(p, 'Enter');
    await waitStage(p, /stage 1 \//);
    await p.click('#bar button[data-act="numbers"]');
    await p.click('#bar button[data-act="more"]');
    await settle(p);
    rules += await check(p, 'a lesson with its numbers and every control');
    await key(p, 't');
    await key(p, '5');
    rules += await check(p, 'the dark theme');
    await key(p, '?');
    rules += await check(p, 'the help');
    await key(p, 'Escape');
    const L = await roles(p);
    await key(p, '1');
    const at = await cellPoint(p, cellsOf(await list(p), L).find((c) => c.panel === 0 && c.row === 0 && c.col === 0));
    await p.mouse.move(at.x, at.y);
    await p.mouse.wheel({ deltaY: -100 });
    await p.mouse.click(at.x, at.y);
    await key(p, 'l');
    await key(p, '3');
    assert.ok((await flags(p)) & 64, 'the question about the edits');
    rules += await check(p, 'the question dialog');
    await key(p, 'Escape');
  } finally {
    await p.close();
  }
  const q = await openPage(browser, URL0 + '#lesson=03-four-words-by-hand&stage=3', { viewport: PHONE });
  try {
    await q.evaluate(() => document.querySelector('#bar button[data-act="more"]').click());
    rules += await check(q, 'a phone');
    await q.evaluate(() => document.querySelector('#bar button[data-act="numbers"]').click());
    await settle(q);
    rules += await check(q, 'a phone with its numbers');
    await q.evaluate(() => document.querySelector('#menu button[data-act="help"]').click());
    await settle(q);
    rules += await check(q, 'a phone with the help');
  } finally {
    await q.close();
  }
  console.log(`# axe-core ${JSON.parse(readFileSync(join(ROOT, 'web', 'node_modules', 'axe-core', 'package.json'), 'utf8')).version}: ` +
    `no serious or critical violation in 8 states (${rules} rule checks passed)`);
});

test('speed: the first frame, a 64-token 4-head lesson per frame and from a key to its frame, the size of the file', async () => {
  const size = statSync(PAGE).size;
  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  // a warm browser: the page opened again in a new tab
  const first = [], firstLesson = [];
  for (let i = 0; i < 5; i++) {
    const p = await openPage(browser, URL0);
    first.push(await p.evaluate(() => window.attnlab.firstFrameMs));
    await p.close();
    const q = await openPage(browser, URL0 + '#lesson=01-tour&stage=5');
    await waitStage(q, /stage 5 \//);
    firstLesson.push(await q.evaluate(() => window.attnlab.firstFrameMs));
    await q.close();
  }
  const toks = Array.from({ length: 64 }, (_, i) => 'w' + i).join(' ');
  const big = `title: Sixty-four tokens, four heads\n[setup]\nseed: 7\ntokens: ${toks}\nX = randn 64x64\nheads: 4\n` +
    'W_q = randn 4x64x16 * 0.2\nW_k = randn 4x64x16 * 0.2\nW_v = randn 4x64x16 * 0.2\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\n' +
    '[raw_scores]\n[scaled_scores]\n[softmax]\n[weighted_sum]\n[multi_head]\n';
  const p = await openPage(browser, URL0);
  let frames, keys, hovers, cmds, tableKeys;
  try {
    assert.equal(await p.evaluate((t) => window.attnlab.openText('big.lesson', t), big), 0);
    await p.evaluate(() => { window.attnlab.frameMs.length = 0; window.attnlab.keyMs.length = 0; });
    for (let i = 0; i < 24; i++) {
      await p.keyboard.press(i % 8 < 4 ? 'ArrowRight' : 'ArrowLeft');
      await settle(p);
    }
    ({ frames, keys } = await p.evaluate(() => ({ frames: [...window.attnlab.frameMs], keys: [...window.attnlab.keyMs] })));
    // the same steps with the Numbers tables open: the tables in view are made at once, the rest later
    await p.click('#bar button[data-act="numbers"]');
    await p.focus('#stage');
    await p.evaluate(() => { window.attnlab.keyMs.length = 0; });
    for (let i = 0; i < 12; i++) {
      await p.keyboard.press(i % 8 < 4 ? 'ArrowRight' : 'ArrowLeft');
      await settle(p);
    }
    tableKeys = await p.evaluate(() => [...window.attnlab.keyMs]);
    // then, a second later and a few rows at a time, every table is whole, for whoever reads on
    await p.waitForFunction(() => [...document.querySelectorAll('#tables table')].every((t) => t.tHead && t.tBodies[0].rows.length === 64),
    { timeout: hang(30000) });
    await p.click('#bar button[data-act="numbers"]');
    await key(p, '3');
    const L = await roles(p);
    const l = await list(p);
    cmds = l.cmds.length;
    const cells = cellsOf(l, L).filter((c, i) => i % 211 === 0).slice(0, 20);
    await p.evaluate(() => { window.attnlab.frameMs.length = 0; });
    for (const c of cells) {
      const at = await cellPoint(p, c);
      await p.mouse.move(at.x, at.y);
      await settle(p);
    }
    hovers = await p.evaluate(() => [...window.attnlab.frameMs]);
  } finally {
    await p.close();
  }
  // the same lesson on a phone (its own layout: more pages)
  const ph = await openPage(browser, URL0, { viewport: PHONE });
  let phoneKeys;
  try {
    assert.equal(await ph.evaluate((t) => window.attnlab.openText('big.lesson', t), big), 0);
    await ph.evaluate(() => { window.attnlab.keyMs.length = 0; });
    for (let i = 0; i < 24; i++) {
      await ph.keyboard.press(i % 8 < 4 ? 'ArrowRight' : 'ArrowLeft');
      await settle(ph);
    }
    phoneKeys = await ph.evaluate(() => [...window.attnlab.keyMs]);
  } finally {
    await ph.close();
  }
  const ms = (v) => v.toFixed(0) + ' ms';
  console.log(`# speed, on ${cpus().length} cores with load average ${load} (the figures grow with the load):`);
  console.log(`#   the file: ${size} bytes (${(size / 1024).toFixed(0)} KB; target 700 KB)`);
  console.log(`#   first frame from a warm browser: the lesson list ${ms(median(first))} (best ${ms(Math.min(...first))}), ` +
    `a lesson's stage from its link ${ms(median(firstLesson))} (best ${ms(Math.min(...firstLesson))}); target 500 ms`);
  console.log(`#   64 tokens, 4 heads (${cmds} cells and other commands as objects): a frame ${ms(median(frames))} ` +
    `(worst ${ms(Math.max(...frames))}; target 30 ms), from a key to its frame on screen ${ms(median(keys))} ` +
    `(worst ${ms(Math.max(...keys))}; target 50 ms), a hover ${ms(median(hovers))}`);
  console.log(`#   the same with the Numbers tables open: from a key to its frame ${ms(median(tableKeys))} ` +
    `(worst ${ms(Math.max(...tableKeys))}; target 50 ms); on a 390x844 phone ${ms(median(phoneKeys))} ` +
    `(worst ${ms(Math.max(...phoneKeys))}; target 50 ms)`);
  assert.ok(size <= 700 * 1024, `the page is ${size} bytes, over 700 KB`);
});

test('no page logged an error', async () => {
  assert.deepEqual(problems, []);
});
