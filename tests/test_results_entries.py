"""examples/RESULTS.md has one entry per quantitative figure and table of the three papers (issue 30).

Each entry, named exactly as below, gives the paper's side and either a verdict
word (**agrees**, **partly**, **differs**) or says "not yet run"; a
``differs`` or ``partly`` verdict gives its reason.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import _entries_base  # noqa: E402
import entries_avron_figures  # noqa: E402
import paper_entries  # noqa: E402

EXPECTED = (["Avron Fig. 2", "Avron Fig. 2 variance"] + [f"Avron Fig. {i}" for i in range(3, 8)]
            + ["Avron Fig. 7 remark"]
            + [f"Avron Table {i}" for i in (1, 2, 3)]
            + ["Avron Table 3 central box", "Avron classification remark",
               "Avron generation time"]
            + [f"Brault Fig. {i}" for i in range(1, 7)] + ["Brault Table 3", "Minh Table 1",
                                                           "Minh Table 2",
                                                           "Minh bounded vs unbounded"])


def entries(text):
    """``{name: body}`` of the ``### name`` entries of the "Paper by paper" section."""
    part = text.split("## Paper by paper", 1)
    assert len(part) == 2, "RESULTS.md has no 'Paper by paper' section"
    part = re.split(r"^## ", part[1], maxsplit=1, flags=re.M)[0]
    found = re.split(r"^### (.+)$", part, flags=re.M)[1:]
    return dict(zip(found[::2], found[1::2]))


def check(text):
    got = entries(text)
    assert list(got) == EXPECTED
    for name, body in got.items():
        assert "- Paper" in body, name
        verdicts = re.findall(r"Verdict: \*\*(\w+)\*\*", body)
        if paper_entries.NOT_RUN in body and not verdicts:
            continue
        assert len(verdicts) == 1 and verdicts[0] in paper_entries.VERDICTS, (name, verdicts)
        if verdicts[0] != "agrees":  # the reason follows the verdict
            assert re.search(r"Verdict: \*\*\w+\*\* — \S", body), name


def test_entry_names_are_the_issue_list():
    assert list(paper_entries.NAMES) == EXPECTED


def test_results_md_has_every_entry_with_a_verdict_or_not_yet_run():
    check((ROOT / "examples" / "RESULTS.md").read_text())


def test_check_fails_on_a_missing_entry_or_verdict():
    text = (ROOT / "examples" / "RESULTS.md").read_text()
    with pytest.raises(AssertionError):
        check(text.replace("### Minh Table 2", "### Minh Table 9"))
    body = entries(text)["Avron Fig. 4"]
    with pytest.raises(AssertionError):
        check(text.replace(body, body.replace("**agrees**", "**fine**")))


def test_generator_says_not_yet_run_without_outputs(tmp_path):
    import make_results

    text = make_results.build(tmp_path, tmp_path / "R.md").read_text()
    check(text)
    assert all(paper_entries.NOT_RUN in body for body in entries(text).values())


def test_versus_calls_a_difference_only_beyond_two_standard_errors():
    # paired differences -1, -1.2, -0.8: mean -1, standard error 0.2 / sqrt(3)
    assert _entries_base._versus([1.0, 0.8, 1.2], [2.0, 2.0, 2.0]) == "below"
    assert _entries_base._versus([3.0, 2.8, 3.2], [2.0, 2.0, 2.0]) == "above"
    # differences 1, -1, 0.5: mean 0.17, standard error 0.6
    assert _entries_base._versus([3.0, 1.0, 2.5], [2.0, 2.0, 2.0]) == "within noise"
    # differences 0.1, 0.4: mean 0.25, standard error 0.15 (1.7 of them)
    assert _entries_base._versus([2.1, 2.4], [2.0, 2.0]) == "within noise"
    assert _entries_base._versus([1.0], [2.0]) == "below"  # one deterministic pair
    # one deterministic value against each seed: as if repeated (differences 0.2, -0.2, 0.1)
    seeds = [1.0, 1.4, 1.1]
    for a, b in (([1.2], seeds), (seeds, [1.2]), ([0.7], seeds), ([2.0], seeds)):
        repeated = [a[0]] * 3 if len(a) == 1 else a, [b[0]] * 3 if len(b) == 1 else b
        assert _entries_base._versus(a, b) == _entries_base._versus(*repeated)
    assert _entries_base._versus([1.2], seeds) == "within noise"
    assert _entries_base._versus([0.7], seeds) == "below"
    with pytest.raises(ValueError):  # unequal runs are not paired silently
        _entries_base._versus([1.0, 2.0], seeds)


def test_against_quoted_uses_both_standard_errors():
    # ours 1.0 +- 0 (se 0), his 1.2 with std 0.2 over 10 runs: se 0.063, 2 se 0.126 < 0.2
    assert _entries_base._against_quoted([1.0, 1.0, 1.0], 1.2, 0.2, 10) == "below"
    # his std 0.4: 2 se 0.253 > 0.2
    assert _entries_base._against_quoted([1.0, 1.0, 1.0], 1.2, 0.4, 10) == "within noise"
    assert _entries_base._against_quoted([1.3, 1.5, 1.4], 1.0, 0.1, 10) == "above"


def _iterations(tmp_path, design, s, paths):
    """Write ``adaptive_iterations_{design}`` outputs: ``paths`` maps (data set, box) to a list
    of ``(step, D2, Gram error)``; the mean and maximum errors follow the Gram error."""
    import json

    import _common as C

    key = "iteration" if design == "global" else "points"
    rows = [{"dataset": ds, "design_box": box, "s": s, key: step, "D2": d2,
             "rel_frobenius": e, "rel_spectral": e, "mean_sq_error": e ** 2,
             "max_sq_error": 3 * e ** 2}
            for (ds, box), path in paths.items() for step, d2, e in path]
    C.write_csv(tmp_path / f"adaptive_iterations_{design}.csv", rows)
    (tmp_path / f"adaptive_iterations_{design}.json").write_text(
        json.dumps({"params": {"s": s, "design": design}}))


def test_fig6_panel_b_needs_the_initial_fall(tmp_path):
    # housing on b: D^2 falls; the Gram error rises from the first iterate (no initial fall)
    rise = [(0, 1.0, 0.04), (1, 0.8, 0.045), (2, 0.7, 0.05), (10, 0.5, 0.07), (60, 0.2, 0.13)]
    dip = [(0, 1.0, 0.04), (1, 0.8, 0.035), (2, 0.7, 0.05), (10, 0.5, 0.07), (60, 0.2, 0.13)]
    _iterations(tmp_path, "global", 100, {("housing", "b"): rise})
    text, verdict, reason = entries_avron_figures.ours_global(tmp_path)
    assert verdict == "differs" and "no initial fall" in reason
    _iterations(tmp_path, "global", 100, {("housing", "b"): dip})
    text, verdict, reason = entries_avron_figures.ours_global(tmp_path)
    assert verdict == "agrees" and "as the paper's panel" in text


def test_fig7_remark_greedy_at_100_points_against_global_after_10_iterations(tmp_path):
    glob = {("housing", "b"): [(0, 1.0, 0.1), (5, 0.5, 0.1), (10, 0.3, 0.1), (60, 0.1, 0.1)],
            ("housing", "b/2"): [(0, 1.0, 0.1), (10, 0.6, 0.1), (20, 0.5, 0.1)]}
    _iterations(tmp_path, "global", 100, glob)
    _iterations(tmp_path, "greedy", 300, {("housing", "b"): [(20, 2.0, 0.2), (100, 0.4, 0.1)],
                                          ("housing", "b/2"): [(100, 0.55, 0.1)]})
    text, verdict, reason = entries_avron_figures.ours_fig7_remark(tmp_path)
    # on b the greedy 0.4 is above every global iterate from the 10th (0.3, 0.1); on b/2 the
    # greedy 0.55 is below the global design's 0.6 at iteration 10
    assert verdict == "partly" and "1 of 2" in text and "from iteration 10" in text
    _iterations(tmp_path, "global", 64, glob)  # the remark needs the global design at s = 100
    assert entries_avron_figures.ours_fig7_remark(tmp_path)[1] is None
