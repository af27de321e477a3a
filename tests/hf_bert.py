"""hf_bert.py: Hugging Face's BERT modules, written out for the tests.

The classes carry the names and the arithmetic of transformers'
modeling_bert.py (eager attention, eval mode, absolute positions), so that
attnlab.from_torch meets them as it would meet the real ones and the tests
can compare its numbers with their forward pass: BertEmbeddings (word +
position + token type, then LayerNorm), BertSelfAttention, BertSelfOutput
(dense, then LayerNorm of it plus the input), BertAttention,
BertIntermediate (dense, GELU with erf), BertOutput, BertLayer,
BertEncoder and BertModel (its extended padding mask: the float32
minimum where a key is padding). Every module also keeps what the tests
compare: the weights of each head and each layer's output.
"""

import math
from types import SimpleNamespace

import torch
from torch import nn


def config(hidden=768, heads=12, intermediate=3072, layers=12, vocab=400, positions=512, eps=1e-12):
    """A BertConfig's fields that the modules read (BERT-base's by default)."""
    return SimpleNamespace(hidden_size=hidden, num_attention_heads=heads, intermediate_size=intermediate,
                           num_hidden_layers=layers, vocab_size=vocab, max_position_embeddings=positions,
                           type_vocab_size=2, layer_norm_eps=eps)


class BertEmbeddings(nn.Module):
    """Word, position and token-type embeddings summed, then LayerNorm."""

    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(0.1)

    def forward(self, input_ids=None, token_type_ids=None):
        n = input_ids.shape[1]
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids) \
            + self.position_embeddings(torch.arange(n)[None])
        return self.dropout(self.LayerNorm(e))


class BertSelfAttention(nn.Module):
    """query, key, value as nn.Linear; scores ÷ √head size plus the mask."""

    def __init__(self, c):
        super().__init__()
        self.num_attention_heads = c.num_attention_heads
        self.attention_head_size = c.hidden_size // c.num_attention_heads
        self.all_head_size = c.hidden_size
        self.query, self.key, self.value = (nn.Linear(c.hidden_size, c.hidden_size) for _ in range(3))
        self.position_embedding_type = "absolute"

    def forward(self, hidden, extended_mask=None):
        b, n, _ = hidden.shape

        def heads(t):
            return t.view(b, n, self.num_attention_heads, self.attention_head_size).transpose(1, 2)
        q, k, v = heads(self.query(hidden)), heads(self.key(hidden)), heads(self.value(hidden))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.attention_head_size)
        if extended_mask is not None:
            scores = scores + extended_mask
        self.probs = torch.softmax(scores, dim=-1)
        return (self.probs @ v).transpose(1, 2).reshape(b, n, self.all_head_size)


class BertSelfOutput(nn.Module):
    """dense (from n_in, the hidden size unless given), then LayerNorm(dense
    + the sublayer's input)."""

    def __init__(self, c, n_in=None):
        super().__init__()
        self.dense = nn.Linear(n_in or c.hidden_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden, inputs):
        return self.LayerNorm(self.dropout(self.dense(hidden)) + inputs)


class BertAttention(nn.Module):
    """self, then output."""

    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertSelfOutput(c)

    def forward(self, hidden, extended_mask=None):
        return self.output(self.self(hidden, extended_mask), hidden)


class BertIntermediate(nn.Module):
    """dense to the intermediate size, then GELU (erf)."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)
        self.intermediate_act_fn = nn.GELU()

    def forward(self, hidden):
        return self.intermediate_act_fn(self.dense(hidden))


class BertOutput(BertSelfOutput):
    """The same after the MLP: dense back from the intermediate size."""

    def __init__(self, c):
        super().__init__(c, c.intermediate_size)


class BertLayer(nn.Module):
    """attention, intermediate, output: two post-norm residual adds."""

    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertOutput(c)

    def forward(self, hidden, extended_mask=None):
        a = self.attention(hidden, extended_mask)
        self.attention_out = a
        self.out = self.output(self.intermediate(a), a)
        return self.out


class BertEncoder(nn.Module):
    """The layers, one after another."""

    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(BertLayer(c) for _ in range(c.num_hidden_layers))

    def forward(self, hidden, extended_mask=None):
        self.hidden_states = [hidden]
        for layer in self.layer:
            hidden = layer(hidden, extended_mask)
            self.hidden_states.append(hidden)
        return hidden


class BertModel(nn.Module):
    """Embeddings and encoder (no pooler: nothing here reads it)."""

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.embeddings = BertEmbeddings(c)
        self.encoder = BertEncoder(c)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        extended = None
        if attention_mask is not None:
            extended = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        return self.encoder(self.embeddings(input_ids, token_type_ids), extended)


def seeded(module, seed):
    """module with every parameter drawn again from seed (LayerNorm's γ near
    1 and β near 0, as trained ones are), in eval mode."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if "LayerNorm.weight" in name:
                p.copy_(1 + 0.1 * torch.randn(p.shape, generator=g))
            elif "LayerNorm.bias" in name or name.endswith(".bias"):
                p.copy_(0.02 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.05 * torch.randn(p.shape, generator=g))
    return module.eval()
