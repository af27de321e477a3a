#!/usr/bin/python3
"""baseline.py: attnlab's stages drawn with matplotlib or seaborn, the
baselines of `make bench` (bench/bench.c runs this script).

The figures are described by a JSON file that bench.c writes from attnlab's
own stage views (stage_view), so both sides draw the same content: the
stage title and the lesson/position line, a rule, the formula on a tinted
strip, every panel side by side (heatmaps with a value in every cell, tick
labels, axis titles, a colour bar on the same scale attnlab uses; line plots
with their per-row bound), and the paragraphs, wrapped, under the panels. The canvas
is the same size in pixels (figsize = size / dpi, dpi 100, saved without
bbox_inches so the PNG has exactly that size).

  --serve SPEC --style S --out PNG
      Per-figure timing in one process: import, draw --warmup figures, print
      "ready", then for every line "draw" on stdin draw the first stage of
      SPEC to PNG and print "ms VALUE" (time.perf_counter from the figure's
      creation to the saved file, closed); "quit" ends. bench.c alternates
      these requests with its own exports.
  --lesson SPEC --style S --out DIR
      The whole-process script: draw every stage of SPEC to DIR/NN.png and
      exit (bench.c times the process from spawn to exit, imports included).

SPEC: {"width", "height", "stages": [{"title", "meta", "formula",
"paras": [...], "panels": [{"kind": "heatmap"|"plot", "title", "data"
(rows of numbers, null for -inf), "row_labels", "col_labels", "row_axis",
"col_axis", "cmap", "lo", "hi", "decimals", "y_axis", "series", "bounds"
(one per row), "bound_label"}]}]}.

Needs Debian's python3-matplotlib, python3-numpy and (for --style seaborn)
python3-seaborn; run as /usr/bin/python3.
"""

import argparse
import json
import os
import sys
import textwrap
import time

import matplotlib

matplotlib.use("Agg")  # no display; Debian's matplotlibrc says TkAgg

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

DPI = 100


def cells(p):
    """A panel's values as a float array, -inf for null (masked)."""
    return np.array([[-np.inf if v is None else v for v in row] for row in p["data"]], dtype=float)


def label(v, decimals):
    """A cell's text: the value rounded, or the minus-infinity sign."""
    if np.isneginf(v):
        return "\u2212\u221e"
    return f"{v:.{decimals}f}"


def annotate(ax, m, p, cmap):
    """One text per cell, dark or light against the cell's colour."""
    lo, hi = p["lo"], p["hi"]
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            v = m[i, j]
            t = 0.0 if not np.isfinite(v) else min(max((v - lo) / (hi - lo), 0.0), 1.0)
            r, g, b, _ = cmap(t)
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
            ax.text(j, i, label(v, p["decimals"]), ha="center", va="center",
                    color="white" if dark else "black", fontsize=p["fontsize"])


def heatmap_mpl(fig, ax, p):
    """A heatmap the matplotlib way: imshow, texts, colour bar."""
    m = cells(p)
    cmap = plt.get_cmap(p["cmap"])
    im = ax.imshow(np.where(np.isfinite(m), m, np.nan), cmap=cmap, vmin=p["lo"], vmax=p["hi"],
                   aspect="auto")
    annotate(ax, m, p, cmap)
    ax.set_xticks(range(m.shape[1]), p["col_labels"])
    ax.set_yticks(range(m.shape[0]), p["row_labels"])
    ax.set_xticks(np.arange(m.shape[1] + 1) - 0.5, minor=True)    # white lines between cells
    ax.set_yticks(np.arange(m.shape[0] + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    fig.colorbar(im, ax=ax, fraction=0.05, pad=0.02)


def heatmap_sns(fig, ax, p):
    """A heatmap the seaborn way: sns.heatmap with annot and a colour bar."""
    import seaborn as sns
    m = cells(p)
    cmap = plt.get_cmap(p["cmap"])
    sns.heatmap(np.where(np.isfinite(m), m, np.nan), ax=ax, cmap=cmap, vmin=p["lo"], vmax=p["hi"],
                annot=np.array([[label(v, p["decimals"]) for v in row] for row in m]), fmt="",
                annot_kws={"fontsize": p["fontsize"]}, linewidths=1, linecolor="white",
                xticklabels=p["col_labels"], yticklabels=p["row_labels"],
                cbar_kws={"fraction": 0.05, "pad": 0.02})
    ax.tick_params(axis="y", rotation=0)


def plot_panel(ax, p):
    """Points per series with their values (no line joins tokens), the
    dashed step line of the per-row bound, a legend."""
    m = cells(p)
    x = np.arange(m.shape[0])
    names = p["series"] or [f"series {k + 1}" for k in range(m.shape[1])]
    for j, name in enumerate(names):
        xs = x + (j - (len(names) - 1) / 2) * 0.8 / max(len(names), 1)
        ax.plot(xs, m[:, j], marker="s", ls="none", label=name)
        for xi, yi in zip(xs, m[:, j]):
            if np.isfinite(yi):
                ax.annotate(f"{yi:.{p['decimals']}f}", (xi, yi), textcoords="offset points", xytext=(0, 5),
                            ha="center", fontsize=8)
    if p.get("bounds") is not None:
        b = np.array([np.nan if v is None else v for v in p["bounds"]], dtype=float)
        ax.step(np.append(x - 0.5, x[-1] + 0.5), np.append(b, b[-1]), where="post", ls="--", color="0.2",
                label=p.get("bound_label") or None)
    ax.set_xticks(x, p["row_labels"])
    ax.set_ylabel(p.get("y_axis") or "")
    ax.legend(fontsize=9)


def draw(stage, width, height, style, path):
    """One stage, drawn and saved."""
    fig = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    fig.text(0.03, 0.96, stage["title"], fontsize=22, weight="bold", va="top")
    fig.text(0.97, 0.95, stage["meta"], fontsize=11, color="0.35", ha="right", va="top")
    fig.add_artist(Line2D([0.03, 0.97], [0.895, 0.895], color="0.8", lw=1))
    if stage["formula"]:
        fig.text(0.035, 0.865, stage["formula"], fontsize=15, va="top",
                 bbox={"facecolor": "#eceef3", "edgecolor": "none", "pad": 6})
    panels = stage["panels"]
    cols = min(max(len(panels), 1), 4)          # four panels a row at most, as attnlab wraps
    rows = (len(panels) + cols - 1) // cols or 1
    for k, p in enumerate(panels):
        r, c = divmod(k, cols)
        p["fontsize"] = 14 if rows == 1 else 10
        h = 0.52 / rows
        ax = fig.add_axes([0.07 + c * 0.92 / cols, 0.16 + (rows - 1 - r) * h, 0.92 / cols - 0.08,
                           h - 0.12 * (rows > 1)])
        if p["kind"] == "plot":
            plot_panel(ax, p)
        elif style == "seaborn":
            heatmap_sns(fig, ax, p)
        else:
            heatmap_mpl(fig, ax, p)
        if p["kind"] == "heatmap":
            ax.xaxis.tick_top()
            ax.xaxis.set_label_position("top")
        ax.set_title(p["title"], loc="left", fontsize=14, weight="bold", pad=28 if rows == 1 else 18)
        ax.set_xlabel(p.get("col_axis") or "", color="0.35")
        if p.get("row_axis") and p["kind"] == "heatmap":
            ax.set_ylabel(p["row_axis"], color="0.35")
    text = "\n".join(textwrap.fill(s, 130) for s in stage["paras"])
    fig.text(0.03, 0.11, text, fontsize=12, va="top")
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def serve(spec, style, out, warmup):
    """Per-figure timing, one figure per request on stdin."""
    st = spec["stages"][0]
    for _ in range(warmup):
        draw(st, spec["width"], spec["height"], style, out)
    print(f"ready {style} matplotlib {matplotlib.__version__}", flush=True)
    for line in sys.stdin:
        if line.strip() != "draw":
            break
        t0 = time.perf_counter()
        draw(st, spec["width"], spec["height"], style, out)
        print(f"ms {(time.perf_counter() - t0) * 1000.0:.3f}", flush=True)


def main():
    """--serve or --lesson."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--serve", metavar="SPEC")
    mode.add_argument("--lesson", metavar="SPEC")
    ap.add_argument("--style", choices=["matplotlib", "seaborn"], default="matplotlib")
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    with open(a.serve or a.lesson, encoding="utf-8") as f:
        spec = json.load(f)
    if a.serve:
        serve(spec, a.style, a.out, a.warmup)
        return
    os.makedirs(a.out, exist_ok=True)
    for k, st in enumerate(spec["stages"]):
        draw(st, spec["width"], spec["height"], a.style, os.path.join(a.out, f"{k + 1:02d}.png"))


if __name__ == "__main__":
    main()
