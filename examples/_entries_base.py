"""The pieces every paper entry shares: :class:`Entry`, reading a script's outputs, and the
calls (``_versus``: a difference is called only beyond twice its standard error over the
seeds; ``_against_quoted``: our runs against a paper's mean and std).

See :mod:`paper_entries` for what an entry is and how its verdict is formed.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

import _common as C


VERDICTS = ("agrees", "partly", "differs")
NOT_RUN = "not yet run"


@dataclass(frozen=True)
class Entry:
    """One quantitative figure or table of a paper."""

    name: str
    paper: str
    source: str  # "quoted from the text" / "the text's claim about the figure (no values in the text)"
    script: str  # the output name (``NAME.json``) our numbers come from
    ours: Optional[Callable] = None
    recorded: Optional[tuple] = None  # (verdict, reason, run date) judged on a carried-over run
    setting: str = ""  # our data / sizes where they differ from the paper's
    recorded_script: str = ""  # the script whose section ``recorded`` was judged on (default: script)


def _load(out_dir, name):
    out_dir = Path(out_dir)
    meta_path, csv_path = out_dir / f"{name}.json", out_dir / f"{name}.csv"
    if not (meta_path.exists() and csv_path.exists()):
        return None, None
    return json.loads(meta_path.read_text()), C.read_csv(csv_path)


def _mean(rows, value, **where):
    vals = [r[value] for r in rows if all(r.get(k) == v for k, v in where.items())
            and r.get(value, "") != ""]
    return float(np.mean(vals)) if vals else float("nan")


def _share(flags):
    """``agrees`` when every flag holds, ``differs`` when none does, else ``partly``."""
    flags = [bool(f) for f in flags]
    if not flags:
        return None
    if all(flags):
        return "agrees"
    return "differs" if not any(flags) else "partly"


def _versus(a, b):
    """Paired per-seed values ``a`` and ``b``: ``"below"`` or ``"above"`` where the mean of
    ``a - b`` is beyond twice its standard error (``std(ddof=1) / sqrt(n)``), else
    ``"within noise"``.  A side with one value (a deterministic result) is set against each
    of the other's values; one pair is compared as it is."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else 0.0
    if abs(d.mean()) <= 2 * se:
        return "within noise"
    return "below" if d.mean() < 0 else "above"


def _by_rep(rows, value, **where):
    """``value`` of the rows matching ``where``, ordered by ``rep`` (for paired comparisons)."""
    return [r[value] for r in sorted((r for r in rows if all(r.get(k) == v for k, v in
                                                          where.items())), key=lambda r: r["rep"])]


def _tally(calls, who="ORFF"):
    return (f"{who} below in {sum(c == 'below' for c in calls)}, above in "
            f"{sum(c == 'above' for c in calls)}, within noise in "
            f"{sum(c == 'within noise' for c in calls)} of {len(calls)}")


def _against_quoted(values, mean, sd, runs):
    """Our per-run ``values`` against a paper's ``mean (sd)`` of ``runs`` runs (unpaired):
    ``"below"``/``"above"`` where our mean minus his is beyond twice the standard error of
    the difference, ``sqrt(std(values)^2 / n + sd^2 / runs)``, else ``"within noise"``."""
    v = np.asarray(values, dtype=float)
    diff = v.mean() - mean
    if abs(diff) <= 2 * np.hypot(v.std(ddof=1) / np.sqrt(v.size), sd / np.sqrt(runs)):
        return "within noise"
    return "below" if diff < 0 else "above"
