"""hf_gpt2.py: Hugging Face's GPT-2 modules, written out for the tests.

The classes carry the names and the arithmetic of transformers'
modeling_gpt2.py (eager attention, eval mode): Conv1D with its (in, out)
weight, GPT2Attention (c_attn packing Q, K and V, the causal mask filled
with the dtype's minimum, c_proj), GPT2MLP (c_fc, GELU with tanh, c_proj),
GPT2Block (ln_1 and ln_2 before attention and the MLP), GPT2Model (wte,
wpe, h, ln_f) and GPT2LMHeadModel (transformer, lm_head tied to wte), so
that attnlab.from_torch meets them as it would meet the real ones. Every
module keeps what the tests compare: each head's weights, the stream after
attention and each block's output.
"""

import math
from types import SimpleNamespace

import torch
from torch import nn


def config(n_embd=768, n_head=12, n_layer=12, vocab_size=50257, n_positions=1024):
    """A GPT2Config's fields that the modules read (GPT-2 small's by default)."""
    return SimpleNamespace(n_embd=n_embd, n_head=n_head, n_layer=n_layer, vocab_size=vocab_size,
                           n_positions=n_positions, n_inner=4 * n_embd, layer_norm_epsilon=1e-5)


class Conv1D(nn.Module):
    """A linear layer whose weight is (in, out): x @ W + b."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.empty(nf))
        nn.init.normal_(self.weight, std=0.02)
        nn.init.normal_(self.bias, std=0.02)

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(x.shape[:-1] + (self.nf,))


class NewGELUActivation(nn.Module):
    """GPT-2's GELU, with tanh."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    """c_attn, the causal softmax of Q·Kᵀ ÷ √head size, c_proj."""

    def __init__(self, c):
        super().__init__()
        self.num_heads, self.head_dim, self.embed_dim = c.n_head, c.n_embd // c.n_head, c.n_embd
        self.c_attn, self.c_proj = Conv1D(3 * c.n_embd, c.n_embd), Conv1D(c.n_embd, c.n_embd)

    def forward(self, x):
        n, d, h = x.shape[0], self.embed_dim, self.num_heads
        q, k, v = self.c_attn(x).split(d, dim=1)
        q, k, v = (t.reshape(n, h, d // h).transpose(0, 1) for t in (q, k, v))
        s = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), torch.finfo(s.dtype).min)
        self.weights = torch.softmax(s, dim=-1)
        return self.c_proj((self.weights @ v).transpose(0, 1).reshape(n, d))


class GPT2MLP(nn.Module):
    """c_fc, GELU, c_proj."""

    def __init__(self, c):
        super().__init__()
        self.c_fc, self.c_proj, self.act = Conv1D(c.n_inner, c.n_embd), Conv1D(c.n_embd, c.n_inner), NewGELUActivation()

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class GPT2Block(nn.Module):
    """x + attention(ln_1(x)), then + the MLP of ln_2 of that."""

    def __init__(self, c):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon), GPT2Attention(c)
        self.ln_2, self.mlp = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon), GPT2MLP(c)
        for ln in (self.ln_1, self.ln_2):
            nn.init.normal_(ln.weight, 1.0, 0.1)
            nn.init.normal_(ln.bias, 0.0, 0.1)

    def forward(self, x):
        self.mid = x + self.attn(self.ln_1(x))
        self.out = self.mid + self.mlp(self.ln_2(self.mid))
        return self.out


class GPT2Model(nn.Module):
    """wte and wpe, the blocks, ln_f."""

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.wte, self.wpe = nn.Embedding(c.vocab_size, c.n_embd), nn.Embedding(c.n_positions, c.n_embd)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)
        self.h = nn.ModuleList(GPT2Block(c) for _ in range(c.n_layer))
        self.ln_f = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[0]))
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


class GPT2LMHeadModel(nn.Module):
    """GPT2Model under .transformer, lm_head tied to wte."""

    def __init__(self, c):
        super().__init__()
        self.transformer = GPT2Model(c)
        self.lm_head = nn.Linear(c.n_embd, c.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight

    def forward(self, ids):
        return self.lm_head(self.transformer(ids))
