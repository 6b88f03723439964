"""Progress bars for the long runs (tournaments, training, evaluation, balance studies).

On a terminal a bar redraws in place ten times a second; in a log file (nohup,
CI, a batch job) every redraw would be a new carriage-return record, megabytes
an hour, so there it redraws once every LOG_INTERVAL seconds.
"""
from __future__ import annotations

import sys

from tqdm import tqdm

LOG_INTERVAL = 30.0


def progress_bar(**kwargs) -> tqdm:
    """A tqdm bar on stderr that redraws at most every LOG_INTERVAL s when stderr is not a terminal."""
    if not sys.stderr.isatty():
        kwargs.setdefault("mininterval", LOG_INTERVAL)
    return tqdm(**kwargs)
