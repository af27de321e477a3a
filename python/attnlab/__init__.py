"""attnlab in Python: attention weights, lessons and PyTorch models drawn by
attnlab's own core, inline in Jupyter.

    import attnlab
    attnlab.show(weights, tokens)                    # given weights, [heads,] queries, keys
    attnlab.show(outputs.attentions, tokens)         # every layer's heads on one picture (the model view)
    les = attnlab.from_torch(model, ids, tokens)     # MultiheadAttention, an encoder layer, GPT-2, BERT
    les.slide(2)                                     # a stage, drawn; .save("x.png"), .dump()
    les.interactive()                                # the browser edition in the notebook

Everything is computed by libattnlab, loaded into this process (or, where
it is not built, by the attnlab program), so the numbers are the ones its
window shows; every object returned has
.lesson_text() (the lesson, which the window opens as it is) and .dump()
(what `attnlab --dump` prints). Pure Python: the standard library and
numpy; PyTorch only for from_torch. docs/python.md says more.
"""

from ._interactive import Interactive
from ._lesson import STAGES, Lesson, Slide
from ._program import LessonError, browser_edition, program
from ._torch import from_torch
from . import _args, _text

__all__ = ["show", "Lesson", "Slide", "Interactive", "from_torch", "LessonError", "program", "browser_edition",
           "STAGES"]


@_args.checked((Lesson.__init__, ("title",)))
def show(attention, tokens, key_tokens=None, *, title="Attention weights", mask=None, stage=None, head=None,
         values=None, text=None, batch=None, interactive=False, **options):
    """Draw given attention weights, as a model returned them.

    attention: a numpy array or torch tensor of shape (queries, keys) or
    (heads, queries, keys) (or with a batch axis first: batch picks one);
    every row sums to 1. tokens label the queries, key_tokens the keys
    (cross-attention; else the keys are the tokens). mask: "causal" (or
    "padding TOKEN", ...) when the model used one: a weight it blocks must
    be 0. stage: "softmax" (one head; the default), "multi_head" (several;
    the default), "entropy" or "per_token"; head shows one head. values:
    the values the weights average (then "weighted_sum" works too). text:
    the slide's explanation. options: Lesson's (size, theme, cmap, format,
    ...). interactive=True: the browser edition in the notebook instead.
    A list or tuple of such arrays or tensors, one per layer (as a Hugging
    Face model returns outputs.attentions, each (batch, heads, queries,
    keys)), is every layer: a setup each, titled "Layer 1", ..., ending in
    the model_view stage, every head of every layer on one picture (nested
    lists of numbers are one array, as before).
    Returns a Lesson, which draws itself.
    """
    if isinstance(attention, (list, tuple)) and attention and all(hasattr(a, "shape") for a in attention):
        if values is not None:
            raise ValueError("attnlab.show: values= goes with one array of weights, not one per layer; give the "
                             "layer's weights alone to see its weighted sum")
        return _layers(attention, tokens, key_tokens, title, mask, stage, head, text, batch, interactive, options)
    a = _text.as_array(attention, "attention")
    if a.ndim == 4:
        a = a[_text.batch_index(batch, a.shape[0], "attention")]
    if a.ndim == 2:
        a = a[None]
    if a.ndim != 3:
        raise ValueError("attnlab.show: attention has shape %s; expected (queries, keys) or (heads, queries, keys)"
                         % (a.shape,))
    heads = a.shape[0]
    les = Lesson(title, **options)
    cross = key_tokens is not None
    les.setup(None if cross else tokens, query_tokens=tokens if cross else None, key_tokens=key_tokens,
              attention=a, mask=mask, matrices={"V": values} if values is not None else None,
              settings={"values": "V"} if values is not None else None)
    stage = stage or ("multi_head" if heads > 1 else "softmax")
    les.stage(stage, text=text, head=head)
    les.check()                         # refused now, where its limits say, not when it is drawn
    return les.interactive() if interactive else les


def _layers(layers, tokens, key_tokens, title, mask, stage, head, text, batch, interactive, options):
    """show() of one array of given weights per layer: a setup each, and
    the model view (stage: another stage for every layer instead, of head
    `head` when given)."""
    les = Lesson(title, **options)
    cross = key_tokens is not None
    for i, layer in enumerate(layers):
        a = _text.as_array(layer, "attention[%d]" % i)
        if a.ndim == 4:
            a = a[_text.batch_index(batch, a.shape[0], "attention[%d]" % i)]
        if a.ndim == 2:
            a = a[None]
        if a.ndim != 3:
            raise ValueError("attnlab.show: attention[%d] has shape %s; expected (heads, queries, keys) or a batch of "
                             "them, one per layer" % (i, a.shape))
        first = i == 0
        les.setup(None if cross or not first else tokens, query_tokens=tokens if cross and first else None,
                  key_tokens=key_tokens if first else None, title="Layer %d" % (i + 1), attention=a,
                  mask=mask if first else None)
        if stage:
            les.stage(stage, text=text, head=head)
    if not stage:
        les.stage("model_view", text=text)
    les.check()
    return les.interactive() if interactive else les
