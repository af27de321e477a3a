/*
** attnlab.js: the browser edition's page script.
**
** The program itself is C compiled to WebAssembly (core, view, the app's
** state, keys and frame, and web/platform.c); this script only does what a
** platform does. It starts the module from the page's own bytes (the wasm,
** deflated, and the bundle of lessons and catalogues), sizes a canvas to
** the window in device pixels (high-DPI screens are sharp), turns keys,
** pointer, wheel and touch events into calls of the module, draws each
** frame (paint.js) and keeps the page around the canvas in step (page.js).
**
** The address is the state: the lesson, stage, sub-step, head, toggles and
** theme are written into the URL's fragment (link.h says which fields), a
** new stage is a new history entry, and Reload, Back and a shared link
** bring back the very slide. It works from file:// and inside a sandboxed
** iframe, where only the fragment can change.
**
** Page-only actions: S downloads the stage as PNG, Shift+S as SVG, Ctrl+S
** downloads the edited lesson, O (or dropping files) opens a lesson with
** the NumPy files it loads, ?lesson=URL (or lesson=URL in the fragment)
** opens one from the same site together with the files it loads, and the
** link button copies the address of the slide. Unsaved edits make the
** browser ask before the page goes away.
**
** window.attnlab is a small debug hook the browser test reads (the display
** list as plain objects, the explain text, the text view, timings).
*/
'use strict';
(function () {
  const SHOT_W = 1280, SHOT_H = 800;   /* the desktop's export size */
  const LESSONS = '/attnlab/lessons/';
  const canvas = document.getElementById('stage');
  const ctx = canvas.getContext('2d', { alpha: false });
  const hook = window.attnlab = { errors: [], frames: 0, frameMs: [], keyMs: [] };
  let M = null, L = null, P = null, UI = null;
  let W = 0, H = 0, dpr = 1;
  let list = 0;                    /* the last frame's DrawList */
  let pointer = null;              /* last pointer position in device pixels */
  let pending = false, toastTimer = 0, explained = null, toasted = '';

  /* The app clock, in seconds. */
  const now = () => performance.now() / 1000;
  /* Call fn with s as a C string in the module's memory. */
  const withString = (s, fn) => UI.withString(s, fn);
  /* A C string the module handed over, as JS, freed. */
  const take = (p) => UI.take(p);

  /* ---- frames ---- */

  /* Compose and draw one frame now; then the page follows the state. */
  function frame() {
    pending = false;
    if (!M) return;
    const t0 = performance.now();
    let d = M._web_frame(W, H, now());
    /* after a stage change the pointer may rest on another cell: hover it */
    if (pointer && M._web_hover(pointer.x, pointer.y)) d = M._web_frame(W, H, now());
    P.paint(ctx, d, W, H);
    list = d;
    hook.frames++;
    const t1 = performance.now();
    hook.frameMs.push(t1 - t0);
    if (hook.frameMs.length > 200) hook.frameMs.shift();
    if (hook.firstFrameMs === undefined) hook.firstFrameMs = t1;   /* since the page was opened */
    hook.lastFrameAt = t1;
    syncPage();
    const until = M._web_toast_until(), t = now();
    clearTimeout(toastTimer);
    if (until > t) toastTimer = setTimeout(redraw, (until - t) * 1000 + 30);
  }
  /* Ask for a frame (at most one per animation frame): for what the
  ** program did not cause (a resize, a toast's end). */
  function redraw() {
    if (!pending) { pending = true; requestAnimationFrame(frame); }
  }

  /*
  ** The phone layout: on a screen held upright and at most PHONE_WIDTH CSS
  ** pixels wide, the text is set so that the slide's design sizes come out
  ** at PHONE_TEXT of themselves in CSS pixels (the prose about 15 px, the
  ** printed numbers 12 px and more), whatever the pixel ratio, and the
  ** stages are cut into pages that fit that screen at that size: the
  ** panels stacked at its width, a page at a time, as on the slides.
  ** Elsewhere the slide is the projector's, scaled to the window.
  */
  const PHONE_WIDTH = 700, PHONE_TEXT = 1.07, DESIGN_WIDTH = 1280;
  function textBase(r) {
    return r.width <= PHONE_WIDTH && r.height > r.width ? Math.max(1, PHONE_TEXT * DESIGN_WIDTH / r.width) : 1;
  }
  /* Size the canvas to its box in device pixels. */
  function resize() {
    dpr = window.devicePixelRatio || 1;
    const r = canvas.getBoundingClientRect();
    /* the pages are cut again only when the shape changes by a twentieth */
    if (M) M._web_set_page_shape(Math.round(20 * r.height / Math.max(1, r.width)) / 20, textBase(r));
    W = Math.max(1, Math.round(r.width * dpr));
    H = Math.max(1, Math.round(r.height * dpr));
    if (canvas.width !== W || canvas.height !== H) { canvas.width = W; canvas.height = H; }
    redraw();
  }

  /* Fullscreen, the page around the canvas, the live explanation and the
  ** address follow the program's state. */
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
    UI.sync();
    const ex = take(M._web_explain()) || '', said = M.UTF8ToString(M._web_toast_text(now()));
    if (ex !== explained) { explained = ex; UI.announce(ex); }
    if (said && said !== toasted) UI.announce(said);
    toasted = said;
    syncAddress();
  }

  /* ---- the address ---- */

  let lessonRef = '';              /* the open lesson in a link: a bundled name or a URL; '' for a file from disk */
  let entry = null;                /* lesson and stage of the history entry shown */
  let rewrite = true;              /* the next address rewrites the entry (it came from the address) */
  let applying = false;
  let waiting = null;              /* a lesson opened after a question: {path, ref, fields} */
  /* A lesson opened from a file travels in the link itself: its text as
  ** loaded, deflated, in base64url ("text="), with its name ("name="),
  ** when that is at most CARRY_MAX characters; past that (or when it loads
  ** NumPy files, which a link cannot hold) the link opens without it and
  ** copying it says so. carried: {text, name} of the open lesson, or
  ** {tooLong: bytes} or {numpy: true}; null for a lesson with a name. */
  const CARRY_MAX = 16000;
  let carried = null;
  /* Bytes deflated (raw) by the browser. */
  function deflate(bytes) {
    const s = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
    return new Response(s).arrayBuffer().then((b) => new Uint8Array(b));
  }
  /* base64url of bytes, and back. */
  function toBase64url(bytes) {
    let bin = '';
    for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function fromBase64url(s) {
    const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  /* What a link carries of the file lesson name holding bytes (set when it is ready). */
  function carry(name, bytes) {
    carried = null;
    const text = new TextDecoder().decode(bytes);
    if (loads(text).length) { carried = { numpy: true }; return Promise.resolve(); }
    if (typeof CompressionStream === 'undefined') return Promise.resolve();
    return deflate(bytes).then(function (z) {
      const t = toBase64url(z);
      carried = t.length <= CARRY_MAX ? { text: t, name: name } : { tooLong: t.length };
      rewrite = true;
      update();
    });
  }
  /* The fragment for the slide on screen. */
  function fragment() {
    const f = take(M._web_link()) || '';
    let head = lessonRef ? 'lesson=' + encodeURIComponent(lessonRef) : '';
    if (!lessonRef && carried && carried.text) head = 'name=' + encodeURIComponent(carried.name) + '&text=' + carried.text;
    return head + (head && f ? '&' : '') + f;
  }
  /* A page drawn from srcdoc (a notebook's output) has no address of its
  ** own: "#..." would point at the notebook, and going there would leave
  ** the slide. Its slide is kept in the page only. */
  const srcdoc = location.href === 'about:srcdoc';
  /* A new history entry, or this one rewritten (a sandboxed page may
  ** refuse the history API: then the fragment itself). */
  function setAddress(frag, push) {
    if (srcdoc) return;
    try {
      if (push) history.pushState(null, '', '#' + frag);
      else history.replaceState(null, '', '#' + frag);
    } catch (e) {
      if (push) location.hash = frag;
      else location.replace('#' + frag);
    }
  }
  /* Keep the address on the slide: a new entry for another stage (or
  ** sub-step, or lesson), the same entry rewritten for anything else. */
  function syncAddress() {
    if (applying || waiting || !(M._web_flags() & 4)) return;
    const frag = fragment();
    const m = /(?:^|&)stage=(\d+)(?:&step=(\d+))?/.exec(frag);
    const here = lessonRef + '|' + (m ? m[1] + '.' + (m[2] || 1) : '');
    if ('#' + frag !== location.hash) setAddress(frag, !rewrite && entry !== null && here !== entry);
    entry = here;
    rewrite = false;
  }
  /* The value of a field of a fragment or query, or null. */
  function field(s, name) {
    for (const part of s.split('&')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq) === name) {
        try { return decodeURIComponent(part.slice(eq + 1)); } catch (e) { return null; }
      }
    }
    return null;
  }
  /* Show the slide of a fragment (and query): its lesson opened (fetched,
  ** if it comes from the site), then its stage and settings. */
  function applyAddress(frag, query) {
    const ref = field(frag, 'lesson') || (query && field(query, 'lesson'));
    const fields = (query ? query + '&' : '') + frag;
    rewrite = true;
    const text = field(frag, 'text');
    if (text !== null) return openCarried(text, field(frag, 'name'), fields);
    if (!ref && frag && !(M._web_flags() & 4)) {
      toast('this link names no lesson: choose one');
      return Promise.resolve();
    }
    if (!ref || ref === lessonRef) {
      if (M._web_flags() & 4) applyFields(fields);
      return Promise.resolve();
    }
    return openRef(ref, fields).then(function (path) {
      if (!path && !(M._web_flags() & 12)) run('picker');
      update();
    });
  }
  /* Open the lesson a link carries (text=, deflated in base64url), named
  ** name, then its fields; a text that does not unpack is said. */
  function openCarried(text, name, fields) {
    if (carried && carried.text === text) { applyFields(fields); return Promise.resolve(); }
    let bytes;
    try { bytes = fromBase64url(text); } catch (e) { bytes = null; }
    const file = baseName(/\.lesson$/i.test(name || '') ? name : (name || 'linked') + '.lesson');
    const damaged = function () {
      toast('this link carries a lesson that does not unpack (cut short when it was copied?)');
      if (!(M._web_flags() & 12)) run('picker');
      return null;
    };
    if (!bytes || typeof DecompressionStream === 'undefined') return Promise.resolve(damaged());
    return inflate(bytes).then(function (plain) {
      writeFile(file, plain);
      const path = openPath(file, '', fields);
      if (path) carried = { text: text, name: file };
      return path;
    }, damaged);
  }
  /* The stage and settings of fields on the open lesson. */
  function applyFields(fields) {
    applying = true;
    try { withString(fields, M._web_apply_link); } finally { applying = false; }
    update();
  }
  /* A lesson opened after a question: its fields now, or never if the
  ** answer was to stay (the address then goes back to the slide). */
  function settleWaiting() {
    if (!waiting || (M._web_flags() & 64)) return;
    const w = waiting;
    waiting = null;
    rewrite = true;
    if (M.UTF8ToString(M._web_path()) === w.path) {
      lessonRef = w.ref;
      applyFields(w.fields);
    } else {
      update();
    }
  }

  /* ---- calling the module ---- */

  /* After the program changed: a frame at once (input waits for no
  ** animation frame), then whatever followed from it. */
  function update() {
    frame();
    settleWaiting();
  }
  /* A two-second message at the bottom, in the interface's language: msg
  ** is its English text (a message of the catalogues), arg fills its %s. */
  function toast(msg, arg) {
    withString(msg, (p) => withString(arg === undefined ? '' : arg,
      (q) => M._web_toast(p, arg === undefined ? 0 : q, now())));
    update();
  }
  /* An error line at the top, as a failed load shows it. */
  /* An I/O error about file on screen (msg: what failed), as a failed load shows one. */
  function setError(file, msg) { withString(file, (f) => withString(msg, (m) => M._web_set_error(f, m))); update(); }

  /* The page's own actions (the others are the program's: web_action). */
  const PAGE = {
    png: () => saveStage(false),
    svg: () => saveStage(true),
    save: () => saveLesson(),
    open: () => pickFile(),
    model: () => document.getElementById('folder').click(),
    sentence: () => askSentence(),
    link: () => copyLink(),
    embed: () => copyEmbed(),
    numbers: (b) => toggleBox('numbers', b),
    more: (b) => toggleBox('menu', b),
  };
  /* Do an action by name: a button, a gesture, a key of the page's. */
  function run(name, button) {
    if (PAGE[name]) { PAGE[name](button); return; }
    withString(name, (p) => M._web_action(p, now()));
    update();
  }
  /* Show or hide a box of the page (the numbers, the more controls). */
  function toggleBox(id, button) {
    const box = document.getElementById(id);
    box.hidden = !box.hidden;
    for (const b of document.querySelectorAll('button[aria-controls="' + id + '"]')) b.setAttribute('aria-expanded', String(!box.hidden));
    if (!box.hidden && id === 'numbers') UI.textView(false);      /* the tables in view now, the rest soon after */
    if (button && !button.isConnected) canvas.focus();
    resize();
  }

  /* ---- lessons in ---- */

  /* A safe file name for the in-memory file system. */
  function baseName(name) {
    const b = String(name).split(/[\\/]/).pop().replace(/[^\w.\-+ ()]/g, '_');
    return b && b !== '.' && b !== '..' ? b : 'lesson.lesson';
  }
  /* The files a lesson loads, as its `load "FILE"` lines name them. */
  function loads(text) {
    return [...text.matchAll(/^[^#\n]*=\s*load\s+"([^"\n]+)"/gm)].map((m) => m[1]);
  }
  /* Write bytes at path (relative to the working directory), making its
  ** directories. */
  function writeFile(path, bytes) {
    const full = path.startsWith('/') ? path : M.FS.cwd() + '/' + path;
    M.FS.mkdirTree(full.split('/').slice(0, -1).join('/'));
    M.FS.writeFile(full, bytes);
  }
  /* Open a lesson file of the in-memory file system (asking first if the
  ** open one has unsaved edits), then the stage and settings of fields;
  ** ref names it in links. The path, or null when it does not open. */
  function openPath(path, ref, fields) {
    const r = withString(path, M._web_open);
    if (r === 0) {
      lessonRef = ref;
      if (ref) carried = null;
      rewrite = true;
      if (fields) applyFields(fields);
    } else if (r === 1) {
      waiting = { path: path, ref: ref, fields: fields || '' };
    }
    update();
    return r >= 0 ? path : null;
  }
  /* Open a lesson by the name a link gives it: bundled, else from the site. */
  function openRef(ref, fields) {
    const path = LESSONS + ref + '.lesson';
    if (!/[/\\]/.test(ref) && M.FS.analyzePath(path).exists) return Promise.resolve(openPath(path, ref, fields));
    return openURL(ref, fields);
  }
  /* Files the user gave (the picker, a drop): the lesson among them opened,
  ** the others written beside it, also where its load lines look. */
  function openFiles(files, folder) {
    files = Array.from(files || []);
    if (!files.length) return Promise.resolve();
    if (files.some((f) => modelFile(f) === 'config.json')) return openModel(files, folder);
    return Promise.all(files.map((f) => f.arrayBuffer().then((b) => ({ name: baseName(f.name), bytes: new Uint8Array(b) }),
      () => ({ name: baseName(f.name), bytes: null })))).then(function (got) {
      const bad = got.find((g) => !g.bytes);
      if (bad) { setError(bad.name, 'cannot read: the browser refused the file'); return; }
      const numpy = (g) => /\.np[yz]$/i.test(g.name);
      for (const g of got) writeFile(g.name, g.bytes);
      const lesson = got.find((g) => !numpy(g));
      if (!lesson) {
        toast('%s: a NumPy file: open it together with the lesson that loads it', got[0].name);
        return;
      }
      for (const want of loads(new TextDecoder().decode(lesson.bytes))) {
        const g = got.find((x) => x.name === baseName(want));
        if (g && !/(^|\/)\.\.(\/|$)/.test(want) && !want.startsWith('/')) writeFile(want, g.bytes);
      }
      if (openPath(lesson.name, '', '')) return carry(lesson.name, lesson.bytes);
    });
  }
  /* Open a lesson from the same site, with the files its load lines name
  ** (fetched beside it); resolves to its path, or null. */
  function openURL(spec, fields) {
    let url;
    try { url = new URL(spec, location.href); } catch (e) { url = null; }
    const name = baseName(url ? url.pathname : spec);
    if (!url || location.protocol === 'file:' || url.origin !== location.origin) {
      setError(spec, 'cannot open: a lesson URL must be on the same web site as this page' +
               (location.protocol === 'file:' ? ' (a page opened from disk can open lessons with O instead)' : ''));
      return Promise.resolve(null);
    }
    const get = (u) => fetch(u.href, { credentials: 'same-origin' }).then(function (res) {
      if (!res.ok) throw new Error('HTTP ' + res.status);
      return res.arrayBuffer();
    });
    return get(url).then(function (buf) {
      const bytes = new Uint8Array(buf);
      const wanted = loads(new TextDecoder().decode(bytes))
        .filter((f) => !/(^|\/)\.\.(\/|$)/.test(f) && !f.startsWith('/'));
      /* a file that cannot be fetched is left out: the lesson then says which, at its line */
      return Promise.all(wanted.map((f) => get(new URL(f, url)).then((b) => writeFile(f, new Uint8Array(b)), () => {})))
        .then(function () { writeFile(name, bytes); return openPath(name, spec, fields); });
    }, function (e) {
      setError(name, 'cannot open: ' + e.message);
      return null;
    });
  }
  /* Show the file picker. */
  function pickFile() { document.getElementById('file').click(); }

  /* ---- a model's folder ---- */

  /* The most a model's files may hold: the core's limit where addresses
  ** are 32-bit (safetensors.c), the heap holding their copy. */
  const MODEL_MAX = 1024 * 1024 * 1024;
  const MODEL_FILES = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt', 'vocab.txt', 'tokenizer_config.json'];
  /* The name a model's folder reads file by ('config.json'), or '' when it
  ** reads no such file (a picked folder's other files, its subfolders). */
  function modelFile(f) {
    const rel = String(f.webkitRelativePath || f.name).split('/');
    return rel.length <= 2 && MODEL_FILES.includes(rel[rel.length - 1]) ? rel[rel.length - 1] : '';
  }
  /* A downloaded GPT-2 or BERT folder (its files, picked or dropped; folder
  ** its name when known): written into models/NAME and opened as the lesson
  ** that reads the default sentence (lml_default_text); I types another. */
  function openModel(files, folder) {
    const rel = files.map((f) => String(f.webkitRelativePath || '')).find((r) => r.includes('/'));
    const name = baseName(folder || (rel ? rel.split('/')[0] : 'model')).replace(/\.lesson$/, '') || 'model';
    const wanted = files.filter((f) => modelFile(f));
    const size = wanted.reduce((n, f) => n + f.size, 0);
    if (size > MODEL_MAX) {
      setError(name, UI.tr('cannot open: its files are %s MB, over the browser edition\'s limit of 1024 MB (the desktop program opens any size)')
        .replace('%s', String(Math.ceil(size / 1048576))));
      return Promise.resolve();
    }
    if (!wanted.some((f) => modelFile(f) === 'model.safetensors')) {
      setError(name, UI.tr('cannot open: a model folder needs config.json and model.safetensors'));
      return Promise.resolve();
    }
    return Promise.all(wanted.map((f) => f.arrayBuffer().then((b) => ({ name: modelFile(f), bytes: new Uint8Array(b) }), () => null)))
      .then(function (got) {
        if (got.includes(null)) { setError(name, 'cannot read: the browser refused the file'); return; }
        const dir = '/home/web_user/models/' + name;
        if (M.FS.analyzePath(dir).exists)
          for (const f of M.FS.readdir(dir)) if (f !== '.' && f !== '..') M.FS.unlink(dir + '/' + f);
        M.FS.mkdirTree(dir);
        for (const g of got) M.FS.writeFile(dir + '/' + g.name, g.bytes, { canOwn: true });   /* no copy of 500 MB */
        writeFile(name + '.lesson', new TextEncoder().encode(withString(dir, (p) => take(M._web_model_text(p)))));
        if (openPath(name + '.lesson', '', '')) carried = { model: true };
      });
  }
  /* The files of a folder dropped on the page (its top level), or null
  ** when what was dropped is no folder. {files, folder}. */
  function droppedFolder(dt) {
    const item = dt && dt.items && dt.items.length === 1 && dt.items[0].webkitGetAsEntry ? dt.items[0].webkitGetAsEntry() : null;
    if (!item || !item.isDirectory) return null;
    const reader = item.createReader(), entries = [];
    const more = () => new Promise((ok, no) => reader.readEntries(ok, no)).then((got) => {
      entries.push(...got);
      return got.length ? more() : entries;
    });
    return more().then((all) => Promise.all(all.filter((e) => e.isFile && MODEL_FILES.includes(e.name))
      .map((e) => new Promise((ok, no) => e.file(ok, no))))).then((files) => ({ files: files, folder: item.name }));
  }
  /* I: the sentence the open model's lesson reads, in a field; Enter reads
  ** another, every layer again, on the same stage and head. */
  function askSentence() {
    const now = take(M._web_sentence());
    if (now === null) { update(); return; }     /* the lesson reads no model: a toast says so */
    openBox('sentence', 'sentence-text', now,
      { 'sentence-title': 'The sentence the model reads:', 'sentence-read': 'Read it', 'sentence-cancel': 'Close' });
  }
  /* Close the sentence's box; read is the sentence to read, if any. */
  function closeSentence(read) {
    if (read !== undefined && !withString(read, (p) => M._web_read_sentence(p))) { update(); return; }
    closeBox('sentence');
    update();
  }
  /* A box of the page with a text field (the link's, the sentence's): its
  ** words (element id: English text) in the interface's language, value in
  ** the field, selected; what had focus gets it back when it closes. */
  let boxOpener = null;
  function openBox(id, fieldId, value, words) {
    const field = document.getElementById(fieldId);
    for (const [el, text] of Object.entries(words)) document.getElementById(el).textContent = UI.tr(text);
    field.value = value;
    boxOpener = document.activeElement;
    document.getElementById(id).hidden = false;
    field.focus();
    field.select();
  }
  /* Close the box id; focus back where it was. */
  function closeBox(id) {
    document.getElementById(id).hidden = true;
    (boxOpener && boxOpener !== document.body && document.contains(boxOpener) ? boxOpener : canvas).focus();
    boxOpener = null;
  }

  /* ---- pictures, lessons and links out ---- */

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
  /* The name the slide's picture downloads under, the one the desktop's
  ** export gives the same page ("" with no lesson). */
  function shotName(svg) {
    return take(M._web_shot_name(svg ? 1 : 0)) || '';
  }
  /* The current stage on its own, as --export lays it out: PNG or SVG. */
  function saveStage(svg) {
    const name = shotName(svg);
    const d = name ? M._web_shot(SHOT_W, SHOT_H) : 0;
    if (!d) { toast('open a lesson first'); return; }
    if (svg) {
      const text = take(M._web_shot_svg());
      download(new Blob([text], { type: 'image/svg+xml' }), name);
      toast('downloaded %s', name);
      return;
    }
    const off = document.createElement('canvas');
    off.width = SHOT_W;
    off.height = SHOT_H;
    P.paint(off.getContext('2d'), d, SHOT_W, SHOT_H);
    off.toBlob(function (blob) {
      download(blob, name);
      toast('downloaded %s', name);
    }, 'image/png');
  }
  /* Ctrl+S: the edited lesson (the file with only the edited numbers
  ** changed), downloaded. */
  function saveLesson() {
    if (!(M._web_flags() & 4)) { toast('open a lesson first'); return; }
    const text = take(M._web_save(now()));
    if (text !== null) {
      const name = baseName(M.UTF8ToString(M._web_path()));
      download(new Blob([text], { type: 'text/plain' }), name);
      toast('downloaded %s', name);
    }
    update();
  }
  /* Text to the clipboard, with msg said; where the page may not write
  ** there (a sandbox, an old browser), shown selected under title, to copy
  ** by hand. */
  function offer(text, title, msg) {
    const show = () => openBox('linkbox', 'linkbox-url', text, { 'linkbox-title': title, 'linkbox-close': 'Close' });
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(() => { if (msg) toast(msg); }, show);
    else show();
  }
  /* What a link to a lesson opened from a file leaves out, as a toast's
  ** [message, its %s], or null when it carries the lesson whole. */
  function linkNote() {
    if (lessonRef || !(M._web_flags() & 4) || (carried && carried.text)) return null;
    if (carried && carried.numpy) return ['this lesson loads NumPy files, which a link cannot carry: send the files with it'];
    if (carried && carried.model) return ['this lesson reads a model\'s folder, which a link cannot carry: send the folder with it'];
    if (carried && carried.tooLong)
      return ['this lesson is too long to carry in a link (%s KB packed): send the file with it', String(Math.ceil(carried.tooLong / 1000))];
    return null;
  }
  /* The address of this slide to the clipboard, and what it leaves out. */
  function copyLink() {
    const note = linkNote();
    offer(location.href, 'copy this link:', note ? '' : 'link copied');
    if (note) toast(note[0], note[1]);
  }
  /* An <iframe> that shows this slide on a course page, to the clipboard. */
  function copyEmbed() {
    const note = linkNote(), title = (document.getElementById('page-title').textContent || 'attnlab').replace(/[<>&"]/g, '');
    const code = '<iframe src="' + location.href.replace(/&/g, '&amp;').replace(/"/g, '%22') + '" title="' + title +
      '" width="960" height="600" style="border: 0" allow="fullscreen; clipboard-write" loading="lazy"></iframe>';
    offer(code, 'copy this embed code:', note ? '' : 'embed code copied');
    if (note) toast(note[0], note[1]);
  }
  /* Close the link's box. */
  function closeLink() { closeBox('linkbox'); }

  /* ---- input ---- */

  /* A key: on a focused button or link, Enter and Space are the browser's
  ** (they press it); the page's own actions next; then the program's. */
  function onKey(e) {
    const t = e.target, k = e.key;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA')) return;
    if (t && (t.tagName === 'BUTTON' || t.tagName === 'A') && (k === 'Enter' || k === ' ' || k === 'Spacebar')) return;
    if (e.altKey || (k === 'Tab' && !(M._web_flags() & 16384))) return;    /* Tab is the page's, but in the cells */
    const t0 = e.timeStamp;
    const ctrl = e.ctrlKey || e.metaKey;
    const name = withString(k, (p) => M.UTF8ToString(M._web_key_action(p, ctrl ? 1 : 0, e.shiftKey ? 1 : 0)));
    if (PAGE[name]) { e.preventDefault(); PAGE[name](); return; }
    const used = withString(k, (p) => M._web_key(p, ctrl ? 1 : 0, e.shiftKey ? 1 : 0, now()));
    if (!used) return;
    e.preventDefault();
    update();
    /* from the key to the frame on screen: the next animation frame shows it */
    requestAnimationFrame(function () {
      hook.keyMs.push(performance.now() - t0);
      if (hook.keyMs.length > 200) hook.keyMs.shift();
    });
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
    if (M._web_wheel(p.x, p.y, steps, e.shiftKey ? 1 : 0)) update();
  }

  /* Touch: tap = explain and pin, swipe = next / previous, pinch = text size. */
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
    if (d > touch.pinch * 1.25) { run('bigger'); touch.pinch = d; }
    else if (d < touch.pinch / 1.25) { run('smaller'); touch.pinch = d; }
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
      run(dx < 0 ? 'next' : 'prev');
    } else if (Math.abs(dx) < 12 && Math.abs(dy) < 12) {
      const p = devicePoint(t);
      M._web_click(p.x, p.y);
      update();
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
      if (M._web_hover(pointer.x, pointer.y)) update();
    });
    canvas.addEventListener('mouseleave', function () { pointer = null; M._web_leave(); update(); });
    canvas.addEventListener('mousedown', function (e) {
      if (e.button !== 0) return;
      const p = devicePoint(e);
      M._web_click(p.x, p.y);
      canvas.focus();
      update();
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
    document.getElementById('linkbox-close').addEventListener('click', closeLink);
    document.getElementById('linkbox').addEventListener('keydown', function (e) {
      if (e.key === 'Escape') { e.stopPropagation(); closeLink(); }
    });
    const input = document.getElementById('file'), folder = document.getElementById('folder');
    input.addEventListener('change', function () { openFiles(input.files).then(() => { input.value = ''; }); });
    folder.addEventListener('change', function () { openFiles(folder.files).then(() => { folder.value = ''; }); });
    document.getElementById('sentence-form').addEventListener('submit', function (e) {
      e.preventDefault();
      closeSentence(document.getElementById('sentence-text').value);
    });
    document.getElementById('sentence-cancel').addEventListener('click', () => closeSentence());
    document.getElementById('sentence').addEventListener('keydown', function (e) {
      e.stopPropagation();                       /* typing is not the slide's keys */
      if (e.key === 'Escape') closeSentence();
    });
    /* files dragged over the page: it says it takes them (body.dropping) */
    let drags = 0;
    const dropping = (on) => document.body.classList.toggle('dropping', on);
    document.addEventListener('dragenter', function (e) {
      if (e.dataTransfer && [...e.dataTransfer.types].includes('Files')) { drags++; dropping(true); }
    });
    document.addEventListener('dragleave', function () { if (drags > 0 && --drags === 0) dropping(false); });
    document.addEventListener('dragover', function (e) { e.preventDefault(); });
    document.addEventListener('drop', function (e) {
      e.preventDefault();
      drags = 0;
      dropping(false);
      const dir = droppedFolder(e.dataTransfer);
      if (dir) dir.then((d) => openFiles(d.files, d.folder), () => setError('', 'cannot read: the browser refused the folder'));
      else if (e.dataTransfer && e.dataTransfer.files.length) openFiles(e.dataTransfer.files);
    });
    window.addEventListener('popstate', function () { applyAddress(location.hash.slice(1)); });
    window.addEventListener('hashchange', function () {
      if ('#' + fragment() !== location.hash) applyAddress(location.hash.slice(1));
    });
    window.addEventListener('beforeunload', function (e) {
      if (M._web_flags() & 16) { e.preventDefault(); e.returnValue = ''; }
    });
  }

  /* ---- start ---- */

  /* 7-bit text (web/bundle.mjs writes it) back into bytes. */
  const AWKWARD = [0x00, 0x0a, 0x0d, 0x3c];
  function from7bit(s) {
    const out = new Uint8Array(Math.ceil(s.length * 14 / 8));
    let acc = 0, bits = 0, k = 0;
    const put = function (c) {
      acc = (acc << 7) | c;
      bits += 7;
      if (bits >= 8) { bits -= 8; out[k++] = (acc >> bits) & 255; }
      acc &= (1 << bits) - 1;
    };
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) { put(c); continue; }
      const v = c - 0xa0, a = v >> 7;
      if (a < 4) { put(AWKWARD[a]); put(v & 127); } else put(AWKWARD[v & 127]);
    }
    return out.subarray(0, k);
  }
  /* The page's bytes (an element's text, the element or its id): 7-bit
  ** text where the element says so (data-encoding), else base64. */
  function bytesOf(id) {
    const el = typeof id === 'string' ? document.getElementById(id) : id;
    if (el.dataset.encoding === '7bit') return from7bit(el.textContent);
    const s = el.textContent.trim();
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s);
    const bin = atob(s), out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  /* Raw deflate undone by the browser. */
  function inflate(bytes) {
    const s = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    return new Response(s).arrayBuffer().then((b) => new Uint8Array(b));
  }

  /* The struct layout the module reports, by name; the names the script
  ** draws by must all be there (a module and a page that disagree stop). */
  function layoutOf(mod) {
    const names = mod.UTF8ToString(mod._web_layout_names()).split(',').filter(Boolean);
    const p = mod._malloc(4 * names.length);
    const got = mod._web_layout(p, names.length);
    const out = {};
    names.forEach(function (n, i) { out[n] = mod.HEAP32[(p >> 2) + i]; });
    mod._free(p);
    if (got !== names.length) throw new Error('the module reports ' + got + ' layout fields for ' + names.length + ' names');
    return out;
  }

  /*
  ** Files a page that embeds the program carries along (the notebook's
  ** interactive view does): each a <script type="application/x-attnlab-file"
  ** data-name="NAME"> holding its bytes in base64, written into the working
  ** directory. The lesson marked data-open (else the first .lesson) is the
  ** one to open, on the slide its data-link says (a link's fields, such as
  ** stage=3). {name, fields}, or null when the page carries none.
  */
  function embeddedFiles() {
    let open = null;
    for (const el of document.querySelectorAll('script[type="application/x-attnlab-file"]')) {
      const name = baseName(el.getAttribute('data-name') || '');
      writeFile(name, bytesOf(el));
      if (el.hasAttribute('data-open') || (!open && /\.lesson$/.test(name)))
        open = { name: name, fields: el.getAttribute('data-link') || '' };
    }
    return open;
  }

  /* The module is ready: events on, the slide of the address (or the
  ** lesson list), the first frame. */
  function boot(mod) {
    M = mod;
    L = layoutOf(M);
    P = attnlabPainter(M, L);
    M.attnlabMeasure = P.measure;
    UI = attnlabChrome(M, run);
    M.FS.mkdirTree('/home/web_user');
    M.FS.chdir('/home/web_user');
    M._web_init();
    if (window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches) M._web_set_dark(1);
    wire();
    resize();
    const query = location.search.slice(1), frag = location.hash.slice(1), carried = embeddedFiles();
    if (carried) openPath(carried.name, '', frag || carried.fields);
    else applyAddress(frag, query).then(function () {
      if (!(M._web_flags() & 12)) run('picker');
    });
    frame();

    hook.module = M;
    hook.layout = L;
    hook.readyMs = performance.now();
    Object.defineProperty(hook, 'list', { get: () => (list ? P.read(list) : null) });
    hook.explain = () => take(M._web_explain());
    hook.flags = () => M._web_flags();
    hook.shot = (w, h) => { const d = M._web_shot(w, h); return d ? P.read(d) : null; };
    hook.paintShot = (g, w, h) => { const d = M._web_shot(w, h); if (d) P.paint(g, d, w, h); };
    hook.shotName = (svg) => shotName(svg);
    hook.openText = (name, text) => { writeFile(baseName(name), new TextEncoder().encode(text)); return openPath(baseName(name), '', '') ? 0 : -1; };
    hook.openURL = (spec) => openURL(spec).then((p) => (p ? 0 : -1));
    hook.openLesson = (ref) => openRef(ref, '').then((p) => (p ? 0 : -1));
    hook.frame = frame;
    hook.textView = () => UI.textView();
    hook.devicePixelRatio = () => dpr;
    hook.ready = true;
  }

  window.addEventListener('error', function (e) { hook.errors.push(String(e.message)); });
  /* Before the module starts: the bundle into its file system, and the
  ** browser's languages as LANGUAGE, in order (the program picks the
  ** first it has a catalogue for), the first also as LANG. */
  function preRun(mod) {
    mod.FS.mkdirTree('/attnlab');
    mod.FS.writeFile('/attnlab/bundle.zip', bytesOf('bundle'));
    const codes = [];
    for (const l of (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || 'en'])) {
      const m = /^([a-z]{2,3})(?:-([A-Za-z]{2}))?/.exec(String(l).toLowerCase());
      if (m) codes.push(m[1] + (m[2] ? '_' + m[2].toUpperCase() : ''));
    }
    mod.ENV.LANG = codes.length ? codes[0] + '.UTF-8' : 'C.UTF-8';
    mod.ENV.LANGUAGE = codes.join(':');
  }

  /* The module and emcc's loader come deflated; the loader, run in the
  ** page's global scope, defines createAttnlab. */
  Promise.all([inflate(bytesOf('wasm')), inflate(bytesOf('module'))]).then(function ([wasm, loader]) {
    (0, eval)(new TextDecoder().decode(loader));   // eslint-disable-line no-eval
    return createAttnlab({  // eslint-disable-line no-undef
      wasmBinary: wasm,
      preRun: [preRun],
      print: function (s) { console.log(s); },
      printErr: function (s) { console.warn(s); },
    });
  }).then(boot).catch(function (e) {
    hook.errors.push(String(e));
    document.body.textContent = 'attnlab could not start: ' + e;
  });
})();
