"""`nefertiti replay`: a recorded game as one self-contained HTML page that steps through it."""
from __future__ import annotations

import argparse
import json
import webbrowser
from pathlib import Path

from . import fail


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "replay", help="write an HTML page that steps through a recorded game",
        description="Reads a game record (NefertitiGame.record() as JSON, e.g. saved by `nefertiti serve`) or "
                    "a JSON-lines file of them (a tournament's records.jsonl) and writes one self-contained "
                    "HTML page (no network): the board at each decision, who decided what, the scores. "
                    "Step with the buttons or the arrow keys, Home, End, Space.",
        epilog="examples:\n  nefertiti replay runs/tournament/records.jsonl --game 3 --open\n"
               "  nefertiti replay games/game-20261124-150102.json --out game.html\n"
               "  nefertiti replay their_records.jsonl --ruleset their_rules.toml",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="a game record (.json) or a file of records, one per line (.jsonl)")
    p.add_argument("--game", type=int, default=0,
                   help="which game of a records.jsonl (its 'game' number, else its line, from 0; default 0)")
    p.add_argument("--out", default=None, help="the page to write (default: FILE's name + -game<N>.html beside it)")
    p.add_argument("--open", action="store_true", help="open the page in the default web browser")
    p.add_argument("--ruleset", default=None,
                   help="the ruleset (packaged name or .toml file) to replay with, in place of the recorded one: "
                        "a record names a user's ruleset file by the path it had where it was made")
    p.add_argument("--allow-changed-ruleset", action="store_true",
                   help="replay even when the ruleset's content is not the recorded one (its sha256 differs): "
                        "a warning instead of an error; the game may then fail to replay")
    p.set_defaults(func=run)


def load_record(path: Path, game: int) -> tuple[dict, list[str] | None]:
    """(record, bot name per seat or None) of game `game` in a record or records file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not a text file ({err})") from None
    try:
        entries = [json.loads(text)]
    except json.JSONDecodeError:
        entries = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    entries.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise ValueError(f"{path}: line {number} is not JSON: {err}") from None
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: entry {number} is a JSON {type(entry).__name__}, not a game record")
    numbered = {e.get("game", i): e for i, e in enumerate(entries)}
    if game not in numbered:
        raise ValueError(f"{path}: no game {game}; it holds {len(entries)} game(s): "
                         f"{', '.join(map(str, list(numbered)[:20]))}{' ...' if len(numbered) > 20 else ''}")
    entry = numbered[game]
    record = entry.get("record", entry)
    if not isinstance(record, dict) or not {"seed", "options", "actions"} <= record.keys() \
            or not isinstance(record["actions"], list):
        raise ValueError(f"{path}: game {game} is not a game record (needs seed, options, actions)")
    return record, entry.get("bots")


def run(args) -> int:
    from nefertiti_env.render.replay import replay_html

    path = Path(args.file)
    if not path.is_file():
        return fail("replay", f"no such file: {path}")
    out = Path(args.out) if args.out else path.with_name(f"{path.stem}-game{args.game}.html")
    if out.exists() and out.samefile(path):
        return fail("replay", f"--out {out} is the records file itself: choose another page name")
    try:
        record, bots = load_record(path, args.game)
        page = replay_html(record, title=f"Nefertiti: {path.name}, game {args.game}", players=bots,
                           ruleset=args.ruleset, allow_changed_ruleset=args.allow_changed_ruleset)
    except (ValueError, TypeError, KeyError, OSError, RecursionError) as err:
        return fail("replay", " ".join(f"{path}: game {args.game}: {err}".split()) if str(path) not in str(err)
                    else " ".join(str(err).split()))
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as err:
        return fail("replay", f"cannot write {out}: {err.strerror or err}")
    print(f"wrote {out} ({len(record['actions'])} decisions, {out.stat().st_size / 1e6:.1f} MB)")
    if args.open:
        webbrowser.open(out.resolve().as_uri())
    return 0
