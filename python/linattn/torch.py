"""The testbed's model as a PyTorch function over the C library: any
torch.optim optimizer (SGD, AdamW, Adagrad, LBFGS with a closure, a
third-party one) trains on it, and autograd's double backward gives the
exact Hessian-vector product.

    import torch, linattn, linattn.torch as lt
    run = linattn.Run("1")                        # the model, the data setting
    theta = torch.nn.Parameter(torch.tensor(run.theta))
    opt = torch.optim.AdamW([theta], lr=0.02, betas=(0.9, 0.9), weight_decay=0)
    for t in range(1000):
        batch = lt.sample(run, 1000, stream=t)    # the run's training batch of step t
        opt.zero_grad()
        loss = lt.loss(theta, batch, run)         # backward: the exact gradient
        loss.backward()
        opt.step()

loss(theta, batch, model) is a scalar tensor: its backward is the model's
exact gradient (la_model_grad), and with create_graph=True the gradient is
itself differentiable, its backward the exact Hessian-vector product
(la_model_hvp). theta is a CPU tensor of the library's precision
(torch.float32 for the float library, the default; float64 for the
double); batch a linattn.Batch, or (Z, y) tensors in the layout of paper
A's code: Z of shape (B, n + 1, d + 1), a prompt's tokens as rows, the
query last with its label 0, and y the B targets. sample() draws such a
pair from a run's data setting. Importing linattn does not import torch;
importing linattn.torch does."""
import weakref

import numpy as np
import torch
from torch.autograd.function import once_differentiable

from .model import Batch
from .run import Run

__all__ = ["loss", "sample", "tensors"]

# The packed batch of a (Z, y) pair by id(Z), kept while Z lives and is
# not changed (its version counter), so that a step does not pack its
# batch again.
_packed = {}


def _remember(Z, y, batch):
    if id(Z) not in _packed:
        weakref.finalize(Z, _packed.pop, id(Z), None)
    _packed[id(Z)] = (weakref.ref(Z), Z._version, weakref.ref(y), y._version, batch)


def _recall(Z, y, lib):
    hit = _packed.get(id(Z))
    if hit is not None and hit[0]() is Z and hit[1] == Z._version and \
            hit[2]() is y and hit[3] == y._version and hit[4]._lib is lib:
        return hit[4]
    return None


def _model(model):
    return model.model if isinstance(model, Run) else model


def _theta(model, theta):
    """theta as the model takes it: a view of the tensor's memory."""
    lib = model._lib
    if not isinstance(theta, torch.Tensor):
        raise TypeError("theta: a torch tensor, not %s" % type(theta).__name__)
    want = torch.float64 if lib.precision == "double" else torch.float32
    if theta.device.type != "cpu" or theta.dtype != want:
        raise TypeError("theta: a CPU tensor of %s (the %s library's precision), not "
                        "%s on %s" % (want, lib.precision, theta.dtype, theta.device))
    return theta.detach().contiguous().numpy()


def _batch(model, batch):
    """batch as the model takes it: a Batch, or a (Z, y) pair packed once."""
    if isinstance(batch, Batch):
        return batch
    Z, y = batch
    if not isinstance(Z, torch.Tensor):
        return model._batch((np.swapaxes(np.asarray(Z), 1, 2), y))
    b = _recall(Z, y, model._lib)
    if b is None:
        b = Batch(Z.detach().transpose(1, 2).cpu().numpy(), y.detach().cpu().numpy(),
                  model._lib)
        _remember(Z, y, b)
    return b


class _Grad(torch.autograd.Function):
    """The gradient as a function of theta, its backward the HVP."""

    @staticmethod
    def forward(ctx, theta, model, batch, grad):
        ctx.save_for_backward(theta)
        ctx.model, ctx.batch = model, batch
        return grad

    @staticmethod
    @once_differentiable
    def backward(ctx, v):
        theta, = ctx.saved_tensors
        hv = ctx.model.hvp(_theta(ctx.model, theta), ctx.batch, _theta(ctx.model, v))
        return torch.from_numpy(hv), None, None, None


class _Loss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, theta, model, batch):
        th = _theta(model, theta)
        ctx.grad = None
        if ctx.needs_input_grad[0]:
            value, g = model.grad(th, batch)
            ctx.grad = torch.from_numpy(g)
        else:
            value = model.loss(th, batch)
        ctx.save_for_backward(theta)
        ctx.model, ctx.batch = model, batch
        return theta.new_tensor(value)

    @staticmethod
    def backward(ctx, grad_loss):
        theta, = ctx.saved_tensors
        g = ctx.grad
        if torch.is_grad_enabled():  # create_graph: the gradient differentiable
            g = _Grad.apply(theta, ctx.model, ctx.batch, g)
        return grad_loss * g, None, None


def loss(theta, batch, model):
    """The model's loss at theta on batch, a scalar tensor whose backward
    is the exact gradient (and the gradient's, the exact Hessian-vector
    product). model: a linattn.Run or its Model."""
    m = _model(model)
    return _Loss.apply(theta, m, _batch(m, batch))


def tensors(batch):
    """(Z, y) of a linattn.Batch in the layout of paper A's code: Z of
    shape (B, n + 1, d + 1), y of B targets (tensors of its precision)."""
    Z = torch.from_numpy(np.ascontiguousarray(np.swapaxes(batch.z, 1, 2)))
    y = torch.from_numpy(batch.y)
    _remember(Z, y, batch)
    return Z, y


def sample(run, count, seed=None, stream=0, rng=None):
    """count prompts of the run's data setting (Run.sample: stream t of the
    run's seed is the training batch of its step t) as (Z, y) tensors in
    the layout of paper A's code; loss() takes them without packing again."""
    return tensors(run.sample(count, seed=seed, stream=stream, rng=rng))
