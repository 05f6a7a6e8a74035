"""Records of games and matches: ``.mat`` transcripts and GNU Backgammon SGF files.

Imports the engine (``backgammon.core``), never the reverse. See :mod:`backgammon.records.mat`
and :mod:`backgammon.records.sgf`; both read into the model of
:mod:`backgammon.records.transcript`.
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
from backgammon.records.transcript import (
    TranscriptError,
    TranscriptParseError,
    TranscriptReplayError,
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
    "TranscriptError",
    "TranscriptParseError",
    "TranscriptReplayError",
    "format_mat",
    "read_and_replay",
    "read_mat",
    "record_from_match",
    "replay_mat",
    "write_mat",
]
