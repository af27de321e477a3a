"""attnlab.from_torch: a lesson from a PyTorch module and its input.

These kinds of module are read:

- nn.MultiheadAttention (queries, keys and values packed in
  in_proj_weight or separate, biases, batch_first either way, masks);
- nn.TransformerEncoderLayer, as a block (norm_first either way);
- Hugging Face's BERT: BertSelfAttention (query, key, value), BertAttention,
  BertLayer, BertEncoder and BertModel (or a model with .bert), in BERT's
  post-norm order, with its padding mask;
- a GPT-2 block (ln_1, attn.c_attn packed, attn.c_proj, ln_2, mlp.c_fc,
  mlp.c_proj, with Conv1D's (in, out) weights or nn.Linear's (out, in)),
  as a module or as its state dict;
- a GPT-2-style model (wte, wpe, h, ln_f; also under .transformer, with
  lm_head or the embedding tied as the unembedding): every block chained
  with `residual: yes`, and the next token.

The module's weights become the lesson's matrices: a copy of each, float32
staying float32, which the library reads where it lies, each number as
the double it is; attnlab computes everything from them in doubles. torch is imported
here only when from_torch is called.
"""

import numpy as np

from . import _args
from ._lesson import Lesson
from ._text import as_array, batch_index

# What from_torch fills itself of the function that reads each kind of module,
# and of Lesson's: the keywords a user gives are the rest of theirs.
_FILLED = ("mha", "block", "model", "inner", "x", "ids", "tokens", "key_tokens", "title", "stages")


def from_torch(module, x, tokens, *, key_tokens=None, title=None, stages=None, **kw):
    """A Lesson from a PyTorch module and its input x.

    nn.MultiheadAttention: x is the query input (L, E), or batched (N, L, E)
    with batch_first, else (L, N, E); key= and value= for cross-attention
    (with key_tokens); attn_mask= (bool, True = blocked, or float 0/−inf),
    key_padding_mask=, causal=True; batch= picks one sequence (needed when x
    holds several).
    A GPT-2 block (module or state dict, heads= for a state dict): x is its
    input hidden states (n, d); causal (default True), activation=
    ("gelu_tanh", GPT-2's), unembed= (V, d) as an embedding stores it, or
    (W_U, b_U) as x @ W_U + b_U, final_norm= (a LayerNorm or (γ, β, ε)),
    vocab= the words. BERT (BertAttention, BertLayer, BertEncoder: x is the
    hidden states; BertModel: x is the token ids, token_type_ids= as given
    to it): attention_mask= as its tokenizer gives it (1 a token, 0
    padding). A GPT-2-style model: x is the token ids; vocab= the
    words (default "#0", "#1", ...); ablate={layer: heads} switches heads
    off (layers and heads from 1).
    stages: the stage ids to show (a sensible list by default).
    """
    import torch

    if isinstance(module, torch.nn.MultiheadAttention):
        _keywords(_multihead, kw)
        return _multihead(module, x, tokens, key_tokens, title, stages, **kw)
    if isinstance(module, torch.nn.TransformerEncoderLayer):
        _keywords(_encoder_layer, kw)
        return _encoder_layer(module, x, tokens, title, stages, **kw)
    if all(hasattr(module, a) for a in ("query", "key", "value", "num_attention_heads")):
        _keywords(_bert_self, kw)
        return _bert_self(module, x, tokens, title, stages, **kw)
    bert = _bert_kind(module)
    if bert:
        _keywords(_bert, kw)
        return _bert(module, bert, x, tokens, title, stages, **kw)
    if isinstance(module, dict) or all(hasattr(module, a) for a in ("ln_1", "attn", "ln_2", "mlp")):
        _keywords(_block_lesson, kw)
        return _block_lesson(module, x, tokens, title, stages, **kw)
    inner = getattr(module, "transformer", module)
    if all(hasattr(inner, a) for a in ("wte", "wpe", "h", "ln_f")):
        _keywords(_model, kw)
        return _model(module, inner, x, tokens, title, stages, **kw)
    raise TypeError("attnlab.from_torch: expected nn.MultiheadAttention, nn.TransformerEncoderLayer, a BERT module "
                    "(BertSelfAttention, BertAttention, BertLayer, BertEncoder, BertModel), a GPT-2 block (ln_1, attn, ln_2, mlp) or its state dict, or a GPT-2-style "
                    "model (wte, wpe, h, ln_f); found %s" % type(module).__name__)


def _bert_kind(module):
    """What part of a Hugging Face BERT module is (by its attributes, as
    BertModel names them): "attention" (BertAttention: self and output),
    "layer" (BertLayer), "encoder" (BertEncoder: .layer), "model"
    (BertModel: embeddings and encoder, or a head model's .bert), or None."""
    if hasattr(module, "bert") and hasattr(module.bert, "embeddings"):
        return "model"
    if hasattr(module, "embeddings") and hasattr(module, "encoder") and hasattr(module.encoder, "layer"):
        return "model"
    layers = getattr(module, "layer", None)
    if layers is not None and hasattr(layers, "__len__") and len(layers) and _bert_kind(layers[0]) == "layer":
        return "encoder"
    if hasattr(module, "attention") and hasattr(module.attention, "self") and hasattr(module, "intermediate"):
        return "layer"
    if hasattr(module, "self") and hasattr(module, "output") and hasattr(module.output, "LayerNorm"):
        return "attention"
    return None


def _keywords(reader, kw):
    """Refuse a keyword that neither from_torch's reader of this kind of
    module nor Lesson takes, naming from_torch() and the closest name."""
    accepted = _args.names(from_torch, ("module", "x", "tokens"))
    for fn in (reader, Lesson.__init__):
        accepted += [n for n in _args.names(fn, _FILLED) if n not in accepted]
    _args.refuse_unknown("from_torch()", kw, accepted)


# ------------------------------------------------------------ MultiheadAttention

def _one(t, batch, batch_first, name):
    """One sequence of a (maybe batched) input, as (L, E) doubles."""
    a = as_array(t, name)
    if a.ndim == 3:
        a = a[batch_index(batch, a.shape[0], name)] if batch_first else a[:, batch_index(batch, a.shape[1], name)]
    if a.ndim != 2:
        raise ValueError("attnlab.from_torch: %s has shape %s; expected (L, E) or a batch of them" % (name, a.shape))
    return a


def _blocked(attn_mask, key_padding_mask, causal, L, S, H, batch):
    """Where the mask blocks (L, S booleans), from PyTorch's masks: a bool
    mask blocks where True, a float one where it is −∞ (an additive mask
    with other values is not a mask attnlab draws)."""
    blocked = np.zeros((L, S), dtype=bool)

    def as_blocked(m, what):
        a = m.detach().cpu().numpy() if hasattr(m, "detach") else np.asarray(m)
        if a.dtype == bool:
            return a
        a = a.astype(np.float64)
        if not np.all((a == 0) | np.isneginf(a)):
            raise ValueError("attnlab.from_torch: %s adds numbers other than 0 and -inf to the scores; attnlab draws "
                             "masks (0 or -inf, or booleans), not additive biases" % what)
        return np.isneginf(a)

    if attn_mask is not None:
        m = as_blocked(attn_mask, "attn_mask")
        if m.ndim == 3:                         # (N·H, L, S): every head of the sequence alike
            heads = m[batch * H:(batch + 1) * H]
            if not all(np.array_equal(heads[0], h) for h in heads):
                raise ValueError("attnlab.from_torch: attn_mask differs between heads; attnlab has one mask a setup")
            m = heads[0]
        blocked |= m
    if key_padding_mask is not None:
        pad = as_blocked(key_padding_mask, "key_padding_mask")
        blocked |= (pad[batch] if pad.ndim == 2 else pad)[None, :]
    if causal:
        blocked |= np.triu(np.ones((L, S), dtype=bool), 1)
    return blocked


def _multihead(mha, x, tokens, key_tokens, title, stages, *, key=None, value=None, attn_mask=None,
               key_padding_mask=None, causal=False, batch=None, **options):
    """nn.MultiheadAttention as a lesson."""
    if mha.bias_k is not None or mha.add_zero_attn:
        raise ValueError("attnlab.from_torch: add_bias_kv and add_zero_attn add a key that no token has; "
                         "attnlab draws one key per token")
    E, H = mha.embed_dim, mha.num_heads
    bf = mha.batch_first
    if np.ndim(x) == 3:                         # the masks pick the same sequence, by its index from 0
        batch = batch_index(batch, np.shape(x)[0 if bf else 1], "x")
    batch = 0 if batch is None else batch
    q = _one(x, batch, bf, "x")
    cross = key is not None
    k = _one(key, batch, bf, "key") if cross else q
    v = _one(value, batch, bf, "value") if value is not None else k
    if mha._qkv_same_embed_dim:
        W = as_array(mha.in_proj_weight, "in_proj_weight")
        Wq, Wk, Wv = W[:E].T, W[E:2 * E].T, W[2 * E:].T
    else:
        Wq, Wk, Wv = (as_array(getattr(mha, n), n).T for n in ("q_proj_weight", "k_proj_weight", "v_proj_weight"))
    b = as_array(mha.in_proj_bias, "in_proj_bias") if mha.in_proj_bias is not None else None
    bq, bk, bv = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
    Wo = as_array(mha.out_proj.weight, "out_proj.weight").T
    bo = as_array(mha.out_proj.bias, "out_proj.bias") if mha.out_proj.bias is not None else None
    L, S = q.shape[0], k.shape[0]
    blocked = _blocked(attn_mask, key_padding_mask, causal, L, S, H, batch)
    if not blocked.any():
        mask = None
    elif not cross and np.array_equal(blocked, np.triu(np.ones((L, L), dtype=bool), 1)):
        mask = "causal"
    else:
        mask = ~blocked
    les = Lesson(title or "nn.MultiheadAttention: %d head%s" % (H, "" if H == 1 else "s"), **options)
    separate_v = value is not None and value is not key
    les.setup(None if cross else tokens, q, query_tokens=tokens if cross else None, key_tokens=key_tokens,
              Y=k if cross else None, W_q=Wq, W_k=Wk, W_v=Wv, b_q=bq, b_k=bk, b_v=bv, W_o=Wo, b_o=bo, heads=H,
              mask=mask, values="Z @ W_v" + (" + b_v" if bv is not None else "") if separate_v else None,
              matrices={"Z": v} if separate_v else None)
    for s in stages or ["qkv_projection", "multi_head" if H > 1 else "softmax", "weighted_sum"]:
        les.stage(s)
    return les.check()


def _encoder_layer(layer, x, tokens, title, stages, *, src_mask=None, src_key_padding_mask=None, causal=False,
                   batch=None, **options):
    """nn.TransformerEncoderLayer as a block: with norm_first=True, x +
    attention(norm1(x)), then + the feed-forward of norm2 (GPT-2's order);
    with the default norm_first=False, norm1(x + attention(x)), then
    norm2(that + its feed-forward) (`norm_order: post`, BERT's order)."""
    mha = layer.self_attn
    bf = mha.batch_first
    if np.ndim(x) == 3:
        batch = batch_index(batch, np.shape(x)[0 if bf else 1], "x")
    batch = 0 if batch is None else batch
    a = _one(x, batch, bf, "x")
    E, H, L = mha.embed_dim, mha.num_heads, a.shape[0]
    W = as_array(mha.in_proj_weight)
    b = as_array(mha.in_proj_bias) if mha.in_proj_bias is not None else None
    act = layer.activation
    name = act.__name__ if callable(act) and hasattr(act, "__name__") else type(act).__name__
    act = {"relu": "relu", "ReLU": "relu", "gelu": "gelu", "GELU": "gelu"}.get(name)
    if act is None:
        raise ValueError("attnlab.from_torch: the feed-forward's activation %s is not one attnlab computes (relu, gelu)"
                         % name)
    blocked = _blocked(src_mask, src_key_padding_mask, causal, L, L, H, batch)
    mask = None if not blocked.any() else "causal" if np.array_equal(blocked, np.triu(np.ones((L, L), dtype=bool), 1)) \
        else ~blocked
    les = Lesson(title or "nn.TransformerEncoderLayer: %d head%s" % (H, "" if H == 1 else "s"), **options)
    w1, w2 = _conv_or_linear(layer.linear1, "linear1"), _conv_or_linear(layer.linear2, "linear2")
    les.setup(tokens, a, W_q=W[:E].T, W_k=W[E:2 * E].T, W_v=W[2 * E:].T,
              b_q=None if b is None else b[:E], b_k=None if b is None else b[E:2 * E], b_v=None if b is None else b[2 * E:],
              W_o=as_array(mha.out_proj.weight).T, b_o=as_array(mha.out_proj.bias) if mha.out_proj.bias is not None else None,
              heads=H, mask=mask, layer_norm=_norm_of(layer.norm1, "norm1"), mlp_norm=_norm_of(layer.norm2, "norm2"),
              mlp=(w1[0], w1[1], act, w2[0], w2[1]), norm_order="pre" if layer.norm_first else "post")
    heads = "multi_head" if H > 1 else "softmax"
    for s in stages or (["layer_norm", heads, "mlp"] if layer.norm_first else [heads, "layer_norm", "mlp"]):
        les.stage(s)
    return les.check()


def _bert_self(att, x, tokens, title, stages, *, attention_mask=None, batch=None, **options):
    """A BertSelfAttention (Hugging Face's names: query, key, value as
    nn.Linear, num_attention_heads): its heads over x, the layer's input
    hidden states, with attention_mask (1 = a token, 0 = padding) as BERT
    gives it; no causal mask."""
    a = as_array(x, "x")
    if a.ndim == 3:
        batch = batch_index(batch, a.shape[0], "x")
        a = a[batch]
    if a.ndim != 2:
        raise ValueError("attnlab.from_torch: x has shape %s; expected (tokens, hidden) or a batch of them" % (a.shape,))
    H, n = int(att.num_attention_heads), a.shape[0]
    (wq, bq), (wk, bk), (wv, bv) = (_conv_or_linear(getattr(att, n), n) for n in ("query", "key", "value"))
    mask = _padding(attention_mask, batch, n)
    les = Lesson(title or "BertSelfAttention: %d head%s" % (H, "" if H == 1 else "s"), **options)
    les.setup(tokens, a, W_q=wq, W_k=wk, W_v=wv, b_q=bq, b_k=bk, b_v=bv, heads=H, mask=mask)
    for s in stages or ["qkv_projection", "multi_head" if H > 1 else "softmax", "weighted_sum"]:
        les.stage(s)
    return les.check()


# ------------------------------------------------------------- every head

# The most weights a model_view stage's grid holds (stage_grid.c), and its most rows or columns.
_GRID_CELLS, _GRID_SIDE = 1 << 24, 16384


def _grid_fits(layers, heads, n):
    """Whether every head of layers setups over n tokens fits one grid:
    from_torch adds a model_view stage to a model of several layers when
    it does."""
    return layers > 1 and layers * n <= _GRID_SIDE and heads * n <= _GRID_SIDE and layers * heads * n * n <= _GRID_CELLS


# ------------------------------------------------------------------- BERT

def _bert_parts(layer, prefix, activation=None):
    """A BertLayer's (or BertAttention's) weights as Lesson.setup's
    keywords: its self-attention, the output dense and LayerNorm after the
    residual add, the intermediate and output dense with their LayerNorm,
    in the post-norm order; prefix ("encoder.layer.3.") names its tensors."""
    attn = layer.attention if hasattr(layer, "attention") else layer
    att, out = attn.self, attn.output
    pre = prefix + ("attention." if hasattr(layer, "attention") else "")
    if getattr(att, "position_embedding_type", "absolute") != "absolute":
        raise ValueError("attnlab.from_torch: %sself uses %s position embeddings inside attention, which attnlab does "
                         "not compute; it reads BERT's absolute ones" % (pre, att.position_embedding_type))
    (wq, bq), (wk, bk), (wv, bv) = (_conv_or_linear(getattr(att, n), pre + "self." + n) for n in ("query", "key", "value"))
    wo, bo = _conv_or_linear(out.dense, pre + "output.dense")
    parts = {"W_q": wq, "W_k": wk, "W_v": wv, "b_q": bq, "b_k": bk, "b_v": bv, "W_o": wo, "b_o": bo,
             "heads": int(att.num_attention_heads), "norm_order": "post",
             "layer_norm": _norm_of(out.LayerNorm, pre + "output.LayerNorm")}
    if hasattr(layer, "intermediate"):
        w1, b1 = _conv_or_linear(layer.intermediate.dense, prefix + "intermediate.dense")
        w2, b2 = _conv_or_linear(layer.output.dense, prefix + "output.dense")
        act = _activation(getattr(layer.intermediate, "intermediate_act_fn", None), activation)
        parts.update(mlp=(w1, b1, act, w2, b2), mlp_norm=_norm_of(layer.output.LayerNorm, prefix + "output.LayerNorm"))
    return parts


def _padding(attention_mask, batch, n):
    """The mask of BERT's attention_mask (1 a token, 0 padding) for n
    tokens: None when nothing is padding, else (n, n), 1 where a query may
    attend (every query to every token that is not padding, as BERT's
    extended mask does)."""
    if attention_mask is None:
        return None
    m = as_array(attention_mask, "attention_mask")
    if m.ndim == 2:
        m = m[batch_index(batch, m.shape[0], "attention_mask")]
    if m.shape != (n,) or not np.all((m == 0) | (m == 1)):
        raise ValueError("attnlab.from_torch: attention_mask has shape %s or values other than 0 and 1; expected "
                         "one 0 (padding) or 1 (a token) per token, (%d,), as BERT's tokenizer gives it" % (m.shape, n))
    return None if m.all() else np.repeat((m != 0)[None, :], n, axis=0)


def _bert(module, kind, x, tokens, title, stages, *, attention_mask=None, token_type_ids=None, batch=None,
          activation=None, **options):
    """A Hugging Face BERT module, in BERT's post-norm order: a BertAttention
    or BertLayer over x (its input hidden states), a BertEncoder's layers
    chained, or a BertModel (x the token ids; its embeddings, computed by
    torch, are the first layer's input) with attention_mask as its
    tokenizer gives it."""
    import torch

    if kind == "model":
        bert = module.bert if hasattr(module, "bert") else module
        ids = torch.as_tensor(np.asarray(x) if not hasattr(x, "detach") else x)
        if ids.ndim == 2:
            ids = ids[batch_index(batch, ids.shape[0], "x")]
        ids = ids.reshape(-1).long()
        tt = None
        if token_type_ids is not None:
            tt = torch.as_tensor(np.asarray(token_type_ids) if not hasattr(token_type_ids, "detach") else token_type_ids)
            tt = (tt[batch_index(batch, tt.shape[0], "token_type_ids")] if tt.ndim == 2 else tt).reshape(1, -1).long()
        with torch.no_grad():
            a = as_array(bert.embeddings(input_ids=ids.reshape(1, -1), token_type_ids=tt)[0], "embeddings")
        layers, prefix = list(bert.encoder.layer), "encoder.layer.%d."
    else:
        a = as_array(x, "x")
        if a.ndim == 3:
            a = a[batch_index(batch, a.shape[0], "x")]
        if a.ndim != 2:
            raise ValueError("attnlab.from_torch: x has shape %s; expected (tokens, hidden) or a batch of them"
                             % (a.shape,))
        layers, prefix = (list(module.layer), "layer.%d.") if kind == "encoder" else ([module], "")
    if not layers:
        raise ValueError("attnlab.from_torch: this %s has no layers" % type(module).__name__)
    mask = _padding(attention_mask, batch, a.shape[0])
    names = {"attention": "BertAttention", "layer": "BertLayer", "encoder": "BertEncoder", "model": "BertModel"}
    les = Lesson(title or "%s: %d layer%s" % (names[kind], len(layers), "" if len(layers) == 1 else "s"), **options)
    for i, layer in enumerate(layers):
        parts = _bert_parts(layer, prefix % i if "%d" in prefix else prefix, activation)
        les.setup(tokens if i == 0 else None, a if i == 0 else None, title="Layer %d" % (i + 1) if len(layers) > 1 else None,
                  mask=mask if i == 0 else None, residual=True if i > 0 else None, **parts)
        H = parts["heads"]
        default = ["multi_head" if H > 1 else "softmax", "layer_norm"] + (["mlp"] if "mlp" in parts else [])
        for s in stages or default:
            les.stage(s)
    if not stages and _grid_fits(len(layers), H, a.shape[0]):
        les.stage("model_view")
    return les.check()


# ------------------------------------------------------------------- GPT-2

def _conv_or_linear(layer, name):
    """(W, b) of a Conv1D (weight (in, out): x @ W + b) or an nn.Linear
    (weight (out, in): x @ W.T + b), as x @ W + b; name is the layer's
    (attn.c_attn), for messages."""
    w = as_array(layer.weight, name + ".weight")
    conv = hasattr(layer, "nf") or type(layer).__name__ == "Conv1D"
    b = as_array(layer.bias, name + ".bias") if getattr(layer, "bias", None) is not None else None
    return (w if conv else w.T), b


def _activation(act, given):
    """The MLP's activation as the format names it."""
    if given:
        return given
    name = type(act).__name__
    if name in ("NewGELUActivation", "GELUTanh", "PytorchGELUTanh") or getattr(act, "approximate", "none") == "tanh":
        return "gelu_tanh"
    if name in ("GELU", "GELUActivation"):
        return "gelu"
    if name == "ReLU":
        return "relu"
    raise ValueError("attnlab.from_torch: the MLP's activation %s is not one attnlab computes (relu, gelu, gelu_tanh); "
                     "say which with activation=" % name)


def _norm_of(ln, name="a layer norm"):
    """(γ, β, ε) of a LayerNorm module, or of a (γ, β[, ε]) tuple."""
    if isinstance(ln, (tuple, list)):
        return (as_array(ln[0], name), as_array(ln[1], name)) + ((float(ln[2]),) if len(ln) > 2 else ())
    return as_array(ln.weight, name + ".weight"), as_array(ln.bias, name + ".bias"), float(ln.eps)


def _block_keys(state_dict):
    """A block's state dict with the names a GPT-2 block gives its weights
    (ln_1.weight, attn.c_attn.weight, ...), whatever prefix they had (h.0.)."""
    out = {}
    for k, v in state_dict.items():
        for part in ("ln_1.", "attn.", "ln_2.", "mlp."):
            at = k.find(part)
            if at == 0 or (at > 0 and k[at - 1] == "."):
                out[k[at:]] = v
                break
    return out


def _block_parts(block, heads=None, activation=None, conv1d=True, prefix=""):
    """The weights of a GPT-2 block as Lesson.setup's keywords; prefix
    ("h.3.") names its tensors in messages."""
    if isinstance(block, dict):                 # a state dict, with or without a prefix such as "h.0."
        sd = _block_keys(block)
        if heads is None:
            raise ValueError("attnlab.from_torch: a state dict does not say how many heads; give heads=")

        def lin(name):
            w = as_array(sd[name + ".weight"], name + ".weight")
            b = as_array(sd[name + ".bias"], name + ".bias") if name + ".bias" in sd else None
            return (w if conv1d else w.T), b
        ln1 = (as_array(sd["ln_1.weight"]), as_array(sd["ln_1.bias"]), 1e-5)
        ln2 = (as_array(sd["ln_2.weight"]), as_array(sd["ln_2.bias"]), 1e-5)
        act = activation or "gelu_tanh"
        c_attn, c_proj, c_fc, m_proj = lin("attn.c_attn"), lin("attn.c_proj"), lin("mlp.c_fc"), lin("mlp.c_proj")
    else:
        attn = block.attn
        heads = heads or getattr(attn, "num_heads", None) or getattr(attn, "n_head", None)
        if heads is None:
            raise ValueError("attnlab.from_torch: the block's attention does not say how many heads; give heads=")
        if getattr(attn, "scale_attn_by_inverse_layer_idx", False) or getattr(attn, "scale_attn_weights", True) is False:
            raise ValueError("attnlab.from_torch: this block scales its scores otherwise than by the square root of "
                             "the head width")
        ln1, ln2 = _norm_of(block.ln_1, prefix + "ln_1"), _norm_of(block.ln_2, prefix + "ln_2")
        act = _activation(getattr(block.mlp, "act", None), activation)
        c_attn = _conv_or_linear(attn.c_attn, prefix + "attn.c_attn")
        c_proj = _conv_or_linear(attn.c_proj, prefix + "attn.c_proj")
        c_fc = _conv_or_linear(block.mlp.c_fc, prefix + "mlp.c_fc")
        m_proj = _conv_or_linear(block.mlp.c_proj, prefix + "mlp.c_proj")
    W, b = c_attn
    d = W.shape[0]
    parts = {"W_q": W[:, :d], "W_k": W[:, d:2 * d], "W_v": W[:, 2 * d:], "heads": int(heads),
             "W_o": c_proj[0], "b_o": c_proj[1], "layer_norm": ln1, "mlp_norm": ln2,
             "mlp": (c_fc[0], c_fc[1], act, m_proj[0], m_proj[1])}
    if b is not None:
        parts.update(b_q=b[:d], b_k=b[d:2 * d], b_v=b[2 * d:])
    return parts


def _unembedding(unembed, final_norm, vocab):
    """The keywords of the unembedding: W_U from (V, d) as an embedding or
    lm_head stores it, or (W_U, b_U) as x @ W_U + b_U; the words."""
    if isinstance(unembed, (tuple, list)):
        u = (as_array(unembed[0]), None if unembed[1] is None else as_array(unembed[1]))
    else:
        u = as_array(unembed).T
    V = u[0].shape[1] if isinstance(u, tuple) else u.shape[1]
    words = [str(w) for w in vocab] if vocab is not None else ["#%d" % i for i in range(V)]
    out = {"unembed": u, "vocab": words}
    if final_norm is not None:
        out["final_norm"] = _norm_of(final_norm)
    return out


def _block_lesson(block, x, tokens, title, stages, *, heads=None, activation=None, causal=True, unembed=None,
                  final_norm=None, vocab=None, conv1d=True, ablate=None, top=None, batch=None, **options):
    """One GPT-2 block (and the next token, with unembed) as a lesson."""
    parts = _block_parts(block, heads, activation, conv1d)
    a = as_array(x, "x")
    if a.ndim == 3:
        a = a[batch_index(batch, a.shape[0], "x")]
    if unembed is not None:
        parts.update(_unembedding(unembed, final_norm, vocab))
    les = Lesson(title or "A GPT-2 block", **options)
    les.setup(tokens, a, mask="causal" if causal else None, ablate=ablate, **parts)
    for s in stages or (["layer_norm", "multi_head", "mlp"] + (["next_token"] if unembed is not None else [])):
        les.stage(s, top=top if s == "next_token" else None)
    return les.check()


def _model(model, inner, ids, tokens, title, stages, *, vocab=None, activation=None, ablate=None, top=None, **options):
    """A GPT-2-style model: its embeddings computed by torch (the input X),
    every block a setup continuing the stream, and the next token."""
    import torch

    ids = torch.as_tensor(ids).reshape(-1)
    n = ids.shape[0]
    with torch.no_grad():
        x = inner.wte(ids) + inner.wpe(torch.arange(n))
    head = getattr(model, "lm_head", None)
    W = head.weight if head is not None else inner.wte.weight
    les = Lesson(title or "A GPT-2-style model, %d block%s" % (len(inner.h), "" if len(inner.h) == 1 else "s"),
                 **options)
    blocks = list(inner.h)
    ablate = ablate or {}
    for layer in ablate:
        if not isinstance(layer, int) or not 1 <= layer <= len(blocks):
            raise IndexError("attnlab.from_torch: ablate names block %r, but blocks count from 1 and the model has "
                             "%d block%s" % (layer, len(blocks), "" if len(blocks) == 1 else "s"))
    for i, block in enumerate(blocks):
        parts = _block_parts(block, None, activation, prefix="h.%d." % i)
        last = i == len(blocks) - 1
        if last:
            bias = getattr(head, "bias", None) if head is not None else None
            parts.update(_unembedding(W if bias is None else (as_array(W).T, bias), inner.ln_f, vocab))
        les.setup(tokens if i == 0 else None, x if i == 0 else None, title="Block %d" % (i + 1),
                  mask="causal" if i == 0 else None, residual=True if i > 0 else None, ablate=ablate.get(i + 1),
                  **parts)
        for s in stages or ["multi_head", "mlp", "next_token"]:
            if s != "next_token" or last:       # the next token comes after the last block only
                les.stage(s, top=top if s == "next_token" else None)
    if not stages and _grid_fits(len(blocks), parts["heads"], n):
        les.stage("model_view")
    return les.check()
