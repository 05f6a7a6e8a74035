"""``backgammon train [OPTIONS]``: train the nets by TD(λ) self-play.

The same as ``python -m backgammon.training.td``; every option is that module's (``backgammon
train --help`` lists them). The training code is imported only when this command runs.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "train",
        help="train the computer's nets by self-play (TD(λ); resumable)",
        description="Train the nets by TD(λ) self-play: see backgammon.training.td.",
        add_help=False,
    )
    parser.add_argument("options", nargs=argparse.REMAINDER,
                        help="options of backgammon.training.td (--games, --resume, ...)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return train(args.options)


def train(options: list[str]) -> int:
    """Run the training with ``options`` (the training module's command line)."""
    from backgammon.training import td

    return td.main(options)
