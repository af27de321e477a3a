/*
** paint.js: the browser edition's canvas backend. It measures text for the
** C layout and draws a display list (src/view/draw.h) on a 2D canvas with
** the rules of src/sdl/render.c, reading the commands straight out of the
** module's memory: no object per command, so a frame of thousands of cells
** costs their drawing and little else.
**
** attnlabPainter(M, L) takes the module and the struct layout it reported
** (web_layout: field offsets and enum values by name) and returns
**   measure(ptr, size, bold)   the MeasureFn behind the layout (ptr: a C string)
**   paint(g, d, w, h)          draw the DrawList at address d on context g
**   read(d)                    the list as plain objects (tests only)
*/
'use strict';
/* exported attnlabPainter */
function attnlabPainter(M, L) {
  const FONT_STACK = '"DejaVu Sans", "Noto Sans", "Segoe UI", Roboto, "Helvetica Neue", Arial, system-ui, sans-serif';
  const measureCtx = document.createElement('canvas').getContext('2d');

  /* ---- text: one font stack measures and draws ---- */

  /*
  ** Text is measured the way the desktop measures it where that is
  ** possible: sizes in whole pixels (rounded as src/sdl/font.c rounds them)
  ** and each character at a whole-pixel advance, unkerned. Then a stage
  ** lays out on the same cells as the desktop's and the exports. The
  ** canvas's advances grow in proportion to the size, so each character is
  ** measured once, at REF pixels, and a run's width at any size is a sum
  ** over a table: no canvas call per run. Runs that need the browser's
  ** shaping (combining marks, right-to-left and Indic scripts, emoji
  ** sequences...) are measured and drawn whole by the canvas instead, so
  ** every script still comes out right. Either way the width the layout
  ** gets is the width that is drawn.
  */
  const REF = 1000;
  const COMPLEX = /[\u0300-\u036f\u0590-\u0dff\u0e00-\u0fff\u1000-\u109f\u1100-\u11ff\u1780-\u18af\u1ab0-\u1aff\u1dc0-\u1dff\u200b-\u200f\u202a-\u202e\u2066-\u2069\u20d0-\u20ff\ud800-\udfff\ufb1d-\ufeff]/;
  const ascii = [new Float64Array(128).fill(-1), new Float64Array(128).fill(-1)];   /* advances at REF px */
  const other = new Map();            /* (bold, character) -> advance at REF px */
  const whole = new Map();            /* (bold, px, run) -> width of a complex run */
  /* Whole pixels for a size, rounded as font_px rounds it. */
  const px = (size) => (size >= 0.5 ? Math.floor(size + 0.5) : 0);
  /* The CSS font of a run. */
  const font = (p, bold) => (bold ? 'bold ' : '') + p + 'px ' + FONT_STACK;
  let measuring = '';
  /* Set the measuring context's font (only when it changes: setting it costs). */
  function measureFont(f) {
    if (f !== measuring) {
      measureCtx.font = f;
      measureCtx.fontKerning = 'none';
      measuring = f;
    }
  }
  /* The advance of a character (a string of one code point) at REF px. */
  function refAdvance(ch, bold) {
    const c = ch.codePointAt(0);
    if (c < 128 && ascii[bold][c] >= 0) return ascii[bold][c];
    const key = bold + ch;
    let w = c < 128 ? undefined : other.get(key);
    if (w === undefined) {
      measureFont(font(REF, bold));
      w = measureCtx.measureText(ch).width;
      if (c < 128) ascii[bold][c] = w;
      else other.set(key, w);
    }
    return w;
  }
  /* The width of a complex run, measured whole (and kept). */
  function wholeWidth(text, p, bold) {
    const key = bold + '|' + p + '|' + text;
    let w = whole.get(key);
    if (w === undefined) {
      if (whole.size > 20000) whole.clear();
      measureFont(font(p, bold));
      w = measureCtx.measureText(text).width;
      whole.set(key, w);
    }
    return w;
  }
  /* Width of text at size px as the layout sees it: whole-pixel advances,
  ** or the browser's for a complex run. */
  function width(text, p, bold) {
    if (!p || !text) return 0;
    if (COMPLEX.test(text)) return wholeWidth(text, p, bold);
    let w = 0;
    for (const ch of text) w += Math.round(refAdvance(ch, bold) * p / REF);
    return w;
  }
  /* The C layout's MeasureFn: the C string at ptr, size, bold 0/1. Plain
  ** ASCII is summed from the bytes, without making a string. */
  function measure(ptr, size, bold) {
    const p = px(size), heap = M.HEAPU8;
    bold = bold ? 1 : 0;
    if (!p) return 0;
    let w = 0, i = ptr;
    for (let b = heap[i]; b !== 0; b = heap[++i]) {
      if (b >= 128) return width(M.UTF8ToString(ptr), p, bold);
      const a = ascii[bold][b];
      w += Math.round((a >= 0 ? a : refAdvance(String.fromCharCode(b), bold)) * p / REF);
    }
    return w;
  }
  /* Ascent, descent and digit height of the stack, per pixel of size. */
  const metrics = [0, 1].map(function (bold) {
    measureFont(font(100, bold));
    const m = measureCtx.measureText('0123456789');
    return {
      ascent: (m.fontBoundingBoxAscent || 92.8) / 100,
      descent: (m.fontBoundingBoxDescent || 23.6) / 100,
      digit: (m.actualBoundingBoxAscent || 72.9) / 100,
    };
  });
  /* Whether a run reads right to left: its first strong character, by the
  ** program's own rule (text_rtl), asked once per run. */
  const rtlRuns = new Map();
  function rtl(ptr, text) {
    let r = rtlRuns.get(text);
    if (r === undefined) {
      if (rtlRuns.size > 5000) rtlRuns.clear();
      r = M._web_text_rtl(ptr) !== 0;
      rtlRuns.set(text, r);
    }
    return r;
  }

  /* ---- drawing: the rules of src/sdl/render.c, on a canvas ---- */

  /* Nearest whole pixel, halves up (render.c's snap). */
  const snap = (v) => Math.floor(v + 0.5);
  /* CSS colours of packed RGBA values, made once each. */
  const colours = new Map();
  function colour(heap, at) {
    const key = heap[at] << 24 | heap[at + 1] << 16 | heap[at + 2] << 8 | heap[at + 3];
    let c = colours.get(key);
    if (c === undefined) {
      if (colours.size > 4096) colours.clear();
      c = 'rgba(' + heap[at] + ',' + heap[at + 1] + ',' + heap[at + 2] + ',' + (heap[at + 3] / 255).toFixed(3) + ')';
      colours.set(key, c);
    }
    return c;
  }

  /* A filled rectangle, or its outline centred on its edges, in four bands
  ** (edges snapped to whole pixels, at least one pixel apart). */
  function rect(g, x, y, w, h, lw) {
    if (!(w > 0) || !(h > 0)) return;
    if (!(lw > 0)) {
      const x0 = snap(x), y0 = snap(y);
      g.fillRect(x0, y0, Math.max(snap(x + w) - x0, 1), Math.max(snap(y + h) - y0, 1));
      return;
    }
    const hw = lw / 2;
    const ox0 = snap(x - hw), oy0 = snap(y - hw);
    const ox1 = Math.max(snap(x + w + hw), ox0 + 1), oy1 = Math.max(snap(y + h + hw), oy0 + 1);
    let ix0 = snap(x + hw), ix1 = snap(x + w - hw), iy0 = snap(y + hw), iy1 = snap(y + h - hw);
    if (ix0 <= ox0) ix0 = ox0 + 1;
    if (iy0 <= oy0) iy0 = oy0 + 1;
    if (ix1 >= ox1) ix1 = ox1 - 1;
    if (iy1 >= oy1) iy1 = oy1 - 1;
    if (ix1 <= ix0 || iy1 <= iy0) { g.fillRect(ox0, oy0, ox1 - ox0, oy1 - oy0); return; }
    g.fillRect(ox0, oy0, ox1 - ox0, iy0 - oy0);
    g.fillRect(ox0, iy1, ox1 - ox0, oy1 - iy1);
    g.fillRect(ox0, iy0, ix0 - ox0, iy1 - iy0);
    g.fillRect(ix1, iy0, ox1 - ix1, iy1 - iy0);
  }

  /* A line, solid or dashed (the program's one dash pattern, in stroke
  ** widths: DRAW_DASH_ON and DRAW_DASH_OFF of the struct layout). */
  function line(g, x, y, w, h, lw, dashed) {
    lw = lw >= 1 ? lw : 1;
    g.lineWidth = lw;
    g.setLineDash(dashed ? [L.DRAW_DASH_ON * lw, L.DRAW_DASH_OFF * lw] : []);
    g.beginPath();
    g.moveTo(x, y);
    g.lineTo(x + w, y + h);
    g.stroke();
  }

  /* A text run aligned in its box; rotate 90 reads bottom to top. A plain
  ** run is drawn whole, its letters spaced to the whole-pixel advances the
  ** layout measured; a complex one as the browser shapes it, right to left
  ** when its first strong character says so. */
  let drawing = '';
  function text(g, ptr, x, y, w, h, size, bold, halign, valign, rotate) {
    const s = M.UTF8ToString(ptr);
    const p = px(size);
    if (!s || !p) return;
    const m = metrics[bold], rot = rotate === 90, complex = COMPLEX.test(s);
    const wide = complex ? wholeWidth(s, p, bold) : width(s, p, bold);
    const along0 = rot ? y + h : x, alongLen = rot ? h : w;
    const across0 = rot ? x : y, acrossLen = rot ? w : h;
    let start = 0;
    if (halign === L.ALIGN_CENTER) start = (alongLen - wide) / 2;
    else if (halign === L.ALIGN_RIGHT) start = alongLen - wide;
    const base = valign === L.VALIGN_TOP ? m.ascent * p
      : valign === L.VALIGN_BOTTOM ? acrossLen - m.descent * p : (acrossLen + m.digit * p) / 2;
    const f = font(p, bold);
    if (f !== drawing) { g.font = f; drawing = f; }
    let spacing = 0;
    if (!complex) {
      let natural = 0, n = 0;
      for (const ch of s) { natural += refAdvance(ch, bold) * p / REF; n++; }
      spacing = (wide - natural) / n;
    }
    g.letterSpacing = Math.abs(spacing) < 0.01 ? '0px' : spacing.toFixed(3) + 'px';
    g.direction = complex && rtl(ptr, s) ? 'rtl' : 'ltr';
    if (rot) {
      g.save();
      g.translate(snap(across0 + base), snap(along0 - start));
      g.rotate(-Math.PI / 2);
      g.fillText(s, 0, 0);
      g.restore();
    } else {
      g.fillText(s, snap(along0 + start), snap(across0 + base));
    }
  }

  /*
  ** An image command (a heatmap in blocks, draw.h's DrawImage) as one
  ** image: a pixel per block, scaled up without smoothing, so each block
  ** covers the rectangle draw_image_block gives it (to the whole pixel).
  */
  const blocks = document.createElement('canvas');
  const blocksCtx = blocks.getContext('2d');
  function image(g, im, x, y) {
    const h32 = M.HEAP32, f32 = M.HEAPF32;
    const rows = h32[(im + L.image_rows) >> 2], cols = h32[(im + L.image_cols) >> 2];
    const rstep = h32[(im + L.image_rstep) >> 2], cstep = h32[(im + L.image_cstep) >> 2];
    const cw = f32[(im + L.image_cw) >> 2], ch = f32[(im + L.image_ch) >> 2];
    const brows = Math.ceil(rows / rstep), bcols = Math.ceil(cols / cstep);
    if (brows <= 0 || bcols <= 0) return;
    const px0 = im + L.image_size;
    if (blocks.width < bcols || blocks.height < brows) {
      blocks.width = Math.max(blocks.width, bcols);
      blocks.height = Math.max(blocks.height, brows);
    }
    const data = new ImageData(new Uint8ClampedArray(M.HEAPU8.buffer, px0, 4 * brows * bcols).slice(), bcols, brows);
    blocksCtx.putImageData(data, 0, 0);
    const x1 = snap(x + cols * cw), y1 = snap(y + rows * ch), x0 = snap(x), y0 = snap(y);
    g.save();
    g.beginPath();
    g.rect(x0, y0, x1 - x0, y1 - y0);       /* the last blocks are cut at the grid's edge */
    g.clip();
    g.imageSmoothingEnabled = false;
    g.drawImage(blocks, 0, 0, bcols, brows, x, y, bcols * cstep * cw, brows * rstep * ch);
    g.restore();
  }

  /* Draw the display list at address d on a 2D context whose pixels are
  ** the list's pixels. */
  function paint(g, d, w, h) {
    const u8 = M.HEAPU8, i32 = M.HEAP32, u32 = M.HEAPU32, f32 = M.HEAPF32;
    const cmds = u32[(d + L.cmds) >> 2], n = i32[(d + L.n) >> 2];
    const arena = u32[(d + L.arena) >> 2], pix = u32[(d + L.pix) >> 2];
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fontKerning = 'none';
    g.textBaseline = 'alphabetic';
    g.textAlign = 'left';
    drawing = '';
    g.font = font(10, 0);
    g.fillStyle = colour(u8, d + L.background);
    g.fillRect(0, 0, w, h);
    for (let i = 0; i < n; i++) {
      const b = cmds + i * L.size, kind = i32[(b + L.kind) >> 2], r = (b + L.r) >> 2;
      const c = colour(u8, b + L.color);
      if (kind === L.DRAW_RECT) {
        g.fillStyle = c;
        rect(g, f32[r], f32[r + 1], f32[r + 2], f32[r + 3], f32[(b + L.width) >> 2]);
      } else if (kind === L.DRAW_LINE) {
        g.strokeStyle = c;
        line(g, f32[r], f32[r + 1], f32[r + 2], f32[r + 3], f32[(b + L.width) >> 2], u8[b + L.dashed]);
      } else if (kind === L.DRAW_TEXT) {
        g.fillStyle = c;
        text(g, arena + u32[(b + L.text) >> 2], f32[r], f32[r + 1], f32[r + 2], f32[r + 3], f32[(b + L.fsize) >> 2],
          u8[b + L.bold] ? 1 : 0, u8[b + L.halign], u8[b + L.valign], u8[b + L.rotate]);
      } else if (kind === L.DRAW_IMAGE) {
        image(g, pix + u32[(b + L.text) >> 2], f32[r], f32[r + 1]);
      }
    }
    g.letterSpacing = '0px';
    g.direction = 'ltr';
  }

  /* ---- the list as objects, for the tests' eyes only ---- */

  /* An image command as the filled rectangles it stands for, in the same
  ** float32 arithmetic as draw_image_block. */
  function readImage(b, im, out) {
    const f = Math.fround, u8 = M.HEAPU8, i32 = M.HEAP32, f32 = M.HEAPF32, r = (b + L.r) >> 2;
    const rows = i32[(im + L.image_rows) >> 2], cols = i32[(im + L.image_cols) >> 2];
    const rstep = i32[(im + L.image_rstep) >> 2], cstep = i32[(im + L.image_cstep) >> 2];
    const cw = f32[(im + L.image_cw) >> 2], ch = f32[(im + L.image_ch) >> 2];
    const x0 = f32[r], y0 = f32[r + 1], role = i32[(b + L.role) >> 2], panel = M.HEAP16[(b + L.panel) >> 1];
    const bcols = Math.ceil(cols / cstep);
    for (let i = 0, row = 0; row < rows; i++, row += rstep) {
      for (let j = 0, col = 0; col < cols; j++, col += cstep) {
        const p = im + L.image_size + 4 * (i * bcols + j);
        out.push({
          kind: L.DRAW_RECT, role: role, color: [u8[p], u8[p + 1], u8[p + 2], u8[p + 3]],
          x: f(x0 + f(col * cw)), y: f(y0 + f(row * ch)),
          w: f(cw * (col + cstep <= cols ? cstep : cols - col)), h: f(ch * (row + rstep <= rows ? rstep : rows - row)),
          width: 0, text: '', size: 0, halign: 0, valign: 0, bold: 0, rotate: 0, dashed: 0,
          panel: panel, row: row, col: col,
        });
      }
    }
  }

  /* The DrawList at address d as plain objects. */
  function read(d) {
    const u8 = M.HEAPU8, i32 = M.HEAP32, u32 = M.HEAPU32, f32 = M.HEAPF32, i16 = M.HEAP16;
    const cmds = u32[(d + L.cmds) >> 2], n = i32[(d + L.n) >> 2];
    const arena = u32[(d + L.arena) >> 2], pix = u32[(d + L.pix) >> 2], bg = d + L.background;
    const out = { n: n, background: [u8[bg], u8[bg + 1], u8[bg + 2], u8[bg + 3]], cmds: [] };
    for (let i = 0; i < n; i++) {
      const b = cmds + i * L.size, c = b + L.color, r = (b + L.r) >> 2;
      const kind = i32[(b + L.kind) >> 2];
      if (kind === L.DRAW_IMAGE) { readImage(b, pix + u32[(b + L.text) >> 2], out.cmds); continue; }
      out.cmds.push({
        kind: kind, role: i32[(b + L.role) >> 2], color: [u8[c], u8[c + 1], u8[c + 2], u8[c + 3]],
        x: f32[r], y: f32[r + 1], w: f32[r + 2], h: f32[r + 3], width: f32[(b + L.width) >> 2],
        text: kind === L.DRAW_TEXT ? M.UTF8ToString(arena + u32[(b + L.text) >> 2]) : '',
        size: f32[(b + L.fsize) >> 2], halign: u8[b + L.halign], valign: u8[b + L.valign], bold: u8[b + L.bold],
        rotate: u8[b + L.rotate], dashed: u8[b + L.dashed],
        panel: i16[(b + L.panel) >> 1], row: i16[(b + L.row) >> 1], col: i16[(b + L.col) >> 1],
      });
    }
    return out;
  }

  return { measure: measure, paint: paint, read: read };
}
