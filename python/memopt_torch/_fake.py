"""Fake tensors that keep the values of constants (exporter.on_fake_tensors).

`export` without --weights writes no values but the graph's constants (a
causal mask, torch.arange positions), so it builds and traces the model on
torch 1.13's FakeTensorMode (shapes without data: no parameter memory, no
compute on data) extended by ShadowMode below, which keeps the real value
of each small tensor computed from no parameter, input or random draw.
"""

import contextlib

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._mode_utils import no_dispatch
from torch.utils._pytree import tree_flatten, tree_map_only

# The largest value (elements) the fake mode also computes for real: a
# causal mask of 4096 x 4096 positions. An op whose output is larger (a
# parameter-sized fill) gets no real value; a constant of the graph that
# needed one sends the export to real tensors.
_SHADOW_LIMIT = 1 << 24

# Ops whose CPU kernel returns contiguous outputs where torch 1.13's meta
# kernel keeps the input's layout (a permuted input of batch 1): the strides
# decide how a later reshape traces (a view, or a copy).
_CONTIGUOUS_OUTPUTS = {"aten.native_layer_norm.default"}


def _undeclared_writes(func, args):
    """The arguments `func` writes in place where torch 1.13's schema does
    not say so: native_batch_norm in training mode (argument 5) updates its
    running mean and variance (arguments 3 and 4)."""
    if str(func) == "aten.native_batch_norm.default" and len(args) > 5 and args[5]:
        return (3, 4)
    return ()


class NoRealValue(Exception):
    """A value the graph writes with its data that the fake tensors do not
    hold (see ShadowMode); the export then runs on real tensors."""


class ShadowMode(FakeTensorMode):
    """torch 1.13's FakeTensorMode (shapes, no data, no compute), which also
    keeps a real value ("shadow") beside every fake tensor computed from no
    parameter, input or random draw and of at most _SHADOW_LIMIT elements:
    a causal mask built in __init__, torch.arange(T) in forward, torch.tensor
    constants. The graph writes such constants with their data (to_json); a
    model's construction may read them (RegNet's widths, by .tolist()).
    Parameters are drawn at random (no shadow) or filled (a shadow, dropped
    when they are traced: parameters are never constants). An in-place
    update the mode cannot follow for real (a random draw, an operand
    without a shadow) invalidates the shadow's storage, every view of it
    included."""

    def __init__(self, metadata_only_ops=()):
        # No fallback kernels: an op without a meta kernel would run the
        # real CPU kernel on zeros, the memory this mode is meant to avoid.
        super().__init__(allow_fallback_kernels=False)
        self.metadata_only_ops = set(metadata_only_ops)  # x.new_zeros: reads x's layout
        self.invalid = {}  # storage key -> StorageWeakRef (keeps the key unused)

    def shadow(self, t):
        """The real value of `t` (a real tensor is its own), or None."""
        if not isinstance(t, FakeTensor):
            return t if isinstance(t, torch.Tensor) else None
        real = t.__dict__.get("_memopt_shadow")
        if real is None or StorageWeakRef(real.storage()).cdata in self.invalid:
            return None
        return real

    def value_of(self, t, name):
        """The shadow of `t`, the graph's constant `name`, or NoRealValue."""
        real = self.shadow(t)
        if real is None:
            raise NoRealValue(f"the graph's constant {name} ({'x'.join(map(str, t.shape))}, "
                              f"{str(t.dtype).replace('torch.', '')}) needs values the fake "
                              f"tensors do not hold: drawn at random, computed from a "
                              f"parameter or the input, or over {_SHADOW_LIMIT} elements")
        return real

    def forget(self, t):
        """Drops `t`'s shadow (a parameter's: the memory of its value)."""
        if isinstance(t, FakeTensor):
            t.__dict__.pop("_memopt_shadow", None)

    def _invalidate(self, t):
        real = t.__dict__.pop("_memopt_shadow", None) if isinstance(t, FakeTensor) else None
        if real is not None:
            ref = StorageWeakRef(real.storage())
            self.invalid[ref.cdata] = ref

    def _real_args(self, func, args, kwargs):
        """(args, kwargs) with each tensor's shadow, or None where one has
        none. The first argument of an op that reads only its metadata
        (x.new_zeros) stands as an uninitialized tensor of its layout."""
        metadata_only = func.overloadpacket.__name__ in self.metadata_only_ops
        missing = []

        def real(t):
            value = self.shadow(t)
            if value is None and metadata_only and t is (args[0] if args else None):
                with no_dispatch():
                    value = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype)
            if value is None:
                missing.append(t)
            return value

        mapped = tree_map_only(torch.Tensor, real, (args, kwargs))
        return None if missing else mapped

    def _written(self, func, args, kwargs):
        """The tensor arguments `func` writes in place."""
        written = []
        for i, argument in enumerate(func._schema.arguments):
            value = args[i] if i < len(args) else kwargs.get(argument.name)
            if argument.alias_info is not None and argument.alias_info.is_write or \
                    i in _undeclared_writes(func, args):
                written += [t for t in tree_flatten(value)[0] if isinstance(t, torch.Tensor)]
        return written

    def _compute(self, func, args, kwargs, out):
        """The real result of `func` on the shadows, or None."""
        if torch.Tag.nondeterministic_seeded in func.tags:
            return None
        returns = func._schema.returns
        outs = tree_flatten(out)[0] if out is not None else []
        if len(returns) == 1:  # a tensor or a list of them
            fresh = outs if returns[0].alias_info is None else []
        else:
            fresh = [t for t, r in zip(outs, returns) if r.alias_info is None]
        if sum(t.numel() for t in fresh if isinstance(t, torch.Tensor)) > _SHADOW_LIMIT:
            return None
        real_args = self._real_args(func, args, kwargs)
        if real_args is None:
            return None
        try:
            with no_dispatch(), torch.no_grad():
                return (func(*real_args[0], **real_args[1]),)
        except Exception:  # e.g. a real kernel stricter than the meta one
            return None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            out = super().__torch_dispatch__(func, types, args, kwargs)
        except Exception:
            # An op that needs data (x.item(), nonzero): answered from the
            # shadows when every operand has one.
            real = self._compute(func, args, kwargs, None) if \
                func != torch.ops.prim.device.default else None
            if real is None:
                raise
            return tree_map_only(torch.Tensor, self._fake_of, real[0])
        if out is NotImplemented or func == torch.ops.prim.device.default:
            return out
        if str(func) in _CONTIGUOUS_OUTPUTS:
            out = tree_map_only(FakeTensor, self._contiguous, out)
        real = self._compute(func, args, kwargs, out)
        if real is None:
            for t in self._written(func, args, kwargs):
                self._invalidate(t)
            return out
        fakes, reals = tree_flatten(out)[0], tree_flatten(real[0])[0]
        for fake, value in zip(fakes, reals):
            if isinstance(fake, FakeTensor) and isinstance(value, torch.Tensor):
                fake._memopt_shadow = value
        return out

    def _contiguous(self, fake):
        if fake.is_contiguous():
            return fake
        with no_dispatch():
            meta = torch.empty(fake.shape, dtype=fake.dtype, device="meta")
        return FakeTensor(self, meta, fake.fake_device)

    def _fake_of(self, real):
        fake = self.fake_tensor_converter(self, real)
        fake._memopt_shadow = real
        return fake

    @contextlib.contextmanager
    def tolist(self):
        """Makes x.tolist() of a fake tensor with a shadow answer from the
        shadow (torch 1.13 refuses tolist() on any tensor subclass)."""
        original = FakeTensor.__dict__.get("tolist")
        mode = self

        def tolist(t):
            real = mode.shadow(t)
            return real.tolist() if real is not None else torch.Tensor.tolist(t)

        FakeTensor.tolist = tolist
        try:
            yield
        finally:
            if original is None:
                del FakeTensor.tolist
            else:
                FakeTensor.tolist = original
