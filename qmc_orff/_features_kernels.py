"""Old path of :mod:`qmc_orff._cos_sin` (the cosine/sine kernels of the feature maps and the data
objectives); the names this module defined are forwarded there."""
from __future__ import annotations

from ._lazy import forward

_MOVES = {name: "qmc_orff._cos_sin" for name in (
    "_INVPIO2", "_PIO2_1", "_PIO2_2", "_PIO2_2T", "_PIO2_3", "_PIO2_3T", "_TOINT", "_REDUCE_MAX",
    "_S1", "_S2", "_S3", "_S4", "_S5", "_S6", "_C1", "_C2", "_C3", "_C4", "_C5", "_C6",
    "_sincos", "cos_sin_inplace", "_F32", "_F_INVPIO2", "_F_TOINT", "_F_DP1", "_F_DP2", "_F_DP3",
    "_F_SP0", "_F_SP1", "_F_SP2", "_F_CP0", "_F_CP1", "_F_CP2", "_F_HALF", "_F_ONE",
    "_F32_REDUCE_MAX", "_sincosf", "cos_sin_inplace_f32", "BLOCK_OUTPUTS", "MIN_BLOCK_ROWS",
    "block_rows", "cos_sin_features")}
__getattr__ = forward(__name__, _MOVES, (), "qmc_orff._cos_sin")
