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
    MatLimitError,
    MatParseError,
    MatRecord,
    MatReplay,
    MatReplayError,
    MatWriteError,
    ReadLimits,
    format_mat,
    read_and_replay,
    read_mat,
    record_from_match,
    replay_mat,
    write_mat,
)
from backgammon.records.sgf import (
    SgfError,
    SgfParseError,
    SgfReplayError,
    format_sgf,
    read_and_replay_sgf,
    read_sgf_or_mat,
    write_sgf,
)
from backgammon.records.transcript import (
    TranscriptError,
    TranscriptLimitError,
    TranscriptParseError,
    TranscriptReplayError,
)

__all__ = [
    "GameResult",
    "MatAction",
    "MatError",
    "MatGame",
    "MatLimitError",
    "MatParseError",
    "MatRecord",
    "MatReplay",
    "MatReplayError",
    "MatWriteError",
    "ReadLimits",
    "SgfError",
    "SgfParseError",
    "SgfReplayError",
    "TranscriptError",
    "TranscriptLimitError",
    "TranscriptParseError",
    "TranscriptReplayError",
    "format_mat",
    "format_sgf",
    "read_and_replay",
    "read_and_replay_sgf",
    "read_mat",
    "read_sgf_or_mat",
    "record_from_match",
    "replay_mat",
    "write_mat",
    "write_sgf",
]
