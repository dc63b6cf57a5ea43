"""The designs' progress bar (issue 22 item 5; tqdm since issue 29): ETA and rate as tqdm
prints them, clean redraws on a terminal (no characters of a longer frame left behind, never
wider than the terminal), plain lines in a log."""
import io
import re

import pytest
import tqdm.std

from qmc_orff.designs import _optimizer
from qmc_orff.designs._optimizer import _Progress


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self._tty = tty

    def isatty(self):
        return self._tty


class _Clock:
    """A stand-in for the module's ``time`` (``perf_counter``) and tqdm's clock (``time``):
    both read ``now``."""

    def __init__(self):
        self.now = 1000.0

    def perf_counter(self):
        return self.now

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = _Clock()
    monkeypatch.setattr(_optimizer, "time", c)
    monkeypatch.setattr(tqdm.std, "time", c)  # a bar made after this reads it
    return c


def _frames(text):
    """The terminal frames written, each as the terminal shows it after that redraw."""
    return text.rstrip("\n").split("\r")[1:]


def test_log_lines_are_tqdms_format_meter(clock):
    log = _Stream(tty=False)
    bar = _Progress(100, 1.0, stream=log, every=10)
    for it in range(1, 11):
        clock.now += 2.0
        bar.update(it, 0.5)
    what = "normalised D^2=5.0000e-01 ratio to Halton=0.5"
    assert log.getvalue() == "progress: " + tqdm.std.tqdm.format_meter(
        10, 100, 20.0, prefix=what, bar_format=_optimizer._LINE) + "\n"


def test_log_lines_carry_elapsed_eta_and_rate(clock):
    log = _Stream(tty=False)
    bar = _Progress(100, 1.0, stream=log, every=10)
    for it in range(1, 21):
        clock.now += 2.0                       # 0.5 iterations a second
        bar.update(it, 0.5)
    bar.close()
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and len(lines) == 2
    # 10 iterations in 20 s: 2 s each, 90 left -> 3 minutes
    assert lines[0].startswith("progress: 10/100 normalised D^2=5.0000e-01 ratio to Halton=0.5")
    assert lines[0].endswith(" [00:20<03:00,  2.00s/it]")
    assert lines[1].endswith(" [00:40<02:40,  2.00s/it]")


def test_rate_counts_this_runs_iterations_only(clock):
    # a resumed run (the greedy design from a prefix, design adaptive --resume) starts at
    # iteration 501: its rate is its own iterations over its own time
    log = _Stream(tty=False)
    bar = _Progress(1000, 1.0, stream=log, every=1)
    for it in (501, 502, 503, 504):
        clock.now += 0.1
        bar.update(it, 0.5)
    assert log.getvalue().splitlines()[-1].endswith(" [00:00<00:49, 10.00it/s]")
    bar.update(1000, 0.5)
    assert log.getvalue().splitlines()[-1].endswith("<00:00, 1250.00it/s]")  # 500 in 0.4 s


def test_terminal_redraws_leave_no_stray_characters(clock):
    tty = _Stream(tty=True)
    bar = _Progress(10, None, stream=tty, width=10, mininterval=0.0)
    for it, what in [(1, "a long first message"), (2, "short"), (3, "x")]:
        clock.now += 1.0
        bar.show(it, what)
    bar.close()
    frames = _frames(tty.getvalue())
    assert len(frames) == 4 and tty.getvalue().endswith("\n")  # close redraws the last state
    # each frame covers the previous one in full: padded with spaces to its length
    for before, after in zip(frames, frames[1:]):
        assert len(after) >= len(before.rstrip(" "))
    # the clock starts at the first update: 1 iteration a second after it
    assert frames[1].rstrip(" ").endswith("2/10 short [00:01<00:08,  1.00it/s]")
    assert frames[2].rstrip(" ").endswith("3/10 x [00:02<00:07,  1.00it/s]")
    assert frames[2].startswith("[###.......] 3/10 x ")
    assert "long" not in frames[2]


def test_terminal_frames_fit_the_terminal(clock, monkeypatch):
    # a frame wider than the terminal wraps, and "\r" then redraws only the last row;
    # (tqdm's dynamic_ncols: the terminal's size, here 40 columns, one left free)
    monkeypatch.setattr(tqdm.std, "_screen_shape_wrapper", lambda: lambda fp: (39, 23))
    tty = _Stream(tty=True)
    bar = _Progress(10, 1.0, stream=tty, mininterval=0.0)
    for it in range(1, 4):
        clock.now += 1.0
        bar.update(it, 0.5)
    bar.close()
    frames = _frames(tty.getvalue())
    assert frames and all(len(frame.rstrip(" ")) <= 39 for frame in frames), frames
    assert frames[-1].startswith("[")


def test_terminal_redraws_are_throttled_and_the_last_state_shown(clock):
    tty = _Stream(tty=True)
    bar = _Progress(1000, 1.0, stream=tty)     # at most one frame every 0.1 s
    for it in range(1, 500):
        clock.now += 0.001
        bar.update(it, 0.5)
    bar.close()
    frames = _frames(tty.getvalue())
    assert 4 <= len(frames) <= 7                # 0.5 s of updates: every 0.1 s, then close
    assert re.search(r"\] 499/1000 .*\[00:00<00:00, 1000\.00it/s\]", frames[-1]), frames[-1]
    assert tty.getvalue().count("\n") == 1


def test_no_output_before_the_first_update():
    tty = _Stream(tty=True)
    _Progress(10, 1.0, stream=tty).close()
    assert tty.getvalue() == ""


# moved from test_cli_conventions.py (one _Stream helper for every progress test)
def _log_of(iterations, seconds, close=True):
    """What a 200-iteration bar writes to a log after ``iterations`` updates."""
    log = _Stream(tty=False)
    bar = _Progress(200, 1.0, stream=log, seconds=seconds)
    for it in range(1, iterations + 1):
        bar.update(it, 0.5)
    if close:
        bar.close()
    return log.getvalue()


def test_progress_in_a_log_prints_lines_not_frames():
    text = _log_of(200, 1e9)
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) == 20 and all(line.startswith("progress: ") for line in lines)
    assert lines[-1].startswith("progress: 200/200 ")
    # a run stopping between two lines still reports its last state
    assert _log_of(13, 1e9).splitlines()[-1].startswith("progress: 13/200 ")
    # time-based lines: every update when the interval is 0
    assert len(_log_of(5, 0.0, close=False).splitlines()) == 5


def test_progress_on_a_terminal_redraws_one_line():
    tty = _Stream(tty=True)
    bar = _Progress(10, 1.0, stream=tty, mininterval=0.0)
    for it in range(1, 11):
        bar.update(it, 0.5)
    bar.close()
    assert tty.getvalue().count("\r") == 11 and tty.getvalue().count("\n") == 1
