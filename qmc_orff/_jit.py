"""Helpers for the numba builds of the kernels (private).

numba's on-disk cache (``cache=True``) files a compiled function under its module,
qualified name and first line, and keys the entries of that file by signature, CPU
and bytecode -- not by the compile options.  Two builds of one Python function
(``parallel=True`` and serial) therefore share one cache entry, and whichever was
saved last is loaded for both: the serial build comes back parallel (running
parallel regions, which a limit of one thread, ``qmc_orff.set_num_threads(1)``,
promises to avoid), or the parallel build serial (one thread from then on).  :func:`renamed` gives each
build its own function object, hence its own cache file.

A ``parallel=True`` kernel takes several times longer to compile than its serial
build (the parfor passes and the gufunc); :func:`parallel_pays` lets a caller run
the serial build where the parallel one cannot pay, so that a small first call
compiles only the serial build.

Where numba keeps the cache: the package's ``__pycache__`` folders when they are
writable, else (a site-packages owned by root) numba's user-wide cache,
``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba`` (its locators probe each folder by
creating a file there).  Where neither is writable (a read-only install and a read-only
home: containers, serverless) numba has no place at all, and every ``cache=True``
decoration -- hence ``import qmc_orff`` -- raises "cannot cache function ...: no locator
available"; importing this module then points ``numba.config.CACHE_DIR`` at a folder in
the temporary directory (:func:`_ensure_cache_location`).  Every module with cached
kernels imports this one before its first decoration.  ``NUMBA_CACHE_DIR`` is always
obeyed.

Vector width (:func:`njit_wide`): on CPUs with AVX-512 LLVM's tuning prefers 256-bit
vectors ("prefer-256-bit"), so numba's loops use ymm registers only.  The feature kernels
ask for 512-bit vectors through their own LLVM function attribute
``"prefer-vector-width"="512"`` (what clang's ``-mprefer-vector-width=512`` sets), added by
a compiler pass of their own pipeline -- no process-wide setting (``NUMBA_CPU_FEATURES``)
changes.  Only where the target numba compiles for has AVX-512F
(:func:`wide_vector_bits`); elsewhere the kernels are built exactly as before.  Numba's
cache keys its entries by CPU name and features, so a cached build is reused only on the
CPU it was compiled for.
"""
from __future__ import annotations

import os
import tempfile
import types

import numba

__all__ = ["renamed", "parallel_pays", "njit_wide", "wide_vector_bits", "target_features"]


def _cache_probe():
    """Never called: numba's cache locators look at this module's file through it."""


def _ensure_cache_location():
    """Give numba a writable cache folder when it would find none (see the module notes).

    Returns the folder set as ``numba.config.CACHE_DIR``, or None when numba's own
    choice stands (``NUMBA_CACHE_DIR`` given, or a writable ``__pycache__`` or user-wide
    cache).  Changes numba's configuration for the process only where every
    ``cache=True`` function of this package would otherwise fail to be defined.
    """
    if numba.config.CACHE_DIR:   # NUMBA_CACHE_DIR: the user's choice
        return None
    from numba.core.caching import FunctionCache

    try:
        FunctionCache(_cache_probe)   # numba's own locator chain, on this package's files
        return None
    except RuntimeError:              # "no locator available"
        pass
    user = getattr(os, "getuid", lambda: "user")()
    folder = os.path.join(tempfile.gettempdir(), f"qmc_orff-numba-cache-{user}")
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:   # nothing writable at all: numba's own error will say so
        return None
    numba.config.CACHE_DIR = folder
    return folder


_ensure_cache_location()


def renamed(func, name, **constants):
    """A copy of the plain module-level function ``func`` under the name ``name``.

    Same code, globals, defaults and closure; ``__name__`` and ``__qualname__`` are
    ``name``, so ``numba.njit(cache=True)(renamed(f, "f_serial"))`` is cached apart from
    any other build of ``f``.  Use the name the build is published under.

    ``constants`` override global names for this copy only (numba freezes globals as
    compile-time constants): ``renamed(body, "run_grad", WITH_GRAD=True)`` builds a
    specialised copy of ``body``.  The copy then sees a snapshot of the module's globals
    taken now, so make it after every name it uses is defined.
    """
    namespace = dict(func.__globals__, **constants) if constants else func.__globals__
    copy = types.FunctionType(func.__code__, namespace, name, func.__defaults__,
                              func.__closure__)
    copy.__qualname__ = name
    copy.__module__ = func.__module__
    copy.__doc__ = func.__doc__
    copy.__kwdefaults__ = func.__kwdefaults__
    return copy


def parallel_pays(n, chunk):
    """Whether ``n`` items in chunks of ``chunk`` should run on the parallel build.

    True when there is more than one chunk and numba may use more than one thread
    (``qmc_orff.set_num_threads``); otherwise the serial build does the same work in
    the same order per chunk (the chunked generator kernels compute each chunk from its
    own first index, so both builds give the same points) without compiling the parallel
    build or entering the thread pool.
    """
    return n > chunk and numba.get_num_threads() > 1


# ----------------------------------------------------------------------- vector width
def target_features():
    """The CPU features numba compiles for, as a set of LLVM names (``"avx2"``, ``"avx512f"``):
    ``NUMBA_CPU_FEATURES`` when set, else the host's."""
    features = numba.config.CPU_FEATURES
    if features is None:
        from numba.core.codegen import get_host_cpu_features

        features = get_host_cpu_features()
    return {f[1:] for f in features.split(",") if f.startswith("+")}


def wide_vector_bits(features=None):
    """The vector width :func:`njit_wide` requests: 512 where ``features`` (default: the
    target's, :func:`target_features`) include AVX-512F, else None (LLVM's own choice)."""
    features = target_features() if features is None else features
    return 512 if "avx512f" in features else None


def _with_vector_width(attributes, bits):
    """A copy of the llvmlite function attribute set ``attributes`` plus
    ``"prefer-vector-width"="<bits>"`` (llvmlite accepts only its known attribute names)."""
    from llvmlite.ir.values import FunctionAttributes

    entry = f'"prefer-vector-width"="{bits}"'

    class _Attributes(FunctionAttributes):
        _known = FunctionAttributes._known | {entry}

    wide = _Attributes(list(attributes))
    wide.alignstack = attributes.alignstack
    wide.personality = attributes.personality
    wide.add(entry)
    return wide


def _pipeline(bits):
    """A numba compiler pipeline that marks every function it lowers with
    ``"prefer-vector-width"="<bits>"`` (numba's nopython pipeline otherwise)."""
    from numba.core.compiler import CompilerBase, DefaultPassBuilder
    from numba.core.compiler_machinery import LoweringPass, register_pass
    from numba.core.typed_passes import AnnotateTypes

    @register_pass(mutates_CFG=False, analysis_only=True)
    class PreferVectorWidth(LoweringPass):
        _name = f"qmc_orff_prefer_vector_width_{bits}"

        def __init__(self):
            LoweringPass.__init__(self)

        def run_pass(self, state):
            if state.library is None:  # as numba's NativeLowering makes it
                state.library = state.targetctx.codegen().create_library(
                    state.func_id.func_qualname)
                state.library.enable_object_caching()
            library = state.library
            add_ir_module = library.add_ir_module

            def add_marked(ir_module):
                for fn in ir_module.functions:
                    if not fn.is_declaration:
                        fn.attributes = _with_vector_width(fn.attributes, bits)
                add_ir_module(ir_module)

            library.add_ir_module = add_marked  # this library (this compilation) only
            return False

    class Pipeline(CompilerBase):
        def define_pipelines(self):
            pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
            pm.add_pass_after(PreferVectorWidth, AnnotateTypes)
            pm.finalize()
            return [pm]

    Pipeline.__name__ = Pipeline.__qualname__ = f"PreferVectorWidth{bits}Pipeline"
    return Pipeline


def njit_wide(bits=None, **options):
    """``numba.njit(**options)``, with 512-bit vectors requested where the target has AVX-512F.

    ``bits``: the width to request (default None: :func:`wide_vector_bits`; 0: plain njit).
    """
    bits = wide_vector_bits() if bits is None else bits
    if bits:
        options["pipeline_class"] = _pipeline(bits)
    return numba.njit(**options)
