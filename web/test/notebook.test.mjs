// notebook.test.mjs: the Python module's interactive view as notebooks show
// it. Outputs made by python/attnlab (Lesson.interactive()._repr_html_())
// are put into a page the way JupyterLab renders a trusted output (its
// HTML, then each script run anew), inside VS Code's webview frame (its
// sandbox attributes), and each in a frame of its own (Colab, JupyterLab's
// isolated outputs). In each the lesson is drawn in a sandboxed frame,
// steps by keyboard, and never touches the notebook's address; the page
// travels in the first output only, and an output that comes before it
// waits for it; where no output carries the page, the PNG and a note stay.
//
//   cd web && node --test test/notebook.test.mjs      (make test-web runs it)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, PAGE, tmp, hang, launch, sleep } from './lib.mjs';

let browser, outputs;
const errors = [];

// Four outputs of one kernel: four heads given (carries the page), a causal
// two-head lesson at stage 3 (does not), 40 tokens with their arrays as
// float16 (does not), and the two-head lesson at stage 2 carrying the page
// again (carry=True), for a frame of its own.
const MAKE = String.raw`
import json, sys, numpy as np
import attnlab
rng = np.random.default_rng(1)
a = rng.random((4, 6, 6)); a /= a.sum(-1, keepdims=True)
heads = attnlab.show(a, "the cat sat on the mat".split(), stage="multi_head")
out = [heads.interactive()._repr_html_()]
les = attnlab.Lesson("Two setups")
X = rng.normal(size=(5, 8))
les.setup(list("abcde"), X, W_q=rng.normal(size=(8, 8)), W_k=rng.normal(size=(8, 8)), W_v=rng.normal(size=(8, 8)), heads=2, mask="causal")
les.stage("qkv_projection").stage("raw_scores").stage("multi_head", text="Two heads, causal.")
out.append(les.interactive(stage=3)._repr_html_())
big = attnlab.Lesson("Half precision")
big.setup(["t%d" % i for i in range(40)], rng.normal(size=(40, 64)).astype(np.float32), W_q=rng.normal(size=(64, 64)),
          W_k=rng.normal(size=(64, 64)), W_v=rng.normal(size=(64, 64)), heads=4)
big.stage("multi_head")
out.append(big.interactive(dtype="float16")._repr_html_())
out.append(les.interactive(stage=2, carry=True)._repr_html_())
json.dump(out, sys.stdout)
`;

before(async () => {
  outputs = JSON.parse(execFileSync('/usr/bin/python3', ['-c', MAKE], {
    cwd: ROOT, maxBuffer: 1 << 28,
    env: { ...process.env, PYTHONPATH: join(ROOT, 'python'), ATTNLAB_HTML: PAGE },
  }).toString());
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); });

// A notebook's document: each output's HTML put in, its scripts run anew
// (as JupyterLab and VS Code render a trusted output), in the given order
// of outputs (index into outputs), placed in notebook order.
const notebook = (order) => `<!doctype html><html><head><meta charset="utf-8"><title>notebook</title></head><body>
${outputs.map((_, i) => `<div class="cell" id="out${i}"></div>`).join('\n')}
<script>
const outputs = ${JSON.stringify(outputs).replace(/</g, '\\u003c')};
function render(i) {
  const area = document.getElementById('out' + i);
  area.innerHTML = outputs[i];
  for (const old of area.querySelectorAll('script')) {
    const s = document.createElement('script');
    for (const a of old.attributes) s.setAttribute(a.name, a.value);
    s.textContent = old.textContent;
    old.replaceWith(s);
  }
}
${JSON.stringify(order)}.forEach((i, k) => setTimeout(() => render(i), 300 * k));
</script></body></html>`;

const VSCODE = 'allow-scripts allow-same-origin allow-forms allow-pointer-lock allow-downloads';
// A page holding doc in a frame with the given sandbox attributes.
const framed = (doc, sandbox) => `<!doctype html><html><body style="margin:0">
<iframe sandbox="${sandbox}" style="width:1200px;height:2900px;border:0" srcdoc="${doc.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></iframe>
</body></html>`;

// Open a file of html in a new tab, its errors noted.
async function open(name, html) {
  const file = join(tmp, name);
  writeFileSync(file, html);
  const p = await browser.newPage();
  p.on('console', (m) => { if (m.type() === 'error') errors.push(name + ': ' + m.text()); });
  p.on('pageerror', (e) => errors.push(name + ': ' + e.message));
  await p.setViewport({ width: 1240, height: 900 });
  await p.goto('file://' + file);
  return p;
}

// The attnlab frames of a tab once n of them have drawn: [{frame, stage line}].
async function drawn(p, n) {
  const end = Date.now() + hang(30000);
  for (;;) {
    const found = [];
    for (const f of p.frames()) {
      if (f.url() !== 'about:srcdoc') continue;
      const s = await f.evaluate(() => (window.attnlab && window.attnlab.ready && window.attnlab.frames > 0 && window.attnlab.list
        ? window.attnlab.list.cmds.filter((c) => c.role === window.attnlab.layout.ROLE_TITLE).map((c) => c.text).join(' | ')
        : null)).catch(() => null);
      if (s) found.push({ frame: f, label: s });
    }
    if (found.length >= n) return found;
    if (Date.now() > end) throw new Error('only ' + found.length + ' of ' + n + ' interactive views drew');
    await sleep(100);
  }
}

// What an output's box holds: its frame's sandbox, whether the PNG and the note are shown.
const boxes = (f) => f.evaluate(() => [...document.querySelectorAll('.attnlab-interactive')].map((b) => ({
  sandbox: b.querySelector('iframe') && b.querySelector('iframe').getAttribute('sandbox'),
  still: !!b.querySelector('img.attnlab-still'),
  note: b.querySelector('.attnlab-note').style.display === 'none' ? '' : b.querySelector('.attnlab-note').textContent,
  pages: b.querySelectorAll('script[type="application/x-attnlab-page"]').length,
})));

test('the outputs: the page travels in the first one only (or when asked), the arrays in float32 or float16', () => {
  const pages = outputs.map((o) => (o.match(/<script type="application\/x-attnlab-page"/g) || []).length);
  assert.deepEqual(pages, [1, 0, 0, 1]);
  const sizes = outputs.map((o) => o.length);
  assert.ok(sizes[0] < 1.1e6, 'the first output (page, PNG, lesson) is ' + sizes[0] + ' bytes');
  assert.ok(sizes[1] < 150e3, 'an output without the page is its PNG and lesson: ' + sizes[1] + ' bytes');
  // the float16 arrays: 40×64 + 3 × 64×64 numbers, 2 bytes each, base64
  const npz = /data-name="arrays.npz">([^<]*)</.exec(outputs[2]);
  assert.ok(npz, 'the float16 lesson carries a .npz');
  const bytes = Buffer.from(npz[1], 'base64');
  assert.ok(bytes.length > 2 * (40 * 64 + 3 * 64 * 64) && bytes.length < 2.2 * (40 * 64 + 3 * 64 * 64) + 4000,
    'float16 arrays take 2 bytes a number: ' + bytes.length);
});

test('JupyterLab: every output draws in its sandboxed frame, one that came before the page waits for it', async () => {
  const p = await open('jupyter.html', notebook([1, 0, 2]));
  try {
    const views = await drawn(p, 3);
    const labels = views.map((v) => v.label).sort();
    assert.ok(labels.some((l) => /Multi-head attention/.test(l) && /stage 1 \/ 1/.test(l)), labels.join('\n'));
    assert.ok(labels.some((l) => /Two setups\s+·\s+stage 3 \/ 3/.test(l)), 'the two-head lesson opens at its stage 3: ' + labels.join('\n'));
    assert.ok(labels.some((l) => /Half precision/.test(l)), labels.join('\n'));
    const b = await boxes(p.mainFrame());
    assert.deepEqual(b.slice(0, 3).map((x) => [x.sandbox, x.still, x.note]), Array(3).fill(['allow-scripts allow-downloads', false, '']));
    // a key steps the slide inside its frame; the notebook's address stays
    const two = views.find((v) => /Two setups/.test(v.label)).frame;
    const el = await two.frameElement();
    await el.focus();
    await two.focus('canvas').catch(() => {});
    await p.keyboard.press('ArrowLeft');
    await two.waitForFunction(() => window.attnlab.list.cmds.some((c) => c.role === window.attnlab.layout.ROLE_TITLE && /stage 2 \/ 3/.test(c.text)),
      { timeout: hang(5000) });
    assert.equal(await p.evaluate(() => location.href), 'file://' + join(tmp, 'jupyter.html'));
  } finally { await p.close(); }
});

test('VS Code: inside its webview frame (allow-scripts allow-same-origin ...) the outputs draw the same', async () => {
  const p = await open('vscode.html', framed(notebook([0, 1, 2]), VSCODE));
  try {
    const views = await drawn(p, 3);
    assert.equal(views.length, 3);
    const shot = await views[0].frame.evaluate(() => {
      const c = document.getElementById('stage'), g = c.getContext('2d');
      const d = g.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i] >> 4) + ',' + (d[i + 1] >> 4) + ',' + (d[i + 2] >> 4));
      return { w: c.width, h: c.height, colours: seen.size };
    });
    assert.ok(shot.w > 300 && shot.h > 200 && shot.colours > 20, 'the canvas is drawn, not blank: ' + JSON.stringify(shot));
  } finally { await p.close(); }
});

test('an output in a frame of its own: drawn when it carries the page, else its PNG and a note saying what to do', async () => {
  const doc = (i) => framed(`<!doctype html><html><body>${outputs[i]}</body></html>`, 'allow-scripts allow-same-origin');
  const p = await open('isolated.html', doc(3) + doc(1));
  try {
    const views = await drawn(p, 1);
    assert.match(views[0].label, /Two setups\s+·\s+stage 2 \/ 3/);
    await sleep(500);
    const inner = p.frames().filter((f) => f.parentFrame() === p.mainFrame());
    const b = await boxes(inner[1]);
    assert.equal(b[0].sandbox, null);
    assert.ok(b[0].still, 'the PNG stays');
    assert.match(b[0].note, /carry=True/);
  } finally { await p.close(); }
});

test('no notebook page logged an error', () => {
  assert.deepEqual(errors, []);
});
