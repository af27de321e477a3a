/*
** attnlab.js: the browser edition's page script.
**
** The program itself is C compiled to WebAssembly (core, view, the app's
** state and frame, and web/platform.c); this script only does what a
** platform does: it puts the bundled lessons into the module's in-memory
** file system, sizes a canvas to the window (in device pixels, so high-DPI
** screens are sharp), turns keys, pointer, wheel and touch events into calls
** of the module, and draws the display list each frame returns on the
** canvas. Text is measured here too (attnlabMeasure), with the same font
** stack that draws it, so the C layout and the canvas agree to the pixel.
**
** Page-only features: S downloads the stage as PNG, Shift+S as SVG, Ctrl+S
** downloads the edited lesson, O (or dropping a file) opens a lesson from
** disk, ?lesson=URL opens one from the same site. ? shows the keys, drawn
** by the program like the desktop's. The page speaks the interface's
** language: the catalogues are written into the module's file system, the
** browser's language becomes LANG, and the buttons' words come from the
** catalogues too (web_tr).
**
** window.attnlab is a small debug hook the browser test reads (the display
** list as plain objects, the explain text, timings).
*/
'use strict';
(function () {
  const FONT_STACK = '"DejaVu Sans", "Noto Sans", "Segoe UI", Roboto, "Helvetica Neue", Arial, system-ui, sans-serif';
  const SHOT_W = 1280, SHOT_H = 800;   /* the desktop's export size */
  const WEB_LAYOUT_FIELDS = ['size', 'kind', 'role', 'color', 'r', 'width', 'text', 'fsize', 'halign', 'valign',
    'bold', 'rotate', 'dashed', 'panel', 'row', 'col', 'cmds', 'n', 'arena', 'background',
    'DRAW_RECT', 'DRAW_LINE', 'DRAW_TEXT', 'ALIGN_CENTER', 'ALIGN_RIGHT', 'VALIGN_TOP', 'VALIGN_BOTTOM',
    'ROLE_CELL', 'ROLE_CELL_TEXT', 'ROLE_TITLE', 'ROLE_OVERLAY', 'pix', 'DRAW_IMAGE',
    'DRAW_DASH_ON', 'DRAW_DASH_OFF'];
  const canvas = document.getElementById('stage');
  const ctx = canvas.getContext('2d');
  const measureCtx = document.createElement('canvas').getContext('2d');
  const hook = window.attnlab = { errors: [], frames: 0 };
  let M = null, L = null;          /* the module, the struct layout */
  let W = 0, H = 0, dpr = 1;
  let pointer = null;              /* last pointer position in device pixels */
  let pending = false, toastTimer = 0;

  /* ---- text: one font stack measures and draws ---- */

  /*
  ** Text is measured and drawn the way the desktop does it where that is
  ** possible: sizes in whole pixels (rounded as src/sdl/font.c rounds them)
  ** and each character at a whole-pixel advance, unkerned. Then a stage
  ** lays out on the same cells as the desktop's and the exports. Runs that
  ** need the browser's shaping (combining marks, right-to-left and Indic
  ** scripts, emoji sequences...) are measured and drawn whole by the canvas
  ** instead, so every script still comes out right. Either way the width
  ** the layout gets is the width that is drawn.
  */
  const COMPLEX = /[\u0300-\u036f\u0590-\u0dff\u0e00-\u0fff\u1000-\u109f\u1100-\u11ff\u1780-\u18af\u1ab0-\u1aff\u1dc0-\u1dff\u200b-\u200f\u202a-\u202e\u2066-\u2069\u20d0-\u20ff\ud800-\udfff\ufb1d-\ufeff]/;
  const widths = new Map();
  /* Whole pixels for a size, rounded as font_px rounds it. */
  const px = (size) => (size >= 0.5 ? Math.floor(size + 0.5) : 0);
  /* The CSS font of a run. */
  function font(size, bold) {
    return (bold ? 'bold ' : '') + px(size) + 'px ' + FONT_STACK;
  }
  /* Whole-pixel advance of one character. */
  function advance(ch, p, bold) {
    const key = (bold ? 'B' : 'R') + p + '|' + ch;
    let w = widths.get(key);
    if (w === undefined) {
      measureCtx.font = font(p, bold);
      measureCtx.fontKerning = 'none';
      w = Math.round(measureCtx.measureText(ch).width);
      widths.set(key, w);
    }
    return w;
  }
  /* Width of text at size px (bold 0/1); the C layout calls this. */
  function measure(text, size, bold) {
    const p = px(size);
    if (!p || !text) return 0;
    if (COMPLEX.test(text)) {
      const key = (bold ? 'b' : 'r') + p + '|' + text;
      let w = widths.get(key);
      if (w === undefined) {
        if (widths.size > 50000) widths.clear();
        measureCtx.font = font(p, bold);
        measureCtx.fontKerning = 'none';
        w = measureCtx.measureText(text).width;
        widths.set(key, w);
      }
      return w;
    }
    let w = 0;
    for (const ch of text) w += advance(ch, p, bold);
    return w;
  }
  /* Draw text with its pen at (x, y) on the baseline, as measure measured it. */
  function fillRun(g, text, x, y, p, bold) {
    if (COMPLEX.test(text)) { g.fillText(text, x, y); return; }
    for (const ch of text) {
      if (ch !== ' ') g.fillText(ch, x, y);
      x += advance(ch, p, bold);
    }
  }
  /* Ascent, descent and digit height of the stack, per pixel of size. */
  const metrics = [0, 1].map(function (bold) {
    measureCtx.font = font(100, bold);
    const m = measureCtx.measureText('0123456789');
    return {
      ascent: (m.fontBoundingBoxAscent || 92.8) / 100,
      descent: (m.fontBoundingBoxDescent || 23.6) / 100,
      digit: (m.actualBoundingBoxAscent || 72.9) / 100,
    };
  });

  /* ---- the display list, read from linear memory ---- */

  /* An image command (a heatmap in blocks, draw.h's DrawImage) as the
  ** filled rectangles it stands for, in the same float32 arithmetic as
  ** draw_image_block, so the page draws what the desktop draws. */
  function readImage(dv, d, b, out) {
    const f = Math.fround, r = b + L.r;
    const im = dv.getUint32(d + L.pix, true) + dv.getUint32(b + L.text, true);
    const rows = dv.getInt32(im, true), cols = dv.getInt32(im + 4, true);
    const rstep = dv.getInt32(im + 8, true), cstep = dv.getInt32(im + 12, true);
    const cw = dv.getFloat32(im + 16, true), ch = dv.getFloat32(im + 20, true);
    const x0 = dv.getFloat32(r, true), y0 = dv.getFloat32(r + 4, true);
    const role = dv.getInt32(b + L.role, true), panel = dv.getInt16(b + L.panel, true);
    const bcols = Math.ceil(cols / cstep);
    for (let i = 0, row = 0; row < rows; i++, row += rstep) {
      for (let j = 0, col = 0; col < cols; j++, col += cstep) {
        const px = im + 24 + 4 * (i * bcols + j);
        out.push({
          kind: L.DRAW_RECT, role: role,
          color: [dv.getUint8(px), dv.getUint8(px + 1), dv.getUint8(px + 2), dv.getUint8(px + 3)],
          x: f(x0 + f(col * cw)), y: f(y0 + f(row * ch)),
          w: f(cw * (col + cstep <= cols ? cstep : cols - col)), h: f(ch * (row + rstep <= rows ? rstep : rows - row)),
          width: 0, text: '', size: 0, halign: 0, valign: 0, bold: 0, rotate: 0, dashed: 0,
          panel: panel, row: row, col: col,
        });
      }
    }
  }

  /* The DrawList at address d as plain objects. */
  function readList(d) {
    const dv = new DataView(M.HEAPU8.buffer);
    const cmds = dv.getUint32(d + L.cmds, true), n = dv.getInt32(d + L.n, true);
    const arena = dv.getUint32(d + L.arena, true), bg = d + L.background;
    const out = { n: n, background: [dv.getUint8(bg), dv.getUint8(bg + 1), dv.getUint8(bg + 2), dv.getUint8(bg + 3)], cmds: [] };
    for (let i = 0; i < n; i++) {
      const b = cmds + i * L.size, c = b + L.color, r = b + L.r;
      const kind = dv.getInt32(b + L.kind, true);
      if (kind === L.DRAW_IMAGE) { readImage(dv, d, b, out.cmds); continue; }
      out.cmds.push({
        kind: kind, role: dv.getInt32(b + L.role, true),
        color: [dv.getUint8(c), dv.getUint8(c + 1), dv.getUint8(c + 2), dv.getUint8(c + 3)],
        x: dv.getFloat32(r, true), y: dv.getFloat32(r + 4, true), w: dv.getFloat32(r + 8, true), h: dv.getFloat32(r + 12, true),
        width: dv.getFloat32(b + L.width, true),
        text: kind === L.DRAW_TEXT ? M.UTF8ToString(arena + dv.getUint32(b + L.text, true)) : '',
        size: dv.getFloat32(b + L.fsize, true),
        halign: dv.getUint8(b + L.halign), valign: dv.getUint8(b + L.valign), bold: dv.getUint8(b + L.bold),
        rotate: dv.getUint8(b + L.rotate), dashed: dv.getUint8(b + L.dashed),
        panel: dv.getInt16(b + L.panel, true), row: dv.getInt16(b + L.row, true), col: dv.getInt16(b + L.col, true),
      });
    }
    return out;
  }

  /* ---- drawing: the rules of src/sdl/render.c, on a canvas ---- */

  /* Nearest whole pixel, halves up (render.c's snap). */
  const snap = (v) => Math.floor(v + 0.5);
  /* Snapped edges of [a, b], at least one pixel apart. */
  function span(a, b) {
    if (b < a) { const t = a; a = b; b = t; }
    const lo = snap(a); let hi = snap(b);
    if (hi <= lo) hi = lo + 1;
    return [lo, hi];
  }
  /* A CSS colour from [r, g, b, a]. */
  const rgba = (c) => 'rgba(' + c[0] + ',' + c[1] + ',' + c[2] + ',' + (c[3] / 255).toFixed(3) + ')';

  /* A filled rectangle, or its outline centred on its edges, in four bands. */
  function drawRect(g, c) {
    if (!(c.w > 0) || !(c.h > 0)) return;
    g.fillStyle = rgba(c.color);
    if (!(c.width > 0)) {
      const x = span(c.x, c.x + c.w), y = span(c.y, c.y + c.h);
      g.fillRect(x[0], y[0], x[1] - x[0], y[1] - y[0]);
      return;
    }
    const hw = c.width / 2;
    const ox = span(c.x - hw, c.x + c.w + hw), oy = span(c.y - hw, c.y + c.h + hw);
    let ix0 = snap(c.x + hw), ix1 = snap(c.x + c.w - hw), iy0 = snap(c.y + hw), iy1 = snap(c.y + c.h - hw);
    if (ix0 <= ox[0]) ix0 = ox[0] + 1;
    if (iy0 <= oy[0]) iy0 = oy[0] + 1;
    if (ix1 >= ox[1]) ix1 = ox[1] - 1;
    if (iy1 >= oy[1]) iy1 = oy[1] - 1;
    if (ix1 <= ix0 || iy1 <= iy0) { g.fillRect(ox[0], oy[0], ox[1] - ox[0], oy[1] - oy[0]); return; }
    g.fillRect(ox[0], oy[0], ox[1] - ox[0], iy0 - oy[0]);
    g.fillRect(ox[0], iy1, ox[1] - ox[0], oy[1] - iy1);
    g.fillRect(ox[0], iy0, ix0 - ox[0], iy1 - iy0);
    g.fillRect(ix1, iy0, ox[1] - ix1, iy1 - iy0);
  }

  /* A line, solid or dashed (the program's one dash pattern, in stroke
  ** widths: DRAW_DASH_ON and DRAW_DASH_OFF of the struct layout). */
  function drawLine(g, c) {
    const w = c.width >= 1 ? c.width : 1;
    g.strokeStyle = rgba(c.color);
    g.lineWidth = w;
    g.setLineDash(c.dashed ? [L.DRAW_DASH_ON * w, L.DRAW_DASH_OFF * w] : []);
    g.beginPath();
    g.moveTo(c.x, c.y);
    g.lineTo(c.x + c.w, c.y + c.h);
    g.stroke();
  }

  /* A text run aligned in its box; rotate 90 reads bottom to top. */
  function drawText(g, c) {
    if (!c.text) return;
    const m = metrics[c.bold ? 1 : 0], s = px(c.size), rot = c.rotate === 90;
    const width = measure(c.text, s, c.bold);
    const along0 = rot ? c.y + c.h : c.x, alongLen = rot ? c.h : c.w;
    const across0 = rot ? c.x : c.y, acrossLen = rot ? c.w : c.h;
    let start = 0;
    if (c.halign === L.ALIGN_CENTER) start = (alongLen - width) / 2;
    else if (c.halign === L.ALIGN_RIGHT) start = alongLen - width;
    const base = c.valign === L.VALIGN_TOP ? m.ascent * s
      : c.valign === L.VALIGN_BOTTOM ? acrossLen - m.descent * s : (acrossLen + m.digit * s) / 2;
    g.font = font(s, c.bold);
    g.fontKerning = 'none';
    g.fillStyle = rgba(c.color);
    g.textBaseline = 'alphabetic';
    g.textAlign = 'left';
    if (rot) {
      g.save();
      g.translate(snap(across0 + base), snap(along0 - start));
      g.rotate(-Math.PI / 2);
      fillRun(g, c.text, 0, 0, s, c.bold);
      g.restore();
    } else {
      fillRun(g, c.text, snap(along0 + start), snap(across0 + base), s, c.bold);
    }
  }

  /* Draw a display list on a 2D context whose pixels are the list's pixels. */
  function paint(g, list, w, h) {
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fillStyle = rgba(list.background);
    g.fillRect(0, 0, w, h);
    for (const c of list.cmds) {
      if (c.kind === L.DRAW_RECT) drawRect(g, c);
      else if (c.kind === L.DRAW_LINE) drawLine(g, c);
      else if (c.kind === L.DRAW_TEXT) drawText(g, c);
    }
  }

  /* ---- frames ---- */

  /* The app clock, in seconds. */
  const now = () => performance.now() / 1000;

  /* Compose and draw one frame; schedule the next when a toast expires. */
  function frame() {
    pending = false;
    if (!M) return;
    let d = M._web_frame(W, H, now());
    /* after a stage change the pointer may rest on another cell: hover it */
    if (pointer && M._web_hover(pointer.x, pointer.y)) d = M._web_frame(W, H, now());
    hook.list = readList(d);
    paint(ctx, hook.list, W, H);
    hook.frames++;
    if (hook.firstFrameMs === undefined) hook.firstFrameMs = performance.now();   /* since the page was opened */
    syncPage();
    const until = M._web_toast_until(), t = now();
    clearTimeout(toastTimer);
    if (until > t) toastTimer = setTimeout(redraw, (until - t) * 1000 + 30);
  }
  /* Ask for a frame (at most one per animation frame). */
  function redraw() {
    if (!pending) { pending = true; requestAnimationFrame(frame); }
  }

  /* Size the canvas to its box in device pixels. */
  function resize() {
    dpr = window.devicePixelRatio || 1;
    const r = canvas.getBoundingClientRect();
    W = Math.max(1, Math.round(r.width * dpr));
    H = Math.max(1, Math.round(r.height * dpr));
    if (canvas.width !== W || canvas.height !== H) { canvas.width = W; canvas.height = H; }
    redraw();
  }

  /* Fullscreen and the page's chrome follow the program's state. */
  function syncPage() {
    const f = M._web_flags();
    const want = (f & 1) !== 0, is = !!document.fullscreenElement;
    if (want !== is) {
      if (want && document.documentElement.requestFullscreen) {
        document.documentElement.requestFullscreen().catch(function () { M._web_set_fullscreen(0); redraw(); });
      } else if (!want && is) {
        document.exitFullscreen().catch(function () {});
      }
    }
    document.body.classList.toggle('dark', (f & 2) !== 0);
    relabel();
  }

  /* The buttons in the interface's language (the lesson's, else the
  ** browser's): label and tooltip, each a message of the catalogues, with
  ** the key that does the same. Redone when the language changes. */
  const BUTTONS = {
    prev: [null, 'previous stage (or sub-step)', '\u2190'], next: [null, 'next stage (or sub-step)', '\u2192'],
    smaller: [null, 'text size', '\u2212'], bigger: [null, 'text size', '+'],
    picker: ['Lessons', 'lesson picker', 'L'], open: ['Open\u2026', 'open a lesson file (or drop one on the page)', 'O'],
    png: [null, 'download this stage as PNG', 'S'], theme: [null, 'light / dark', 'T'],
    fullscreen: [null, 'fullscreen (Esc leaves)', 'F'], keys: [null, 'this help', '?'],
  };
  let labelled = null;
  function relabel() {
    const lang = M.UTF8ToString(M._web_language());
    if (lang === labelled) return;
    labelled = lang;
    const tr = (msg) => withString(msg, (p) => M.UTF8ToString(M._web_tr(p)));
    document.documentElement.lang = lang.replace('_', '-');
    for (const b of document.querySelectorAll('#bar button')) {
      const w = BUTTONS[b.dataset.act];
      if (!w) continue;
      if (w[0]) b.textContent = tr(w[0]);
      b.title = tr(w[1]) + ' (' + w[2] + ')';
    }
  }

  /* ---- calling the module with strings ---- */

  /* Call fn with s as a C string in the module's memory. */
  function withString(s, fn) {
    const n = M.lengthBytesUTF8(s) + 1, p = M._malloc(n);
    M.stringToUTF8(s, p, n);
    try { return fn(p); } finally { M._free(p); }
  }
  /* A C string the module handed over, as JS, freed. */
  const takeString = (p) => { if (!p) return null; const s = M.UTF8ToString(p); M._web_free(p); return s; };
  /* A named action (web_action) and a redraw. */
  const action = (name) => { withString(name, M._web_action); redraw(); };
  /* A two-second message at the bottom. */
  /* A toast in the interface's language: msg is its English text (a message
  ** of the catalogues), arg fills its %s. */
  function toast(msg, arg) {
    withString(msg, (p) => withString(arg === undefined ? '' : arg,
                                      (q) => M._web_toast(p, arg === undefined ? 0 : q, now())));
    redraw();
  }
  /* An error line at the top, as a failed load shows it. */
  /* An I/O error about file on screen (msg: what failed), as a failed load shows one. */
  function setError(file, msg) { withString(file, (f) => withString(msg, (m) => M._web_set_error(f, m))); redraw(); }

  /* ---- lessons in ---- */

  /* A safe file name for the in-memory file system. */
  function baseName(name) {
    const b = String(name).split(/[\\/]/).pop().replace(/[^\w.\-+ ()]/g, '_');
    return b && b !== '.' && b !== '..' ? b : 'lesson.lesson';
  }
  /* Open lesson bytes under a file name: errors then read NAME:LINE:COL. */
  function openBytes(name, bytes) {
    const path = baseName(name);
    M.FS.writeFile(path, bytes);
    const r = withString(path, M._web_open);
    redraw();
    return r;
  }
  /* Open a File (picker or drop). */
  function openFile(file) {
    if (!file) return;
    file.arrayBuffer().then(function (buf) { openBytes(file.name, new Uint8Array(buf)); },
      function () { setError(baseName(file.name), 'cannot read: the browser refused the file'); });
  }
  /* Open a lesson from the same site; resolves to 0 or -1. */
  function openURL(spec) {
    let url;
    try { url = new URL(spec, location.href); } catch (e) { url = null; }
    const name = baseName(url ? url.pathname : spec);
    if (!url || location.protocol === 'file:' || url.origin !== location.origin) {
      setError(spec, 'cannot open: a lesson URL must be on the same web site as this page' +
               (location.protocol === 'file:' ? ' (a page opened from disk can open lessons with O instead)' : ''));
      return Promise.resolve(-1);
    }
    return fetch(url.href, { credentials: 'same-origin' }).then(function (res) {
      if (!res.ok) throw new Error('HTTP ' + res.status);
      return res.arrayBuffer();
    }).then(function (buf) { return openBytes(name, new Uint8Array(buf)); }, function (e) {
      setError(name, 'cannot open: ' + e.message);
      return -1;
    });
  }
  /* Show the file picker. */
  function pickFile() { document.getElementById('file').click(); }

  /* ---- pictures and lessons out ---- */

  /* Hand a blob to the browser as a download. */
  function download(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 5000);
  }
  /* The current stage on its own, as --export lays it out: PNG or SVG. */
  function saveStage(svg) {
    const name = M.UTF8ToString(M._web_shot_name());
    const d = name ? M._web_shot(SHOT_W, SHOT_H) : 0;
    if (!d) { toast('open a lesson first'); return; }
    if (svg) {
      const text = takeString(M._web_shot_svg());
      download(new Blob([text], { type: 'image/svg+xml' }), name + '.svg');
      toast('downloaded %s', name + '.svg');
      return;
    }
    const off = document.createElement('canvas');
    off.width = SHOT_W;
    off.height = SHOT_H;
    paint(off.getContext('2d'), readList(d), SHOT_W, SHOT_H);
    off.toBlob(function (blob) {
      download(blob, name + '.png');
      toast('downloaded %s', name + '.png');
    }, 'image/png');
  }
  /* Ctrl+S: save the edited lesson (in memory) and download it. */
  function saveLesson() {
    if (!(M._web_flags() & 4)) { toast('open a lesson first'); return; }
    if (M._web_save(now()) === 0) {
      const path = M.UTF8ToString(M._web_path());
      download(new Blob([M.FS.readFile(path)], { type: 'text/plain' }), baseName(path));
    }
    redraw();
  }

  /* ---- input ---- */

  /* A key: the page's own keys first, then the program's (web_key). */
  function onKey(e) {
    if (e.target && e.target.tagName === 'INPUT') return;
    const k = e.key, ctrl = e.ctrlKey || e.metaKey;
    if (ctrl && (k === 's' || k === 'S')) { e.preventDefault(); saveLesson(); return; }
    if (ctrl && (k === 'o' || k === 'O')) { e.preventDefault(); pickFile(); return; }
    if (!ctrl && !e.altKey && (k === 's' || k === 'S')) { e.preventDefault(); saveStage(e.shiftKey); return; }
    if (!ctrl && !e.altKey && (k === 'o' || k === 'O')) { e.preventDefault(); pickFile(); return; }
    if (e.altKey) return;
    const used = withString(k, (p) => M._web_key(p, ctrl ? 1 : 0, e.shiftKey ? 1 : 0));
    if (used) { e.preventDefault(); redraw(); }
  }

  /* An event's position in canvas (device) pixels. */
  function devicePoint(e) {
    const r = canvas.getBoundingClientRect();
    return { x: (e.clientX - r.left) * dpr, y: (e.clientY - r.top) * dpr };
  }

  /* The wheel edits the input under the pointer: a mouse notch is one step;
  ** a touchpad's small deltas add up to a step every 50 pixels. */
  let wheelSum = 0;
  function onWheel(e) {
    e.preventDefault();
    const dy = e.deltaMode === 1 ? e.deltaY * 33 : e.deltaMode === 2 ? e.deltaY * 400 : e.deltaY;
    if (dy === 0) return;
    wheelSum = Math.abs(dy) >= 50 ? dy : wheelSum + dy;
    if (Math.abs(wheelSum) < 50) return;
    const steps = wheelSum < 0 ? 1 : -1;
    wheelSum = 0;
    const p = devicePoint(e);
    if (M._web_wheel(p.x, p.y, steps, e.shiftKey ? 1 : 0)) redraw();
  }

  /* Touch: tap = hover and pin, swipe = next / previous, pinch = text size. */
  let touch = null;
  /* A finger down: the start of a tap, a swipe or a pinch. */
  function onTouchStart(e) {
    e.preventDefault();
    if (e.touches.length === 2) {
      const a = e.touches[0], b = e.touches[1];
      touch = { pinch: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY) };
    } else if (e.touches.length === 1 && !touch) {
      const t = e.touches[0];
      touch = { x: t.clientX, y: t.clientY, t: performance.now() };
    }
  }
  /* Two fingers apart or together: text size, a step per 25 %. */
  function onTouchMove(e) {
    e.preventDefault();
    if (!touch || touch.pinch === undefined || e.touches.length !== 2) return;
    const a = e.touches[0], b = e.touches[1];
    const d = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY);
    if (d > touch.pinch * 1.25) { action('bigger'); touch.pinch = d; }
    else if (d < touch.pinch / 1.25) { action('smaller'); touch.pinch = d; }
  }
  /* A finger up: a swipe steps, a tap explains and pins. */
  function onTouchEnd(e) {
    e.preventDefault();
    if (!touch || e.touches.length > 0) { if (e.touches.length === 0) touch = null; return; }
    const start = touch;
    touch = null;
    if (start.pinch !== undefined) return;
    const t = e.changedTouches[0], dx = t.clientX - start.x, dy = t.clientY - start.y;
    if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy) && performance.now() - start.t < 1000) {
      action(dx < 0 ? 'next' : 'prev');
    } else if (Math.abs(dx) < 12 && Math.abs(dy) < 12) {
      const p = devicePoint(t);
      M._web_click(p.x, p.y);
      redraw();
    }
  }

  /* Connect every event. */
  function wire() {
    window.addEventListener('keydown', onKey);
    window.addEventListener('resize', resize);
    if (window.matchMedia) {
      const mq = window.matchMedia('(resolution: ' + (window.devicePixelRatio || 1) + 'dppx)');
      if (mq.addEventListener) mq.addEventListener('change', resize);
    }
    canvas.addEventListener('mousemove', function (e) {
      pointer = devicePoint(e);
      if (M._web_hover(pointer.x, pointer.y)) redraw();
    });
    canvas.addEventListener('mouseleave', function () { pointer = null; M._web_leave(); redraw(); });
    canvas.addEventListener('mousedown', function (e) {
      if (e.button !== 0) return;
      const p = devicePoint(e);
      M._web_click(p.x, p.y);
      canvas.focus();
      redraw();
    });
    canvas.addEventListener('wheel', onWheel, { passive: false });
    canvas.addEventListener('touchstart', onTouchStart, { passive: false });
    canvas.addEventListener('touchmove', onTouchMove, { passive: false });
    canvas.addEventListener('touchend', onTouchEnd, { passive: false });
    canvas.addEventListener('touchcancel', function () { touch = null; });
    document.addEventListener('fullscreenchange', function () {
      M._web_set_fullscreen(document.fullscreenElement ? 1 : 0);
      resize();
    });
    const input = document.getElementById('file');
    input.addEventListener('change', function () { openFile(input.files[0]); input.value = ''; });
    document.addEventListener('dragover', function (e) { e.preventDefault(); });
    document.addEventListener('drop', function (e) {
      e.preventDefault();
      if (e.dataTransfer && e.dataTransfer.files.length) openFile(e.dataTransfer.files[0]);
    });
    for (const b of document.querySelectorAll('#bar button')) {
      b.addEventListener('mousedown', function (e) { e.preventDefault(); });
      b.addEventListener('click', function () {
        const a = b.dataset.act;
        if (a === 'open') pickFile();
        else if (a === 'keys') action('help');
        else if (a === 'png') saveStage(false);
        else action(a);
      });
    }
  }

  /* ---- start ---- */

  /* The module is ready: lessons in, events on, the first frame. */
  function boot(mod) {
    M = mod;
    const p = M._malloc(4 * WEB_LAYOUT_FIELDS.length);
    const got = M._web_cmd_layout(p, WEB_LAYOUT_FIELDS.length);
    if (got !== WEB_LAYOUT_FIELDS.length) {
      M._free(p);
      throw new Error('the page reads ' + WEB_LAYOUT_FIELDS.length + ' layout fields, the module has ' + got);
    }
    L = {};
    WEB_LAYOUT_FIELDS.forEach(function (f, i) { L[f] = M.HEAP32[(p >> 2) + i]; });
    M._free(p);
    const lessons = JSON.parse(document.getElementById('lessons').textContent);
    M.FS.mkdirTree('/attnlab/lessons');
    for (const l of lessons) M.FS.writeFile('/attnlab/lessons/' + l.name, l.text);
    M.FS.mkdirTree('/home/web_user');
    M.FS.chdir('/home/web_user');
    M._web_init();
    if (window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches) M._web_set_dark(1);
    wire();
    resize();
    const q = new URLSearchParams(location.search).get('lesson');
    if (q) openURL(q).then(function (r) { if (r !== 0 && !(M._web_flags() & 4)) action('picker'); });
    else action('picker');
    canvas.focus();

    hook.module = M;
    hook.layout = L;
    hook.readyMs = performance.now();
    hook.explain = () => takeString(M._web_explain());
    hook.flags = () => M._web_flags();
    hook.shot = (w, h) => { const d = M._web_shot(w, h); return d ? readList(d) : null; };
    hook.openText = (name, text) => openBytes(name, new TextEncoder().encode(text));
    hook.openURL = openURL;
    hook.frame = frame;
    hook.devicePixelRatio = () => dpr;
    hook.ready = true;
  }

  window.addEventListener('error', function (e) { hook.errors.push(String(e.message)); });
  /* Before the module starts: the interface's catalogues into its file
  ** system, where the program looks for them, and the browser's language
  ** as LANG (a lesson's language: still wins). */
  function preRun(mod) {
    const cats = JSON.parse(document.getElementById('catalogues').textContent);
    for (const c of cats) {
      const dir = '/attnlab/locale/' + c.lang + '/LC_MESSAGES';
      /* writable by the owner only: the program skips a catalogue others could have written */
      mod.FS.mkdirTree(dir, 0o755);
      mod.FS.writeFile(dir + '/attnlab.mo', Uint8Array.from(atob(c.mo), (ch) => ch.charCodeAt(0)), { mode: 0o644 });
    }
    const nav = (navigator.languages && navigator.languages[0]) || navigator.language || 'en';
    const m = /^([a-z]{2,3})(?:-([A-Za-z]{2}))?/.exec(nav.toLowerCase());
    mod.ENV.LANG = m ? m[1] + (m[2] ? '_' + m[2].toUpperCase() : '') + '.UTF-8' : 'C.UTF-8';
  }

  createAttnlab({
    preRun: [preRun],
    attnlabMeasure: measure,
    print: function (s) { console.log(s); },
    printErr: function (s) { console.warn(s); },
  }).then(boot, function (e) {
    hook.errors.push(String(e));
    document.body.textContent = 'attnlab could not start: ' + e;
  });
})();
