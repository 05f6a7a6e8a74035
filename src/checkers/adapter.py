"""American checkers at the table: the plug-in that :mod:`gametable` runs.

:data:`RULES` is the game's :class:`~gametable.seam.GameRules`: no chance, the computer's
levels, PDN export, and settings of three keys (``start`` and ``ballot``: one at most given):

* ``start``: a PDN FEN to start from (the standard start by default);
* ``ballot``: a three-move ballot (:mod:`checkers.ballots`): its moves (``"11-15 23-18
  8-11"``), its ACF number, or ``"random"``, one of the ACF deck's 156 drawn from the table's
  seed (so the table's record replays it). The game starts from the standard position with
  the ballot's three moves played (they are the game's first moves, in its PDN too); the
  clock starts with the first move after them.
* ``draws``: ``"claim"`` (a new table's default: draws by threefold repetition and the 40-move
  rule are claimed by a player, as the WCDF rules the ACF plays under have it, rules 1.32.1
  and 1.32.2; see :mod:`checkers.game`) or ``"automatic"`` (they end the game as they
  happen). A record saved before this setting existed has none and replays as its game was
  played: automatic (:meth:`CheckersRules.stored_settings`).

A game in progress (:class:`TableGame`) wraps a :class:`checkers.Game`.

Actions (the same JSON through every door):

* ``{"type": "move", "path": [11, 15]}``: a whole move, its full path in PDN squares
  (a multi-jump is one action);
* ``{"type": "offer_draw"}``, ``{"type": "accept_draw"}``, ``{"type": "decline_draw"}``: one
  offer a side between two of its own moves (the table's policy, as backgammon's one
  resignation offer a turn: an opponent is not made to answer offer after offer;
  :func:`draw_offer_refusal`);
* ``{"type": "claim_draw"}``: claim the draw the view's ``claimable`` names (either side, on
  either turn, while the condition holds; refused ``not_allowed`` with the reason otherwise);
* ``{"type": "resign"}``.

A move completes the turn (the clock's increment); an offer or an answer does not. The clock
runs for the side to move from the first move on. While a draw offer waits, the game waits on
the side that must answer (the side to move may still move, which lets the offer lapse; its
clock keeps running).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from checkers.ai import LEVELS, accepts_draw, choose_move, claims_draw
from checkers.ballots import DECK, Ballot, BallotError, draw_ballot, find_ballot
from checkers.errors import CheckersError, IllegalActionError, IllegalMoveError, PdnError
from checkers.game import DRAW_MODES, DrawMode, Game
from checkers.moves import Move, explain_illegal, legal_moves
from checkers.pdn import PdnGame, PdnGameError, PdnMoveError, is_binary, read_pdn, write_pdn
from checkers.position import BLACK, Color, Position
from gametable.errors import ActionRefused
from gametable.seam import Applied, GameInProgress, Offer, Outcome, Side


def draw_offer_refusal(game: Game, color: Color) -> str | None:
    """Why ``color`` may not offer a draw now by the table's policy, or None: it offered one
    since its own last move (one offer a side between two of its moves; the game itself
    refuses an offer while one waits)."""
    side = game.start.turn  # who made each move of the log: the sides alternate
    offered = False
    for entry in game.log:
        if "move" in entry:
            if side is color:
                offered = False
            side = side.opponent
        elif entry.get("offer_draw") == color.value:
            offered = True
    if offered:
        return "you offered one since your last move (one offer a move)"
    return None


#: The action types a checkers game takes.
ACTIONS: Final = ("move", "offer_draw", "accept_draw", "decline_draw", "claim_draw", "resign")
#: The longest path a move can have (a king's jumps take at most 12 pieces).
LONGEST_PATH: Final = 13
#: The ``ballot`` setting that draws one of the deck's ballots from the table's seed.
RANDOM_BALLOT: Final = "random"
#: The most games of one PDN file the page is given (the others are counted).
MAX_GAMES: Final = 200
#: A new table's draws: claimed, as the ACF's rules have them.
DEFAULT_DRAWS: Final[DrawMode] = "claim"
#: The draws of a record saved before the ``draws`` setting: they were automatic then.
STORED_DRAWS: Final[DrawMode] = "automatic"


def _color(side: Side) -> Color:
    return Color.WHITE if side == "white" else Color.BLACK


def _side(color: Color) -> Side:
    return "white" if color is Color.WHITE else "black"


class TableGame:
    """A checkers game in progress, as the table sees it (see :mod:`gametable.seam`).

    Args:
        game: the game.
        ballot: the three-move ballot it started from (its first three moves), or None.
    """

    def __init__(self, game: Game, ballot: Ballot | None = None) -> None:
        self.game = game
        self.ballot = ballot
        self.preset = 0 if ballot is None else len(ballot.moves)

    def to_act(self) -> frozenset[Side]:
        """The side that must answer a draw offer while one waits, else the side to move (who
        may also move while its own offer waits: a move lets the offer lapse)."""
        if self.game.outcome is not None:
            return frozenset()
        if self.game.draw_offer is not None:
            return frozenset({_side(self.game.draw_offer.opponent)})
        return frozenset({_side(self.game.turn)})

    def offer(self) -> Offer | None:
        """The draw offer waiting, if any."""
        by = self.game.draw_offer
        return None if by is None else Offer("draw", _side(by))

    def on_clock(self) -> Side | None:
        """The side to move, once the first move is made (the clock starts with it; a ballot's
        moves do not count)."""
        if self.game.outcome is not None or len(self.game.moves) <= self.preset:
            return None
        return _side(self.game.turn)

    def apply(self, side: Side, action: Mapping[str, Any]) -> Applied:
        """Carry out ``side``'s action, all or nothing (see the module docstring).

        Raises:
            ActionRefused: ``invalid_action`` (malformed), ``not_your_turn``, ``illegal_move``
                (with the reason in words), ``not_allowed``.
        """
        kind = action.get("type")
        if not isinstance(kind, str) or kind not in ACTIONS:
            raise ActionRefused(
                "invalid_action", f"action type {kind!r} is not one of {', '.join(ACTIONS)}"
            )
        unknown = sorted(set(action) - {"type", "path"})
        if unknown or (kind != "move" and "path" in action):
            fields = ", ".join(unknown or ["path"])
            raise ActionRefused("invalid_action", f"unexpected field(s) for {kind}: {fields}")
        color = _color(side)
        before = len(self.game.log)
        try:
            if kind == "move":
                self._move(color, action.get("path"))
            elif kind == "offer_draw":
                refusal = draw_offer_refusal(self.game, color)
                if refusal is not None:
                    raise ActionRefused("not_allowed", f"you cannot offer a draw now: {refusal}")
                self.game.offer_draw(color)
            elif kind == "accept_draw":
                self.game.accept_draw(color)
            elif kind == "decline_draw":
                self.game.decline_draw(color)
            elif kind == "claim_draw":
                self.game.claim_draw(color)
            else:
                self.game.resign(color)
        except IllegalMoveError as error:
            raise ActionRefused("illegal_move", str(error)) from error
        except IllegalActionError as error:
            raise ActionRefused("not_allowed", str(error)) from error
        except CheckersError as error:
            raise ActionRefused("invalid_action", str(error)) from error
        return Applied(tuple(self.game.log[before:]), turn_complete=kind == "move")

    def _move(self, color: Color, path: object) -> None:
        if (
            not isinstance(path, list)
            or not 2 <= len(path) <= LONGEST_PATH
            or not all(type(s) is int and 1 <= s <= 32 for s in path)
        ):
            raise ActionRefused(
                "invalid_action", f"a move's path is 2 to 13 squares 1-32, not {path!r}"
            )
        if self.game.outcome is not None:
            raise IllegalActionError(f"the game is over ({self.game.outcome})")
        if color is not self.game.turn:
            raise ActionRefused("not_your_turn", f"it is {self.game.turn.value}'s move")
        squares = tuple(path)
        move = next((m for m in self.game.legal_moves() if m.path == squares), None)
        if move is None:
            raise IllegalMoveError(explain_illegal(self.game.position, squares))
        self.game.play(move)

    def time_out(self, side: Side) -> None:
        """``side`` lost on time."""
        self.game.time_out(_color(side))

    def forfeit(self, side: Side) -> None:
        """``side`` forfeits (an online room's referee decision): the opponent wins."""
        self.game.forfeit(_color(side))

    def outcome(self) -> Outcome | None:
        """The table's outcome: the winner's side (None for a draw), the reason, 1 point to
        the winner."""
        ended = self.game.outcome
        if ended is None:
            return None
        winner = None if ended.winner is None else _side(ended.winner)
        return Outcome(winner, ended.reason.value, 0 if winner is None else 1)

    def log(self) -> list[dict[str, Any]]:
        """The game's event log (:meth:`checkers.Game.replay` reads it)."""
        return [dict(event) for event in self.game.log]

    def view(
        self, side: Side | None, *, names: Mapping[Side, str] | None = None
    ) -> dict[str, Any]:
        """The board, whose move it is, the legal moves (to the side to move, or a spectator),
        whether a capture is forced, the last move, the move list in PDN, the pieces left
        (``pieces``: each side's men and kings) and taken (``captured``: how many of the
        opponent's pieces each side has taken since the game's start), the ballot, the draw
        counts and mode (``quiet_plies``, ``repetitions``, ``draws``), the draw ``side`` can
        claim now (``claimable``: ``"threefold repetition"``, ``"40-move rule"`` or None;
        None for a spectator) and the side that claimed the draw that ended the game
        (``claimed_by``) and what ``side`` can do now (``can``, ``claim_draw`` among it).
        ``names`` changes nothing: the checkers page words the view itself."""
        game = self.game
        position = game.position
        over = game.outcome is not None
        mover = _side(game.turn)
        legal = [] if over else game.legal_moves()
        shown = legal if side in (None, mover) else []
        last = game.moves[-1] if game.moves else None
        me = None if side is None else _color(side)
        offer_to_me = me is not None and game.draw_offer is not None and game.draw_offer is not me
        claimable = None if me is None else game.claimable(me)
        claimed = None if game.outcome is None else game.outcome.claimed_by
        return {
            "board": {str(sq): piece.value for sq, piece in position.pieces().items()},
            "fen": position.fen(),
            "turn": mover,
            "legal": [list(m.path) for m in shown],
            "capture_forced": bool(legal) and legal[0].is_capture,
            "last_move": None
            if last is None
            else {"path": list(last.path), "captures": list(last.captures)},
            "moves": [str(m) for m in game.moves],
            "pieces": {
                "black": dict(zip(("men", "kings"), position.count(Color.BLACK), strict=True)),
                "white": dict(zip(("men", "kings"), position.count(Color.WHITE), strict=True)),
            },
            "captured": {
                "black": _lost(game.start, position, Color.WHITE),
                "white": _lost(game.start, position, Color.BLACK),
            },
            "ballot": None
            if self.ballot is None
            else {
                "number": self.ballot.number,
                "moves": list(self.ballot.moves),
                "name": self.ballot.name,
                "label": self.ballot.label,
            },
            "quiet_plies": game.quiet_plies,
            "repetitions": game.repetitions(),
            "draws": game.draws,
            "claimable": None if claimable is None else claimable.value,
            "claimed_by": None if claimed is None else _side(claimed),
            "can": {
                "move": not over and side == mover,
                "offer_draw": not over and me is not None and game.draw_offer is None
                and draw_offer_refusal(game, me) is None,
                "accept_draw": not over and offer_to_me,
                "decline_draw": not over and offer_to_me,
                "claim_draw": claimable is not None,
                "resign": not over and me is not None,
            },
        }


#: The rules page's worked examples: ``(id, title, FEN, caption)``; the engine works out each
#: one's legal moves and outcome (:meth:`CheckersRules.rule_examples`), and
#: ``tests/checkers/test_checkers_rules_page.py`` checks that the captions say what it finds.
RULE_EXAMPLES: Final = (
    (
        "mandatory-capture",
        "A capture is mandatory",
        "B:W18:B9,14",
        "Black to move. The man on 14 can jump White's man on 18, so it must: 14x23 is the "
        "only legal move, and the quiet moves 9-13, 9-14 and 14-17 are not allowed.",
    ),
    (
        "multi-jump",
        "A multi-jump is one move, and it is finished",
        "B:W6,15,24:B1",
        "Black to move. The man on 1 jumps 6, lands on 10, can jump again, and must: "
        "1x10x19x28 takes three men in one move. A jump may not stop half way.",
    ),
    (
        "crowning",
        "Crowning ends the move",
        "B:W26,27:B22",
        "Black to move. The man on 22 jumps 26 and lands on 31, Black's king row: it is "
        "crowned, and the move ends there. As a king it could jump 27 next, but not in this "
        "move: 22x31 is the whole move.",
    ),
    (
        "blocked",
        "A side that cannot move loses",
        "W:W29:B22,25",
        "White to move, and White's last man cannot: 25 is taken, and the jump over 25 "
        "lands on 22, also taken. A side with no legal move has lost, pieces or not: Black "
        "wins.",
    ),
    (
        "forty-moves",
        "The 40-move rule",
        "B:WK30:BK1",
        "One king each: neither side can force a win. Once both sides have made 40 moves "
        "(80 in all) in which no piece was captured and no man moved, either player may "
        "claim a draw, and the page offers the claim. Any capture or move of a man starts "
        "the count again. The page shows the count from 20 moves on.",
    ),
)


def _lost(start: Position, now: Position, color: Color) -> int:
    """How many of ``color``'s pieces were taken between ``start`` and ``now`` (a man crowned
    is the same piece)."""
    return sum(start.count(color)) - sum(now.count(color))


def _check_playable(fen: str) -> None:
    """Refuse a new game's start where the game is already over: a side without pieces, or the
    side to move without a legal move.

    Raises:
        ActionRefused: ``invalid_settings`` saying which.
    """
    position = Position.from_fen(fen)
    for side in (position.turn, position.turn.opponent):
        if not position.side_mask(side):
            raise ActionRefused("invalid_settings", f"start {fen!r}: the game in that position "
                                f"is over: {side} has no pieces")
    if not legal_moves(position):
        raise ActionRefused("invalid_settings", f"start {fen!r}: the game in that position is "
                            f"over: {position.turn} has no legal move")


class CheckersRules:
    """American checkers as a :class:`~gametable.seam.GameRules`."""

    name: str = "checkers"
    needs_chance: bool = False
    levels: tuple[str, ...] = LEVELS

    def settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """``{"start": FEN or None, "ballot": the ballot's moves, "random" or None, "draws":
        "claim" (the default) or "automatic"}``.

        Raises:
            ActionRefused: ``invalid_settings`` for an unknown setting, a bad FEN, a ballot
                that is not in the ACF's deck (unknown or barred), both a start and a
                ballot, or a ``draws`` that is not a draw mode.
        """
        return self._settings(raw, DEFAULT_DRAWS)

    def stored_settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """A saved record's settings: as :meth:`settings`, but a record without ``draws``
        (saved before the setting existed) was played with automatic draws, and replays so.

        Raises:
            ActionRefused: as :meth:`settings`.
        """
        return self._settings(raw, STORED_DRAWS)

    def _settings(self, raw: Mapping[str, Any], default_draws: DrawMode) -> dict[str, Any]:
        unknown = sorted(set(raw) - {"start", "ballot", "draws"})
        if unknown:
            raise ActionRefused(
                "invalid_settings", f"unknown checkers setting(s): {', '.join(unknown)}"
            )
        draws = raw.get("draws", default_draws)
        if draws not in DRAW_MODES:
            raise ActionRefused(
                "invalid_settings", f"draws {draws!r} is not one of {', '.join(DRAW_MODES)}"
            )
        return {**self._position_settings(raw), "draws": draws}

    def _position_settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        start = raw.get("start")
        ballot = raw.get("ballot")
        if ballot is not None:
            if start is not None:
                raise ActionRefused(
                    "invalid_settings",
                    "a three-move ballot starts from the usual position: give a start or a "
                    "ballot, not both",
                )
            if ballot == RANDOM_BALLOT:
                return {"start": None, "ballot": RANDOM_BALLOT}
            if not isinstance(ballot, (str, int)) or isinstance(ballot, bool):
                raise ActionRefused("invalid_settings", f"ballot {ballot!r} is not a ballot")
            try:
                return {"start": None, "ballot": find_ballot(ballot).key}
            except BallotError as error:
                raise ActionRefused("invalid_settings", str(error)) from error
        if start is None:
            return {"start": None, "ballot": None}
        if not isinstance(start, str):
            raise ActionRefused("invalid_settings", f"start {start!r} is not a FEN")
        try:
            fen = Position.from_fen(start).fen()
        except CheckersError as error:
            raise ActionRefused("invalid_settings", str(error)) from error
        return {"start": fen, "ballot": None}

    def set_up(self, settings: Mapping[str, Any]) -> bool:
        """Whether ``settings`` (checked) start from a position other than the standard start
        (a ballot is not a set-up: its game starts from the usual position)."""
        start = settings.get("start")
        return start is not None and Position.from_fen(start) != Position.start()

    def _start(self, settings: Mapping[str, Any]) -> Position | None:
        start = settings.get("start")
        return None if start is None else Position.from_fen(start)

    def _draws(self, settings: Mapping[str, Any]) -> DrawMode:
        return "claim" if settings.get("draws", STORED_DRAWS) == "claim" else "automatic"

    def ballot(self, settings: Mapping[str, Any], seed: int) -> Ballot | None:
        """The settings' ballot: the one named, or for ``"random"`` the one the table's
        ``seed`` draws (the same every time); None without a ballot."""
        key = settings.get("ballot")
        if key is None:
            return None
        if key == RANDOM_BALLOT:
            return draw_ballot(random.Random(f"ballot:{seed}"))
        return find_ballot(key)

    def new(self, settings: Mapping[str, Any], seed: int) -> TableGame:
        """A new game from the settings' start, or with the settings' ballot's three moves
        played (``seed`` draws a random ballot).

        Raises:
            ActionRefused: ``invalid_settings`` for a start where the game is already over (a
                side without pieces, the side to move without a legal move); a saved table
                with one still replays (:meth:`replay`).
        """
        if settings.get("start") is not None:
            _check_playable(settings["start"])
        ballot = self.ballot(settings, seed)
        game = Game(self._start(settings), self._draws(settings))
        if ballot is not None:
            for move in ballot.moves:
                game.play(move)
        return TableGame(game, ballot)

    def replay(
        self, settings: Mapping[str, Any], seed: int, log: list[dict[str, Any]]
    ) -> TableGame:
        """The game rebuilt from its event log.

        Raises:
            ActionRefused: ``invalid_log`` naming the first bad event.
        """
        try:
            game = Game.replay(log, self._start(settings), self._draws(settings))
            ballot = self.ballot(settings, seed)
        except CheckersError as error:
            raise ActionRefused("invalid_log", str(error)) from error
        if ballot is not None and [str(m) for m in game.moves[:3]] != list(ballot.moves):
            raise ActionRefused(
                "invalid_log", f"the log does not begin with the ballot {ballot.label}"
            )
        return TableGame(game, ballot)

    def computer_action(
        self, game: GameInProgress, side: Side, level: str, rng: random.Random
    ) -> dict[str, Any]:
        """The computer's answer to a draw offer made to it, else its claim of a draw it can
        claim when it does not stand better (:func:`checkers.ai.claims_draw`, judged on the
        search that finds its move), else its move (the table times it: ``thought``)."""
        checkers_game = _checkers_game(game)
        offer = checkers_game.draw_offer
        color = _color(side)
        if offer is not None and offer is not color:
            accept = accepts_draw(checkers_game, color, level, rng=rng)
            return {"type": "accept_draw" if accept else "decline_draw"}
        found = choose_move(
            checkers_game.position, level, rng=rng, history=checkers_game.positions[:-1]
        )
        if checkers_game.claimable(color) is not None and claims_draw(
            found, checkers_game.position
        ):
            return {"type": "claim_draw"}
        return {"type": "move", "path": list(found.move.path)}

    def exports(self) -> Mapping[str, Callable[[GameInProgress, Mapping[str, str]], str]]:
        """``{"pdn": write(game, tags)}``: the game as a PDN file."""

        def pdn(game: GameInProgress, tags: Mapping[str, str]) -> str:
            return write_pdn(PdnGame.from_game(_checkers_game(game), tags))

        return {"pdn": pdn}

    # ------------------------------------------------------------ what the page asks for

    def review(self, game: GameInProgress) -> dict[str, Any]:
        """Every position of a game in progress, to step through (:func:`review_frames`)."""
        played = _checkers_game(game)
        return review_frames(played.start, list(played.moves), list(played.positions))

    def ballot_list(self) -> list[dict[str, Any]]:
        """The ACF deck's 156 ballots, in ACF order: ``[{"key", "number", "moves", "name",
        "label"}]`` (``key`` is what the ``ballot`` setting takes)."""
        return [
            {
                "key": b.key,
                "number": b.number,
                "moves": list(b.moves),
                "name": b.name,
                "label": b.label,
            }
            for b in DECK
        ]

    def rule_examples(self) -> list[dict[str, Any]]:
        """The rules page's worked examples (:data:`RULE_EXAMPLES`), each worked out by the
        engine: ``[{"id", "title", "fen", "board": {square: "b"|"B"|"w"|"W"}, "turn",
        "legal": [move text], "shown": {"path", "captures"} or None, "outcome": words or None,
        "caption"}]``; ``shown`` is the first legal move when it is a capture (the one the
        caption is about)."""
        out = []
        for example_id, title, fen, caption in RULE_EXAMPLES:
            position = Position.from_fen(fen)
            game = Game(position)
            legal = game.legal_moves()
            first = legal[0] if legal and legal[0].is_capture else None
            out.append(
                {
                    "id": example_id,
                    "title": title,
                    "fen": position.fen(),
                    "board": {str(sq): piece.value for sq, piece in position.pieces().items()},
                    "turn": _side(position.turn),
                    "legal": [str(move) for move in legal],
                    "shown": None
                    if first is None
                    else {"path": list(first.path), "captures": list(first.captures)},
                    "outcome": None if game.outcome is None else str(game.outcome),
                    "caption": caption,
                }
            )
        return out

    def open_pdn(self, text: str) -> dict[str, Any]:
        """Every game of a PDN text, as the page opens it (:func:`pdn_games`).

        Raises:
            ActionRefused: ``pdn_unreadable`` for text that cannot be read at all (binary
                data among them), ``no_games`` for text that holds no game.
        """
        if is_binary(text):
            raise ActionRefused("pdn_unreadable", "not a PDN text: the file holds binary data, "
                                "not text")
        try:
            answer = pdn_games(text)
        except PdnError as error:
            raise ActionRefused("pdn_unreadable", str(error)) from error
        if not answer["count"]:
            raise ActionRefused("no_games", "no checkers game found (is this a PDN file?)")
        return answer


# ---------------------------------------------------------------- review and PDN files


def board_text(position: Position) -> str:
    """The 32 squares of ``position`` as letters (``b``, ``B``, ``w``, ``W``, ``.``)."""
    return "".join(
        "." if (piece := position.piece_at(square)) is None else piece.value
        for square in range(1, 33)
    )


def review_frames(
    start: Position, moves: Sequence[Move], positions: Sequence[Position]
) -> dict[str, Any]:
    """The frames of a game (see the module docstring): ``positions[i]`` is the position
    before ``moves[i]``; there is one more position than moves.

    Raises:
        ValueError: when the counts do not fit.
    """
    if len(positions) != len(moves) + 1:
        raise ValueError(
            f"{len(moves)} moves need {len(moves) + 1} positions, not {len(positions)}"
        )
    first = "black" if start.turn is BLACK else "white"
    offset = 0 if first == "black" else 1
    out = []
    for index, move in enumerate(moves):
        side = "black" if (index + offset) % 2 == 0 else "white"
        out.append(
            {
                "text": str(move),
                "path": list(move.path),
                "captures": list(move.captures),
                "side": side,
                "number": (index + offset) // 2 + 1,
            }
        )
    return {
        "start": start.fen(),
        "first": first,
        "moves": out,
        "boards": [board_text(position) for position in positions],
    }


def _side_name(color: object) -> str:
    return "Black" if color is BLACK else "White"


def error_words(error: PdnGameError) -> dict[str, Any]:
    """A game's problem for the page: ``{"message", "line", "move_number", "side", "move",
    "reason"}`` (the last four None unless a move was refused); ``message`` says the game,
    the move number, the side and the reason in words."""
    if isinstance(error, PdnMoveError):
        reason = error.reason
        if error.move_text not in reason:
            reason = f"{error.move_text}: {reason}"
        side = _side_name(error.side)
        message = (
            f"Game {error.game}, move {error.move_number} ({side}, line {error.line}): {reason}"
        )
        return {
            "message": message,
            "line": error.line,
            "move_number": error.move_number,
            "side": side.lower(),
            "move": error.move_text,
            "reason": error.reason,
        }
    return {
        "message": f"Game {error.game}, line {error.line}: {error.reason}",
        "line": error.line,
        "move_number": None,
        "side": None,
        "move": None,
        "reason": error.reason,
    }


def _title(game: PdnGame) -> str:
    """``Black – White (Event)``, as the tags give them (``Game N`` without players)."""
    tags = game.tags
    players = " – ".join(tags[name] for name in ("Black", "White") if tags.get(name))
    event = tags.get("Event", "").strip()
    year = tags.get("Date", "")[:4]
    if not event and year.isdigit():
        event = year
    title = players or f"Game {game.number}"
    return f"{title} ({event})" if event and event != "?" else title


def pdn_games(text: str) -> dict[str, Any]:
    """Every game of a PDN text as the page opens it: ``{"count", "games": [{"number",
    "line", "title", "tags", "result", "ok", "error" (None or :func:`error_words`), and the
    frames}], "left_out"}``.

    Raises:
        PdnError: the text cannot be read at all.
    """
    games = read_pdn(text)
    shown = []
    for game in games[:MAX_GAMES]:
        shown.append(
            {
                "number": game.number,
                "line": game.line,
                "title": _title(game),
                "tags": dict(game.tags),
                "result": game.result,
                "ok": game.ok,
                "error": None if game.error is None else error_words(game.error),
                **review_frames(game.start, game.moves, game.positions),
            }
        )
    return {"count": len(games), "games": shown, "left_out": max(0, len(games) - MAX_GAMES)}


def _checkers_game(game: GameInProgress) -> Game:
    if not isinstance(game, TableGame):
        raise TypeError(f"not a checkers game: {type(game).__name__}")
    return game.game


#: The plug-in.
RULES: Final = CheckersRules()
