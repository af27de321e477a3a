#!/usr/bin/python3
"""train_induction.py: train the small attention-only transformer bundled as
lessons/models/induction.npz, and write the reference forward pass for its
lesson sequence to tests/reference/induction_forward.npz.

    nice /usr/bin/python3 lessons/models/train_induction.py      (from the repository root)

Needs Debian's python3-torch and python3-numpy. CPU only, one thread, fixed
seeds and deterministic algorithms: the same torch build writes the same
files, byte for byte. It takes a few minutes. docs/trained-model.md says
what the files hold and why the model looks the way it does.

The model: token and learned positional embeddings, two attention-only
layers (causal, no MLP, no layer norm, no biases), unembedding. Each layer
adds concat_h(softmax(Q_h K_hᵀ/√d_head) V_h) · W_o to the residual stream,
which is exactly what an attnlab setup with `heads:`, `mask: causal` and
`output: W_o` computes.

The data: a few random tokens, then a run of distinct random tokens, then the
same run again. The loss is on the tokens of the second run that can be
predicted from the first (all but its first). The run's length and start
vary, so copying "the token k places back" by position does not work: the
model has to find the earlier occurrence of the current token and copy what
followed it, which is what an induction head does.
"""
import os
import sys

import numpy as np
import torch

VOCAB = ["apple", "river", "stone", "cloud", "tiger", "piano", "lemon", "ocean",
         "chair", "grass", "robot", "honey", "train", "mouse", "paper", "light",
         "snake", "bread", "queen", "wheel", "storm", "glass", "candy", "zebra",
         "violin", "forest", "rocket", "pepper", "candle", "island", "dragon", "button"]
V = len(VOCAB)
CTX = 24            # positions the model knows
D = 32              # d_model
H = 4               # heads per layer
DH = 8              # d_head
LAYERS = 2
STEPS = 6000
BATCH = 64
SEED = 1234

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "lessons", "models", "induction.npz")
REFERENCE = os.path.join(ROOT, "tests", "reference", "induction_forward.npz")


def forward(p, tok):
    """Logits, and every residual stream and attention pattern, for a batch
    of token ids (b, n). p holds the parameters (torch tensors)."""
    b, n = tok.shape
    x = p["W_E"][tok] + p["W_pos"][:n]
    resid, pats = [x], []
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    for l in range(LAYERS):
        q = torch.einsum("bnd,hde->bhne", x, p["W_q"][l])
        k = torch.einsum("bnd,hde->bhne", x, p["W_k"][l])
        v = torch.einsum("bnd,hde->bhne", x, p["W_v"][l])
        s = q @ k.transpose(-1, -2) / DH ** 0.5
        s = s.masked_fill(~causal, float("-inf"))
        w = torch.softmax(s, dim=-1)
        z = (w @ v).transpose(1, 2).reshape(b, n, H * DH)   # heads side by side
        x = x + z @ p["W_o"][l]
        resid.append(x)
        pats.append(w)
    return x @ p["W_U"], resid, pats


def batch(gen, size):
    """Token ids (size, CTX), and for each row the start of the first run and
    its length."""
    toks = torch.empty(size, CTX, dtype=torch.long)
    starts, lens = [], []
    for i in range(size):
        L = int(torch.randint(4, 11, (1,), generator=gen))
        pre = int(torch.randint(0, CTX - 2 * L + 1, (1,), generator=gen))
        run = torch.randperm(V, generator=gen)[:L]
        rest = torch.randint(0, V, (CTX,), generator=gen)
        rest[pre:pre + L] = run
        rest[pre + L:pre + 2 * L] = run
        toks[i] = rest
        starts.append(pre)
        lens.append(L)
    return toks, starts, lens


def scores(pats, starts, lens):
    """Per layer and head, averaged over the second run of each row: the
    weight on the previous token, and the weight on the token after the
    earlier occurrence of the query's token."""
    prev = np.zeros((LAYERS, H))
    ind = np.zeros((LAYERS, H))
    count = 0
    for r, (pre, L) in enumerate(zip(starts, lens)):
        for i in range(pre + L, pre + 2 * L):
            for l in range(LAYERS):
                prev[l] += pats[l][r, :, i, i - 1].detach().double().numpy()
                ind[l] += pats[l][r, :, i, i - L + 1].detach().double().numpy()
            count += 1
    return prev / count, ind / count


def main():
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    gen = torch.Generator().manual_seed(SEED)
    init = torch.Generator().manual_seed(SEED + 1)
    shapes = {"W_E": (V, D), "W_pos": (CTX, D), "W_q": (LAYERS, H, D, DH), "W_k": (LAYERS, H, D, DH),
              "W_v": (LAYERS, H, D, DH), "W_o": (LAYERS, H * DH, D), "W_U": (D, V)}
    fan_in = {"W_E": 1, "W_pos": 1, "W_q": D, "W_k": D, "W_v": D, "W_o": H * DH, "W_U": D}
    p = {k: (torch.randn(*s, generator=init) / fan_in[k] ** 0.5 * (0.3 if fan_in[k] == 1 else 1.0)).requires_grad_()
         for k, s in shapes.items()}
    opt = torch.optim.Adam(p.values(), lr=3e-3)
    for step in range(1, STEPS + 1):
        toks, starts, lens = batch(gen, BATCH)
        logits, _, _ = forward(p, toks)
        mask = torch.zeros(BATCH, CTX, dtype=torch.bool)
        for r, (pre, L) in enumerate(zip(starts, lens)):
            mask[r, pre + L:pre + 2 * L - 1] = True      # predicts positions pre+L+1 .. pre+2L-1
        loss = torch.nn.functional.cross_entropy(logits[:, :-1][mask[:, :-1]], toks[:, 1:][mask[:, :-1]])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 500 == 0:
            with torch.no_grad():
                t, st, ln = batch(torch.Generator().manual_seed(99), 256)
                _, _, pats = forward(p, t)
                prev, ind = scores(pats, st, ln)
            print(f"step {step:5d}  loss {loss.item():.4f}  best previous-token (layer 1) {prev[0].max():.3f}"
                  f"  best induction (layer 2) {ind[1].max():.3f}", flush=True)

    W = {k: v.detach().double() for k, v in p.items()}
    with torch.no_grad():
        t, st, ln = batch(torch.Generator().manual_seed(99), 256)
        _, _, pats = forward(W, t)
        prev, ind = scores(pats, st, ln)
    prev_head, ind_head = int(prev[0].argmax()), int(ind[1].argmax())
    print("held-out batch: weight on the previous token, layer 1 heads:", np.round(prev[0], 3))
    print("held-out batch: weight on the token after the earlier occurrence, layer 2 heads:", np.round(ind[1], 3))

    # The lesson's sequence: 4 tokens, then a run of 8 tokens twice, all 12
    # different, so every token of the second run occurs exactly once before.
    g = np.random.RandomState(7)
    pick = g.permutation(V)[:12]
    seq = np.concatenate([pick[8:], pick[:8], pick[:8]]).astype(np.int64)
    logits, resid, pats = forward(W, torch.from_numpy(seq)[None])
    x = [r[0].numpy() for r in resid]
    w = np.stack([pt[0].numpy() for pt in pats])                     # (layers, heads, n, n)
    pre, L = 4, 8
    lp = np.mean([w[0, prev_head, i, i - 1] for i in range(pre + L, pre + 2 * L)])
    li = np.mean([w[1, ind_head, i, i - L + 1] for i in range(pre + L, pre + 2 * L)])
    print("lesson sequence:", " ".join(VOCAB[i] for i in seq))
    print(f"lesson sequence, second run: layer 1 head {prev_head + 1} puts {lp:.3f} on the previous token;"
          f" layer 2 head {ind_head + 1} puts {li:.3f} on the token after the earlier occurrence")

    arrays = {k: v.numpy() for k, v in W.items()}
    np.savez_compressed(MODEL, **arrays, vocab=np.array(VOCAB), sequence=seq,
                        x_layer1=x[0], x_layer2=x[1],
                        previous_token_head=np.int64(prev_head + 1), induction_head=np.int64(ind_head + 1))
    np.savez_compressed(REFERENCE, sequence=seq, tokens=np.array([VOCAB[i] for i in seq]),
                        resid=np.stack(x), weights=w, logits=logits[0].numpy(),
                        previous_token_head=np.int64(prev_head + 1), induction_head=np.int64(ind_head + 1),
                        run_start=np.int64(pre), run_length=np.int64(L))
    print("wrote", os.path.relpath(MODEL, ROOT), os.path.getsize(MODEL), "bytes, and",
          os.path.relpath(REFERENCE, ROOT), os.path.getsize(REFERENCE), "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
