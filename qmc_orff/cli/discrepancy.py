"""``qmc-orff discrepancy``: the box discrepancy of a sequence file."""
from __future__ import annotations

import json

import numpy as np

from ._common import _CliError, _positive_floats, _read_points


def _cmd_discrepancy(args):
    from ..objectives.box import BoxDiscrepancy

    seq = _read_points(args.file)
    d = seq.d
    for option, value in (("--box", args.box), ("--sigma", args.sigma)):
        if np.ndim(value) and len(value) != d:
            raise _CliError(f"{option} has {len(value)} values; give one number or d={d} (one "
                            f"per coordinate of {args.file!r}, comma-separated)")
    b = args.box if np.ndim(args.box) else np.full(d, args.box)
    sigma = args.sigma if np.ndim(args.sigma) else np.full(d, args.sigma)
    obj = BoxDiscrepancy(b, kernel=args.kernel, sigma=sigma, d=d)
    W = seq.frequencies(sigma)
    nd2 = obj(W, seq.weights, normalize=True)
    nemc = obj.expected_mc(seq.s, normalize=True)
    try:  # raw values carry prod(b / pi), which float64 cannot hold in high d
        d2, emc = obj(W, seq.weights), obj.expected_mc(seq.s)
    except ValueError:
        d2 = emc = None
    result = {"file": args.file, "s": seq.s, "d": d, "kernel": args.kernel, "d2": d2,
              "normalized_d2": nd2, "expected_mc": emc, "normalized_expected_mc": nemc,
              "ratio_to_mc": nd2 / nemc, "weighted": seq.weights is not None}
    if args.json:
        print(json.dumps(result))
    else:
        raw = "not representable in float64" if d2 is None else f"{d2:.6e}"
        print(f"D^2 = {raw}  (normalised {nd2:.6e}; expected for MC, normalised {nemc:.6e}, "
              f"ratio {nd2 / nemc:.4g}; s={seq.s}, d={d}, {args.kernel})")
    return 0


#: the command's line in ``qmc-orff --help``
HELP = "squared box discrepancy of a point file"


def add_parser(sub):
    """Add the ``discrepancy`` subcommand's parser to ``sub`` (the command's subparsers); return it."""
    q = sub.add_parser("discrepancy", help=HELP,
                       epilog="example:\n  qmc-orff discrepancy W.npy --box 0.5 --sigma 1",
                       description="Print D^2 of the frequencies in FILE (a .npz sequence, or a "
                       ".npy/.txt/.csv matrix of unit-bandwidth frequencies) for the box "
                       "half-width --box B and the kernel bandwidth --sigma S.")
    q.add_argument("file", metavar="FILE",
                   help="a .npz sequence, or a .npy/.txt/.csv matrix of frequencies")
    q.add_argument("--box", metavar="B", type=_positive_floats, required=True,
                   help="box half-width B (scalar or comma-separated per coordinate)")
    q.add_argument("--sigma", metavar="S", type=_positive_floats, default=1.0,
                   help="kernel bandwidth S (scalar or comma-separated per coordinate; "
                   "default: 1)")
    q.add_argument("--kernel", choices=("gaussian", "laplacian"), default="gaussian",
                   help="kernel whose density the frequencies follow (default: gaussian)")
    q.add_argument("--json", action="store_true", help="print a JSON object")
    return q
