"""New GNU Backgammon self-play matches, to measure our analysis on matches it was never tuned on.

GNU Backgammon 1.07 (the ``gnubg`` command) plays both sides of each match by itself; each
side's chequer play and cube decisions are set per match from the match's seed: a depth of 0,
1 or 2 plies and a noise of 0 to 0.06 points (gnubg's ``deterministic on``: the noise a
function of the position, so that a match replays exactly), so the players range from world
class to beginner as the matches of ``../shared/mat/gnubg_selfplay_*.mat`` do. The dice come
from gnubg's own generator, seeded: the same seed gives the same match.
Each match is exported as ``.mat`` (``export match mat``) to ``--out``; a file already there
is kept (reruns add only the missing ones).

Run::

    python bench/gnubg_selfplay.py --matches 20 --first-seed 9000 --out DIR
    python bench/gnubg_analysis.py DIR/*.mat --json DIR/agreement.json

The seeds of ``../shared/mat`` are not used here: choose ``--first-seed`` outside those the
shared files were made with, so that the measurement is on new matches. The player settings of
each match are printed and written beside it (``DIR/settings.json``).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

GNUBG: Final = "/usr/games/gnubg"
#: The match lengths drawn from (points).
LENGTHS: Final = (1, 3, 5, 5, 7, 7, 9, 11)
#: Each side's depth, in plies, drawn with these weights.
PLIES: Final = ((0, 4), (1, 3), (2, 2))
#: Each side's noise, in points of equity (gnubg's chequer play and cube noise).
NOISES: Final = (0.0, 0.0, 0.005, 0.01, 0.02, 0.03, 0.045, 0.06)


def _command() -> str:
    return GNUBG if Path(GNUBG).exists() else (shutil.which("gnubg") or GNUBG)


def match_settings(seed: int) -> dict[str, object]:
    """The length and both players' settings of the match of ``seed``: ``{"seed", "length",
    "players": [{"name", "plies", "noise"}, ...]}`` (player 0 first, as gnubg numbers them)."""
    rng = random.Random(seed)
    players = []
    for name in ("Alpha", "Bravo"):
        plies = rng.choices([p for p, _ in PLIES], [w for _, w in PLIES])[0]
        players.append({"name": f"{name}{seed}", "plies": plies, "noise": rng.choice(NOISES)})
    return {"seed": seed, "length": rng.choice(LENGTHS), "players": players}


def script(settings: dict[str, object], path: Path) -> str:
    """gnubg's commands that play the match of ``settings`` and export it to ``path``."""
    players = settings["players"]
    assert isinstance(players, list)
    lines = [f"set seed {settings['seed']}", "set automatic roll on", "set automatic game on",
             "set defaultnames " + " ".join(str(p["name"]) for p in players)]
    for number, player in enumerate(players):
        lines += [f"set player {number} gnubg"]
        for part in ("chequerplay", "cubedecision"):
            lines += [
                f"set player {number} {part} evaluation plies {player['plies']}",
                f"set player {number} {part} evaluation noise {player['noise']}",
                f"set player {number} {part} evaluation deterministic on",
            ]
    lines += [f"new match {settings['length']}", f"export match mat {path}", ""]
    return "\n".join(lines)


def make_match(seed: int, out: Path, timeout: float) -> tuple[Path, dict[str, object]]:
    """Play and export the match of ``seed`` into ``out`` (kept when already there).

    Raises:
        RuntimeError: gnubg failed or wrote no file.
    """
    settings = match_settings(seed)
    path = out / f"gnubg_new_{seed}.mat"
    if path.exists():
        return path, settings
    partial = out / f".gnubg_new_{seed}.partial.mat"
    partial.unlink(missing_ok=True)
    done = subprocess.run([_command(), "-t", "-q"], input=script(settings, partial),
                          capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0 or not partial.exists():
        raise RuntimeError(f"gnubg failed on seed {seed} (exit {done.returncode}): "
                           f"{done.stderr.strip()[-300:]}")
    partial.replace(path)  # whole or not at all: an interrupted run leaves no .mat behind
    return path, settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=9000)
    parser.add_argument("--out", type=Path, required=True, help="the folder of the .mat files")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds one match may take")
    args = parser.parse_args(argv)
    if shutil.which(_command()) is None and not Path(_command()).exists():
        print("gnubg is not installed", file=sys.stderr)
        return 1
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    made = {}
    for seed in range(args.first_seed, args.first_seed + args.matches):
        path, settings = make_match(seed, out, args.timeout)
        made[path.name] = settings
        players = settings["players"]
        assert isinstance(players, list)
        print(f"{path.name}: {settings['length']} points, "
              + ", ".join(f"{p['name']} {p['plies']}-ply noise {p['noise']}" for p in players),
              flush=True)
    (out / "settings.json").write_text(json.dumps(made, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
