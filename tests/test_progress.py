"""Progress bars: redrawn in place on a terminal, rarely in a log file."""
from __future__ import annotations

import io

from nefertiti_env.agents import progress


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_a_bar_in_a_log_file_redraws_every_log_interval(monkeypatch):
    monkeypatch.setattr(progress.sys, "stderr", _Stream(tty=False))
    bar = progress.progress_bar(total=10)
    assert bar.mininterval == progress.LOG_INTERVAL
    assert progress.progress_bar(total=10, mininterval=1.0).mininterval == 1.0     # an explicit choice stays


def test_a_bar_on_a_terminal_keeps_tqdms_rate(monkeypatch):
    monkeypatch.setattr(progress.sys, "stderr", _Stream(tty=True))
    assert progress.progress_bar(total=10).mininterval == 0.1
