/*
** page.js: the browser edition's page around the canvas: the buttons, the
** lesson list, the question dialog, the error line, the +/- controls of a
** pinned input, and the text view of every stage (for screen readers, and
** a table of each panel's numbers to select and copy).
**
** attnlabChrome(M, run) takes the module and run(name), which performs an
** action by name (the key table's names, src/app/keys.c, and the page's
** own: "numbers", "more"), and returns
**   sync()        follow the program's state (after every frame)
**   relabel()     the words in the interface's language (when it changes)
**   announce(s)   say s in the live region (an explanation of a cell)
**   textView()    the last text view as the page holds it (tests)
** Every control is a <button> (or a link, in the lesson list) with a name
** a screen reader reads, reachable with Tab and operable with Enter and
** Space, and shows a focus ring.
*/
'use strict';
/* exported attnlabChrome */
function attnlabChrome(M, run) {
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  /* Call fn with s as a C string in the module's memory. */
  function withString(s, fn) {
    const n = M.lengthBytesUTF8(s) + 1, p = M._malloc(n);
    M.stringToUTF8(s, p, n);
    try { return fn(p); } finally { M._free(p); }
  }
  /* msgid in the interface's language. */
  const tr = (msg) => withString(msg, (p) => M.UTF8ToString(M._web_tr(p)));
  /* A C string the module handed over, as JS, freed. */
  const take = (p) => { if (!p) return null; const s = M.UTF8ToString(p); M._web_free(p); return s; };

  /* Names of the page's own buttons (messages of the catalogues). */
  const OWN = { numbers: 'the numbers of this stage, as tables', more: 'more controls', escape: 'Close',
    embed: 'copy code to show this slide on a course page',
    model: 'open a downloaded GPT-2 or BERT folder: config.json, model.safetensors and its tokenizer\'s files (up to 1 GB)' };

  /* ---- words ---- */

  let labelled = null;
  /* Labels, names and tooltips in the interface's language; <html lang>
  ** follows. Redone when the language changes. */
  function relabel() {
    const lang = M.UTF8ToString(M._web_language());
    if (lang === labelled) return;
    labelled = lang;
    document.documentElement.lang = lang.replace('_', '-');
    /* an interface in a right-to-left language mirrors the page around the slide */
    document.documentElement.dir = /^(ar|he|fa|ur)(_|$)/.test(lang) ? 'rtl' : 'ltr';
    for (const b of document.querySelectorAll('button[data-act]')) {
      const act = b.dataset.act;
      let help = '', keys = '';
      if (OWN[act]) help = tr(OWN[act]);
      else if (!act.startsWith('ask-')) [help, keys] = withString(act, (p) => M.UTF8ToString(M._web_action_words(p))).split('\t');
      if (b.dataset.label) {
        const label = tr(b.dataset.label), long = b.querySelector('.long');
        if (long) long.textContent = label;
        else b.textContent = label;
        b.setAttribute('aria-label', label);           /* the name, also where only a symbol shows */
        b.dir = 'auto';                                 /* "فتح…" ends on the left */
      }
      if (help) {
        /* a name that says what the button does, and starts with the letters it shows ("A+", "PNG") */
        const shown = b.dataset.label ? '' : b.textContent.trim();
        if (!b.dataset.label) b.setAttribute('aria-label', /[\p{L}\p{N}]/u.test(shown) ? shown + ': ' + help : help);
        b.title = help + (keys ? ' (' + keys + ')' : '');
      }
    }
    $('picker-title').textContent = tr('Choose a lesson');
    helpShown = false;                                  /* the help's words again, in this language */
    $('numbers-title').textContent = tr('Numbers');
    $('bar').setAttribute('aria-label', tr('controls'));
    $('menu').setAttribute('aria-label', tr('more controls'));
    shownStage = '';
  }

  /* ---- the lesson list ---- */

  /* The bundled lessons as links: each a link to the lesson's address, so
  ** a click, a tap, Enter or "open in a new tab" all work. */
  function fillLessons() {
    const ul = $('lessons');
    ul.textContent = '';
    const n = M._web_picker_count();
    for (let i = 0; i < n; i++) {
      const li = document.createElement('li'), a = document.createElement('a');
      const file = M.UTF8ToString(M._web_picker_file(i));
      a.href = '#lesson=' + encodeURIComponent(file.replace(/\.lesson$/, ''));
      a.textContent = (i + 1) + '  ' + M.UTF8ToString(M._web_picker_title(i));
      a.dataset.index = i;
      a.addEventListener('focus', function () { M._web_picker_select(i); });
      li.appendChild(a);
      ul.appendChild(li);
    }
  }

  /* ---- the state of the program, shown by the page ---- */

  let was = -1, focusBefore = null, askShown = '', pickedFrom = null, helpShown = false;
  /* The help as HTML (the program's key table, in the interface's language): a row per line of it. */
  function fillHelp() {
    const lines = M.UTF8ToString(M._web_help_rows()).split('\n').filter(Boolean), table = $('help-keys');
    $('help-title').textContent = lines[0];
    table.textContent = '';
    for (const line of lines.slice(1)) {
      const [keys, words] = line.split('\t'), row = table.insertRow();
      const th = document.createElement('th'), k = document.createElement('span');
      th.scope = 'row';
      k.dir = 'ltr';                                    /* "Ctrl+Shift+Z" reads left to right in any page */
      k.textContent = keys;
      th.appendChild(k);
      row.appendChild(th);
      row.insertCell().textContent = words;
    }
    helpShown = true;
  }
  /* Keep Tab inside the open dialog: from its last control to its first and back. */
  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Tab') return;
    const open = [...document.querySelectorAll('.dialog')].find((d) => !d.hidden);
    if (!open) return;
    const all = [...open.querySelectorAll('a[href], button, input, [tabindex]:not([tabindex="-1"])')]
      .filter((el) => !el.disabled && el.getClientRects().length);
    if (!all.length) return;
    const first = all[0], last = all[all.length - 1], at = document.activeElement;
    if (!open.contains(at) || (e.shiftKey ? at === first : at === last)) {
      e.preventDefault();
      (e.shiftKey ? last : first).focus();
    }
  }, true);
  /* Show a dialog (keeping where focus was) or hide it (giving it back, or
  ** to the slide when toSlide, or when focus was nowhere before it). */
  function dialog(el, show, focus, toSlide) {
    if (show === !el.hidden) return;
    el.hidden = !show;
    if (show) {
      if (!focusBefore) focusBefore = document.activeElement;
      if (focus) focus.focus({ preventScroll: true });      /* a long dialog opens at its top */
    } else if (document.activeElement === body || !document.activeElement || el.contains(document.activeElement)) {
      const back = !toSlide && focusBefore && focusBefore !== body && document.contains(focusBefore);
      (back ? focusBefore : $('stage')).focus();
      focusBefore = null;
    }
  }
  /* Pressed buttons for the toggles that are on. */
  function pressed(act, on) {
    for (const b of document.querySelectorAll('button[data-act="' + act + '"]')) b.setAttribute('aria-pressed', on ? 'true' : 'false');
  }

  /* Follow the program's state: theme, dialogs, the error line, toggles,
  ** the controls of a pinned input, the text view. */
  function sync() {
    const f = M._web_flags();
    relabel();
    if (f !== was) {
      body.classList.toggle('dark', (f & 2) !== 0);
      const picker = (f & 8) !== 0 && (f & 64) === 0;
      if (picker && $('picker').hidden) { fillLessons(); pickedFrom = M.UTF8ToString(M._web_path()); }
      const links = $('lessons').querySelectorAll('a');
      const sel = links[M._web_picker_selected()];
      /* a lesson chosen from the list: the slide has focus, not what opened the list */
      dialog($('picker'), picker, sel, !picker && M.UTF8ToString(M._web_path()) !== pickedFrom);
      if ((f & 32) && !helpShown) fillHelp();
      dialog($('help'), (f & 32) !== 0, $('help').querySelector('button'));
      $('edited').hidden = (f & 16) === 0;           /* the edits not saved: said here, not over the slide's title */
      pressed('mask', f & 1024);
      pressed('scaling', f & 2048);
      pressed('predict', f & 256);
      pressed('theme', f & 2);
      was = f;
    }
    if (!$('picker').hidden) {
      const links = $('lessons').querySelectorAll('a'), sel = M._web_picker_selected();
      links.forEach((a, i) => a.setAttribute('aria-current', i === sel ? 'true' : 'false'));
      if (links[sel] && $('picker').contains(document.activeElement) && document.activeElement !== links[sel]
          && document.activeElement.tagName === 'A') links[sel].focus();
    }
    syncAsk(f);
    const err = M.UTF8ToString(M._web_error());
    if ($('error').textContent !== err) $('error').textContent = err;
    $('error').hidden = !err;
    syncPin(f);
    textView(false);
  }

  /* The question the program asks, as a dialog with two buttons. */
  function syncAsk(f) {
    const asking = (f & 64) !== 0;
    const words = asking ? [0, 2, 3].map((i) => M.UTF8ToString(M._web_ask_words(i))) : null;
    const key = asking ? words.join('\n') : '';
    if (key !== askShown) {
      askShown = key;
      if (asking) {
        $('ask-text').textContent = words[0];
        $('ask-yes').textContent = words[1] || tr('Open\u2026');
        $('ask-no').textContent = words[2] || tr('Close');
      }
      dialog($('ask'), asking, $('ask-no'));
    }
  }

  /* + and − for a pinned input cell (touch screens have no wheel), first in
  ** the bar, where they hide nothing. */
  function syncPin(f) {
    const hide = (f & 128) === 0 || (f & 8) !== 0;
    if ($('pin').hidden !== hide) {
      $('pin').hidden = hide;
      window.dispatchEvent(new Event('resize'));       /* the bar may take another row */
    }
  }

  /* ---- the text view ---- */

  let shownStage = '', shownTables = '', last = null;
  /* A cell of a table row. */
  function cell(row, tag, text, scope) {
    const c = document.createElement(tag);
    c.textContent = text;
    if (scope) c.scope = scope;
    row.appendChild(c);
  }
  /* Row r (a tr) to hold texts, its first cell a th: made, or the one there
  ** written over when it has as many cells (a step keeps the elements and
  ** changes their words, which costs the browser less than new ones). */
  function putRow(body, r, texts, tag) {
    let row = body.rows[r];
    if (row && row.cells.length === texts.length) {
      texts.forEach(function (v, i) {
        const c = row.cells[i], x = c.firstChild;
        if (x && x.nodeType === 3 && !x.nextSibling) { if (x.data !== v) x.data = v; } else c.textContent = v;
      });
      return;
    }
    const fresh = document.createElement('tr');
    texts.forEach((v, i) => cell(fresh, i ? tag : 'th', v, i ? (tag === 'th' ? 'col' : '') : (tag === 'th' ? 'col' : 'row')));
    if (row) body.replaceChild(fresh, row); else body.appendChild(fresh);
  }
  /* The tables of the last step, by panel, to be written over by the next. */
  let kept = [];
  /* One panel's numbers as a table: column labels over the columns, row
  ** labels before the rows, the axes' names in the corner. The rows come
  ** later, from fill(): {el, fill, rows, made, clear}, fill null when there
  ** is nothing to add. The table panel k had on the last step is used
  ** again. */
  function table(p, k, serial) {
    if (p.hidden) {
      const para = document.createElement('p');
      para.textContent = (p.title || '') + ': ' + tr('hidden until the guesses are revealed');
      kept[k] = null;
      return { el: para, fill: null, rows: 1, made: () => 1, clear: () => {} };
    }
    let t = kept[k];
    if (!t) {
      t = document.createElement('table');
      t.appendChild(document.createElement('caption'));
      t.appendChild(document.createElement('thead'));
      t.appendChild(document.createElement('tbody'));
      kept[k] = t;
    }
    if (t.caption.textContent !== (p.title || '')) t.caption.textContent = p.title || '';
    const head = t.tHead, tb = t.tBodies[0];
    let done = -1;                                  /* rows made so far; -1: not the column labels either */
    const n = p.rows.length;
    /* rows up to upto (all by default), their numbers asked of the program
    ** now; true when all are made, or when the slide has changed since */
    const fill = function (upto) {
      if (M._web_view_serial() !== serial) return true;
      if (done < 0) {                               /* the column labels with the first rows */
        putRow(head, 0, [[p.rowAxis, p.colAxis].filter(Boolean).join(' \\ ')].concat(p.cols), 'th');
        while (head.rows.length > 1) head.deleteRow(-1);
        done = 0;
      }
      const end = Math.min(n, upto === undefined ? n : upto);
      const json = end > done ? take(M._web_describe_rows(k, done, end)) : '[]';
      const cells = json ? JSON.parse(json) : [];
      cells.forEach((line, j) => putRow(tb, done + j, [p.rows[done + j] || String(done + j + 1)].concat(line), 'td'));
      done = end;
      while (tb.rows.length > done) tb.deleteRow(-1);   /* nothing of the last step's below what is made */
      return done >= n;
    };
    /* no rows yet: none of the last step's left to be read as this one's */
    const clear = function () {
      if (done >= 0) return;
      head.textContent = '';
      tb.textContent = '';
    };
    return { el: t, fill: fill, rows: n, made: () => Math.max(done, 0), clear: clear };
  }
  /*
  ** The tables' rows are made as they are needed: those in view of the
  ** Numbers box at once, the others when they scroll into view, or all of
  ** them once the slide has stayed a second (for a screen reader reading
  ** on; all: at once). Stepping on with the box open costs the rows on
  ** screen, not every number of the stage; a new stage drops what the last
  ** one had still to make.
  */
  let fillRound = 0;
  let rowPx = 0;                                    /* a table row's height, estimated once */
  let tablesTop = 0;                                /* where the tables start in the box, as last seen */
  function fillTables(pending, all, view) {
    const round = ++fillRound, box = $('numbers');
    if (all) { pending.forEach((t) => { if (t.fill) t.fill(); }); return; }
    const inView = (t) => {
      const seen = box.getBoundingClientRect(), r = t.el.getBoundingClientRect();
      return r.bottom >= seen.top - 200 && r.top <= seen.bottom + 200;
    };
    const take = (t, upto) => { if (t.fill && t.fill(upto)) t.fill = null; };
    /* the rows in view now, by their height as estimated, from where the
    ** box was scrolled before its tables were replaced (view): nothing of
    ** the page's layout is read between making the rows and drawing them */
    let y = tablesTop;
    const bottom = view.top + view.height, row = rowPx;
    for (const t of pending) {
      if (y >= bottom) break;
      take(t, Math.ceil((bottom - y) / row));
      y += row * (t.rows + 3);
    }
    pending.forEach((t) => t.clear());
    const onScroll = function () {
      if (round !== fillRound) { box.removeEventListener('scroll', onScroll); return; }
      pending.filter((t) => t.fill && inView(t)).forEach(take);
    };
    box.addEventListener('scroll', onScroll, { passive: true });
    /* the rest a few rows at a time, between frames, so that a key
    ** pressed meanwhile is not kept waiting behind every number */
    const rest = function () {
      if (round !== fillRound) return;
      tablesTop = $('tables').offsetTop - box.offsetTop;     /* read while nothing waits to be drawn */
      const t = pending.find((u) => u.fill), until = performance.now() + 8;
      if (!t) { box.removeEventListener('scroll', onScroll); return; }
      while (t.fill && performance.now() < until) take(t, t.made() + 8);
      setTimeout(rest, 0);
    };
    setTimeout(rest, 1000);
  }
  /* The text view: the stage's words, said when the stage changes; the
  ** tables, made while the numbers are shown. Nothing is asked of the
  ** program while the slide stays as it is. force: the tables now. */
  let described = '';
  function textView(force) {
    const f = M._web_flags();
    const open = !$('numbers').hidden || force;
    if (!(f & 4)) {
      if (shownStage) { $('text').textContent = ''; $('tables').textContent = ''; kept = []; shownStage = shownTables = ''; }
      return null;
    }
    const key = M._web_view_serial() + '|' + labelled + '|' + open;
    if (key === described && last) return last;
    described = key;
    const json = take(M._web_describe(0));          /* the words and labels; the numbers come by rows */
    if (!json) return null;
    const d = JSON.parse(json);
    last = d;
    const words = [d.lesson + ' \u2014 ' + d.stage + ' / ' + d.stages + (d.steps > 1 ? ' (' + d.step + ' / ' + d.steps + ')' : ''),
      d.title, d.formula, d.note].concat(d.paras).filter(Boolean);
    const said = words.join('\n');
    if (said !== shownStage) {
      shownStage = said;
      const box = $('text');
      box.textContent = '';
      words.forEach(function (w, i) {
        const el = document.createElement(i === 1 ? 'h2' : 'p');
        el.textContent = w;
        el.dir = 'auto';
        box.appendChild(el);
      });
      $('stage').setAttribute('aria-label', d.lesson + ': ' + d.title);
      $('page-title').textContent = d.lesson;
    }
    if (open && key !== shownTables) {
      shownTables = key;
      const box = $('tables'), numbers = $('numbers');
      if (!rowPx) rowPx = 1.6 * parseFloat(getComputedStyle(numbers).fontSize || '14');
      const view = { top: numbers.scrollTop, height: numbers.clientHeight };   /* read before the tables change */
      let h = box.firstElementChild;
      if (!h || h.tagName !== 'P') { box.textContent = ''; h = box.appendChild(document.createElement('p')); h.dir = 'auto'; }
      const heading = d.title + (d.formula ? ' \u2014 ' + d.formula : '');
      if (h.textContent !== heading) h.textContent = heading;
      kept.length = Math.min(kept.length, d.panels.length);
      const serial = M._web_view_serial(), pending = d.panels.map((p, k) => table(p, k, serial));
      /* the elements in their order, those already in place left there */
      pending.forEach(function (t, i) {
        const at = box.children[i + 1];
        if (at !== t.el) box.insertBefore(t.el, at || null);
      });
      while (box.children.length > pending.length + 1) box.lastElementChild.remove();
      fillTables(pending, force, view);
    }
    return d;
  }

  /* Say s (an explanation) in the live region. */
  function announce(s) {
    const live = $('live');
    if (live.textContent !== s) live.textContent = s;
  }

  /* ---- wiring ---- */

  for (const b of document.querySelectorAll('button[data-act]')) {
    b.addEventListener('click', function () { run(b.dataset.act, b); });
  }
  return { sync: sync, relabel: relabel, announce: announce, textView: (all = true) => { textView(all); return last; }, tr: tr,
    withString: withString, take: take };
}
