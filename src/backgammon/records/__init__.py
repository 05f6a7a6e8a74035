"""Records of games and matches: the ``.mat`` transcript (and the JSON game log).

Imports the engine (``backgammon.core``), never the reverse. See :mod:`backgammon.records.mat`.
"""

from backgammon.records.mat import (
    GameResult,
    MatAction,
    MatError,
    MatGame,
    MatParseError,
    MatRecord,
    MatReplay,
    MatReplayError,
    MatWriteError,
    format_mat,
    read_and_replay,
    read_mat,
    record_from_match,
    replay_mat,
    write_mat,
)

__all__ = [
    "GameResult",
    "MatAction",
    "MatError",
    "MatGame",
    "MatParseError",
    "MatRecord",
    "MatReplay",
    "MatReplayError",
    "MatWriteError",
    "format_mat",
    "read_and_replay",
    "read_mat",
    "record_from_match",
    "replay_mat",
    "write_mat",
]
