"""A faster `__init__` for the frozen dataclasses the analysis makes by the thousand.

A frozen dataclass's generated `__init__` sets each field through `object.__setattr__`
(it must get past the class's own `__setattr__`, which raises): ~60 ns a field. Writing the
fields into the instance's `__dict__` does the same in a third of the time. Everything else
(repr, eq, hash, frozenness, pickling, `dataclasses.replace`) is the dataclass's own.
"""
from __future__ import annotations

import dataclasses

_MISSING = dataclasses.MISSING


def fast_init(cls):
    """Replace the `__init__` of a frozen dataclass (no `__post_init__`, no InitVar, no
    slots) by one that fills `__dict__`, with the same signature and defaults."""
    fields = [f for f in dataclasses.fields(cls) if f.init]
    assert cls.__dataclass_params__.frozen and not hasattr(cls, "__post_init__") and "__slots__" not in cls.__dict__
    args, body, ns = [], [], {}
    for f in fields:
        if f.default is not _MISSING:
            ns[f"_d_{f.name}"] = f.default
            args.append(f"{f.name}=_d_{f.name}")
            body.append(f"    d[{f.name!r}] = {f.name}")
        elif f.default_factory is not _MISSING:
            ns[f"_f_{f.name}"] = f.default_factory
            args.append(f"{f.name}=_MISSING")
            body.append(f"    d[{f.name!r}] = _f_{f.name}() if {f.name} is _MISSING else {f.name}")
        else:
            args.append(f.name)
            body.append(f"    d[{f.name!r}] = {f.name}")
    for f in dataclasses.fields(cls):
        if not f.init:   # set as the dataclass's __init__ does: from its default
            if f.default is not _MISSING:
                ns[f"_d_{f.name}"] = f.default
                body.append(f"    d[{f.name!r}] = _d_{f.name}")
            elif f.default_factory is not _MISSING:
                ns[f"_f_{f.name}"] = f.default_factory
                body.append(f"    d[{f.name!r}] = _f_{f.name}()")
    ns["_MISSING"] = _MISSING
    src = f"def __init__(self, {', '.join(args)}):\n    d = self.__dict__\n" + ("\n".join(body) or "    pass") + "\n"
    exec(src, ns)
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init
    return cls


class lazy:
    """`functools.cached_property` without its per-access lock (Python 3.11 takes an RLock on
    every first access: ~3% of a reward call, which asks a kernel context for eight of them).
    The value goes into the instance's `__dict__`, which shadows this non-data descriptor from
    then on. Not for instances shared between threads before their first access."""

    def __init__(self, func):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = self.func(obj)
        obj.__dict__[self.name] = value
        return value


def once_per_program(fn):
    """Memoize `fn(program, ...)` in the program's `__dict__`: a check that both a lint rule and
    the reward's build gate ask of one parsed file (analyzer.rules.build) runs once. The further
    arguments must be the same at every call for a program (the lint's kernel contexts)."""
    key = "_once_" + fn.__name__

    def wrapper(program, *rest):
        d = program.__dict__
        if key in d:
            return d[key]
        value = d[key] = fn(program, *rest)
        return value
    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper
