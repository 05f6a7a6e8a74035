"""Game sessions: a game, match or money session in the browser, saved after every action.

:class:`GameService` is what the local door's HTTP layer (``/api/games``) calls. Each session
owns a :class:`gametable.table.Table` with backgammon's plug-in (:mod:`backgammon.adapter`):
the person's actions and the computer's go through the table's one action gate as the same
action JSON as every other door (a play built checker by checker is the plug-in's
``move_checker``, ``undo`` and ``end_turn``), the table's one turn clock times them, and the
session saves its record (settings, the match's event log, the clock) to the
:class:`~gametable.game_store.GameStore` after every action and describes it to the page
as a :class:`~backgammon.services.state.GameState` (the game's view,
:func:`backgammon.services.table.describe`, with the session's own fields).

This module decides only what is the local door's business: whose seat the computer holds,
which side a person at this screen acts for, the computer's turn shown step by step, the words
the page shows, the browser's list of recent games and its record.

Every action is all-or-nothing (the table's gate and the plug-in refuse before anything
changes). A session whose save fails is dropped from memory, so what the page sees next is
what the database holds.

A timed game (``time_control`` other than ``"none"``) runs on the table's clock, held by a
:class:`gametable.presence.Presence` while no page watches (the rules are there): every
request about the game first brings the clock up to now (recording a timeout when a side ran
out), and the clock is saved with the game (``record["clock"]``: ``{"game": n, "clock"}``).
"""

from __future__ import annotations

import dataclasses
import random
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar, cast

from backgammon.adapter import RULES, TableMatch
from backgammon.core.errors import BackgammonError, InvalidLogError
from backgammon.core.game import DiceLike, Game, Phase
from backgammon.core.match import Match
from backgammon.core.types import BLACK, WHITE, Color
from backgammon.core.xgid import Xgid
from backgammon.services.clock import TIME_CONTROLS, ClockError, TimeControl
from backgammon.services.computer import LEVELS, ComputerPlayer, computer_player
from backgammon.services.computer_turn import ComputerTurn
from backgammon.services.review import players_words
from backgammon.services.seeds import derived_rng, new_seed, parse_seed
from backgammon.services.setup import ids_json, setup_match
from backgammon.services.state import (
    ClockCheckJSON,
    ClockJSON,
    ComputerTurnJSON,
    GameState,
    Place,
    PlayerJSON,
    RecentGameJSON,
    SettingsJSON,
    TimeControlName,
)
from backgammon.services.stats import StatsStore, check_browser_id, finished_game
from backgammon.services.table import (
    color_name,
    describe,
    phase_name,
    phase_words,
    rematch_sides,
)
from backgammon.services.words import Names
from backgammon.services.words import title as title_of
from gametable.clock import Clock
from gametable.clock import ClockError as TableClockError
from gametable.errors import ActionRefused
from gametable.game_store import (
    TOKEN_HASH_KEY,
    GameNotFoundError,
    GameStore,
    StoredGame,
    StoredGameError,
)
from gametable.presence import ANONYMOUS_PAGE, Presence
from gametable.seam import SIDES as TABLE_SIDES
from gametable.seam import Side
from gametable.table import Seat, Table

T = TypeVar("T")

#: Modes, kinds of session and sides the page may ask for.
MODES: Final = ("computer", "pass_and_play")
KINDS: Final = ("single", "match", "money")
SIDES: Final = ("white", "black", "random")
#: Longest match the page offers, in points.
MAX_MATCH_LENGTH: Final = 25
#: Sessions kept in memory (the rest are read back from the store when asked for).
CACHE_SIZE: Final = 256
#: The bytes of memory a session takes for each byte of its saved record, about (a money
#: session replayed, its games' histories made: 17 on 64-bit CPython 3.11).
MEMORY_PER_RECORD_BYTE: Final = 20
#: The memory the sessions kept may take together, estimated from their records' sizes: a
#: record may hold megabytes, so a count alone would not bound them.
DEFAULT_MEMORY_BYTES: Final = 256 << 20

class NotYourGameError(BackgammonError):
    """A browser asked to delete a game another browser started (or one no browser did)."""


#: The page's anonymous browser id (as for saved positions): 8 to 64 URL-safe characters.
BROWSER_ID: Final = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
#: How many of a browser's unfinished games :meth:`GameService.recent` lists at most.
RECENT_LIMIT: Final = 10
#: How many of a browser's newest saves it looks through for them.
_RECENT_SCAN: Final = 50



@dataclass(frozen=True, slots=True)
class GameOptions:
    """What a new session is asked for (the page's New game form).

    Attributes:
        mode: ``"computer"`` (a person against the computer) or ``"pass_and_play"`` (two
            people at one screen).
        level: the computer's level: ``"easy"``, ``"medium"`` or ``"hard"``.
        side: the person's side against the computer: ``"white"``, ``"black"`` or
            ``"random"`` (drawn when the session starts).
        cube: play with the doubling cube.
        gammons: count gammons and backgammons (on by default); off, every win scores a
            single game times the cube.
        kind: ``"single"`` (one game), ``"match"`` (to ``length`` points, Crawford rule) or
            ``"money"`` (games one after another with a running total).
        length: the match length in points, 1..25 for a match (ignored otherwise).
        time_control: the clock: ``"none"``, ``"bullet"``, ``"blitz"`` or ``"rapid"``
            (:data:`~backgammon.services.clock.TIME_CONTROLS`).
        jacoby: the Jacoby rule (money play with the cube), as online play offers it.
        beavers: beavers allowed (money play with the cube).

    Raises:
        ValueError: (on construction) a value not listed above, quoted.
    """

    mode: str = "computer"
    level: str = "easy"
    side: str = "white"
    cube: bool = True
    gammons: bool = True
    kind: str = "single"
    length: int = 0
    time_control: str = "none"
    jacoby: bool = False
    beavers: bool = False

    def __post_init__(self) -> None:
        for name, allowed in (("mode", MODES), ("level", LEVELS), ("side", SIDES),
                              ("kind", KINDS), ("time_control", tuple(TIME_CONTROLS))):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
        for flag in ("cube", "gammons", "jacoby", "beavers"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be true or false, got {getattr(self, flag)!r}")
        for rule, name in ((self.jacoby, "the Jacoby rule"), (self.beavers, "beavers")):
            if rule and (self.kind != "money" or not self.cube):
                raise ValueError(f"{name} is for money play with the cube")
        if self.kind == "match" and not (
            isinstance(self.length, int) and 1 <= self.length <= MAX_MATCH_LENGTH
        ):
            raise ValueError(
                f"a match is 1 to {MAX_MATCH_LENGTH} points long, got {self.length!r}"
            )


def _settings_json(options: GameOptions, human: Color | None) -> SettingsJSON:
    return {
        "mode": cast(Literal["computer", "pass_and_play"], options.mode),
        "level": cast(Literal["easy", "medium", "hard", "expert", "master"], options.level),
        "human": color_name(human) if human is not None else None,
        "cube": options.cube,
        "gammons": options.gammons,
        "kind": cast(Literal["single", "match", "money"], options.kind),
        "length": options.length if options.kind == "match" else 0,
        "time_control": cast(TimeControlName, options.time_control),
        "jacoby": options.jacoby,
        "beavers": options.beavers,
    }


def _check_settings(game_id: str, data: dict[str, Any]) -> SettingsJSON:
    """The stored settings, checked; raises :class:`StoredGameError` naming the problem. (Games
    saved before clocks existed have no ``time_control``: they are untimed; games saved before
    the gammons setting count gammons.)"""
    data = {"time_control": "none", "gammons": True, "jacoby": False, "beavers": False, **data}
    expected = {"mode", "level", "human", "cube", "gammons", "kind", "length", "time_control",
                "jacoby", "beavers"}
    if set(data) != expected:
        raise StoredGameError(
            f"saved game {game_id!r} is damaged: its settings have the keys "
            f"{sorted(data)}, expected {sorted(expected)}"
        )
    try:
        options = GameOptions(mode=data["mode"], level=data["level"], cube=data["cube"],
                              gammons=data["gammons"], kind=data["kind"], length=data["length"],
                              time_control=data["time_control"], jacoby=data["jacoby"],
                              beavers=data["beavers"])
    except ValueError as exc:
        raise StoredGameError(f"saved game {game_id!r} is damaged: {exc}") from None
    human = data["human"]
    if options.mode == "computer" and human not in ("white", "black"):
        raise StoredGameError(
            f"saved game {game_id!r} is damaged: the person's side is {human!r}"
        )
    if options.mode == "pass_and_play" and human is not None:
        raise StoredGameError(
            f"saved game {game_id!r} is damaged: pass & play has no computer side"
        )
    return cast(SettingsJSON, dict(data))


class _Session:
    """One game, match or money session: its settings and the :class:`~gametable.table.Table`
    that plays it (a single game and a money session are matches of length 0; a single game
    stops after one game), with the pages watching it when it is timed."""

    def __init__(self, game_id: str, settings: SettingsJSON, table: Table, version: int,
                 now: Callable[[], float], browser: str | None = None,
                 owner: str | None = None) -> None:
        self.id = game_id
        #: The client address that started it, when this process did (the store keeps it
        #: from the first save, for its bounds).
        self.owner = owner
        self.settings = settings
        #: The table: its seats, its one action gate and its one clock.
        self.table = table
        #: Who watches it, and the clock rules that follow (None when untimed).
        self.presence: Presence | None = None if table.clock is None else Presence(table, now)
        self.version = version
        #: The anonymous id of the browser that started it (None: unknown), for its list of
        #: recent games and its record (the games it finished).
        self.browser = browser
        self.lock = threading.Lock()
        #: The bytes of its record as last saved or read (its memory is estimated from it).
        self.size = 0

    @property
    def table_match(self) -> TableMatch:
        return cast(TableMatch, self.table.game)

    @property
    def match(self) -> Match:
        return self.table_match.match

    @property
    def game(self) -> Game:
        return self.match.current

    @property
    def games(self) -> tuple[Game, ...]:
        return self.match.games

    @property
    def human(self) -> Color | None:
        side = self.settings["human"]
        return None if side is None else Color.parse(side)

    @property
    def computer(self) -> Color | None:
        human = self.human
        return None if human is None else human.opponent

    @property
    def over(self) -> bool:
        """Whether no further game can be played: a single game played, or a match won."""
        return self.table_match.over

    def record(self) -> dict[str, Any]:
        """What the store keeps: the game's name (``"game": "backgammon"``, as the table's
        records name it), the settings, the match's log (the table's log entry), the version,
        the clock of the current game (``{"game": n, "clock": Clock.to_dict()}``) and the
        browser."""
        record: dict[str, Any] = {"game": RULES.name, "settings": dict(self.settings),
                                  "log": self.match.to_log(), "version": self.version}
        clock = self.table.clock
        if clock is not None:
            record["clock"] = {"game": len(self.games), "clock": clock.to_dict()}
        if self.browser is not None:
            record["browser"] = self.browser
        return record


#: How the person's refusals name an action: "you cannot roll now: ...".
_VERBS: Final[Mapping[str, str]] = {
    "roll": "roll", "move": "move", "move_checker": "move", "undo": "undo",
    "end_turn": "end the turn", "double": "double", "take": "take", "beaver": "beaver",
    "raccoon": "raccoon", "drop": "drop", "resign": "resign",
    "accept_resignation": "accept the resignation",
    "decline_resignation": "decline the resignation", "next_game": "start the next game",
}


class GameService:
    """Sessions of the web game: create, act, let the computer act, describe; thread-safe.

    Each session owns a :class:`~gametable.table.Table` with backgammon's plug-in
    (:mod:`backgammon.adapter`): every action, the person's and the computer's, goes through
    :meth:`Table.act <gametable.table.Table.act>` as the same action JSON as the table's
    other doors (``{"type": "roll"}``, ``{"type": "move_checker", "from": 13, "to": 7}``,
    ...), and the table's one clock is held by :class:`~gametable.presence.Presence` while
    nobody watches.

    Args:
        store: where sessions are saved.
        rng: the generator the seeds of new sessions are drawn from (and, for sessions
            without a seed, the random side and the computer's choices); ``None`` uses the
            operating system's entropy. Tests pass ``random.Random(seed)``.
        dice: the dice every game throws (``roll()`` and ``opening_roll()``), for tests
            (:class:`~backgammon.core.dice.FixedDice`); sessions then have no seed. Default:
            each session has a seed (:mod:`backgammon.services.seeds`) and its dice are
            ``Dice(random.Random(seed))``.
        stats: where the games finished by a browser are counted
            (:mod:`backgammon.services.stats`); None counts nothing.
        players: builds the computer for a level (default
            :func:`~backgammon.services.computer.computer_player`); tests inject their own.
        now: the clocks' time source, monotonic seconds (default :func:`time.monotonic`);
            tests pass a fake clock.
        time_controls: the values of the named time controls (default
            :data:`~backgammon.services.clock.TIME_CONTROLS`; tests shorten them).
        memory_bytes: the memory the sessions kept in memory may take together, estimated
            (:data:`MEMORY_PER_RECORD_BYTE` a byte of their records); the ones used least
            recently are let go past it (and past :data:`CACHE_SIZE` sessions), and read
            back from the store when asked for.

    Every method that takes a ``game_id`` raises :class:`GameNotFoundError` for an unknown
    id and :class:`StoredGameError` for a saved session that does not replay; actions raise
    :class:`~gametable.errors.ActionRefused` (``not_your_turn``, ``not_allowed``,
    ``illegal_move``, ``invalid_action``, ``game_over``: the table's codes) and then change
    nothing.
    """

    def __init__(
        self,
        store: GameStore,
        *,
        rng: random.Random | None = None,
        dice: DiceLike | None = None,
        players: Callable[[str, random.Random], ComputerPlayer] = computer_player,
        now: Callable[[], float] = time.monotonic,
        time_controls: Mapping[str, TimeControl | None] | None = None,
        stats: StatsStore | None = None,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
    ) -> None:
        self._now = now
        self.max_memory = memory_bytes
        self._memory = 0  # the sessions kept, estimated (bytes)
        self._controls = dict(TIME_CONTROLS if time_controls is None else time_controls)
        self._store = store
        self._rng = rng if rng is not None else random.SystemRandom()
        #: Injected dice (tests) or None: each session's own seeded dice.
        self._dice: DiceLike | None = dice
        self._stats = stats
        self._players = players
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()

    # ----------------------------------------------------------------------------------------
    # Sessions

    def create(self, options: GameOptions, setup: Xgid | None = None, *,
               seed: int | str | None = None, browser: str | None = None,
               owner: str | None = None) -> GameState:
        """Start a session with its first game (nobody has rolled) and save it.

        Args:
            options: the New game form.
            setup: start from this position instead (:mod:`backgammon.services.setup`): its
                side on roll, dice, cube, score and match length. The session is then a match
                of the setup's length (a single game in money play) without a clock; its
                ``kind`` and ``length`` options are ignored.
            seed: the session's seed (checked by
                :func:`~backgammon.services.seeds.parse_seed`); None draws a new one. The
                same seed gives the same dice (and the same side drawn at random, the same
                choices of the computer). Ignored when the service was given fixed dice.
            browser: the anonymous id of the browser starting it (:data:`BROWSER_ID`), kept
                with the game: its list of recent games (:meth:`recent`) and its record
                count the games this session finishes (:mod:`backgammon.services.stats`);
                None: neither.
            owner: the client address starting it: the games of one address are bounded
                together in the store (:class:`~gametable.game_store.GameStore`).

        Returns:
            The state of the new session (``phase`` ``"opening"``, or the setup's).

        Raises:
            SetupError: the setup cannot be played with these options (a cube in play in a
                game without the cube, a double the rules refuse).
            SeedError: a seed out of range.
            BrowserIdError: a malformed browser id.
            ClockError: a time control this service does not know.
            StorageFullError: the browser's or the address's games hold their most already.
        """
        if setup is not None:
            options = dataclasses.replace(
                options, kind="match" if setup.match_length else "single",
                length=setup.match_length, time_control="none")
        if browser is not None:
            check_browser_id(browser)
        checked: int | None = None
        if seed is not None:
            checked = parse_seed(seed)
        if self._dice is not None:
            checked = None
        elif checked is None:
            checked = new_seed(self._rng)
        human: Color | None = None
        if options.mode == "computer":
            side = options.side
            if side == "random":
                chooser = self._rng if checked is None else derived_rng(checked, "side")
                side = chooser.choice(("white", "black"))
            human = Color.parse(side)
        settings = _settings_json(options, human)
        if settings["time_control"] not in self._controls:
            raise ClockError(f"unknown time control {settings['time_control']!r}: choose one "
                             f"of {', '.join(self._controls)}")
        game_id = secrets.token_urlsafe(12)
        if setup is not None:
            match = setup_match(setup, cube=settings["cube"], gammons=settings["gammons"],
                                dice=self._dice, seed=checked)
        else:
            match = Match(settings["length"], cube=settings["cube"],
                          gammons=settings["gammons"], jacoby=settings["jacoby"],
                          beavers=settings["beavers"], dice=self._dice, seed=checked)
        table = self._table(settings, match, self._controls[settings["time_control"]])
        session = _Session(game_id, settings, table, 0, self._now, browser, owner)
        self._save(session)
        with self._lock:
            self._remember(session)
        return self._describe(session)

    def _table(self, settings: SettingsJSON, match: Match,
               control: TimeControl | None) -> Table:
        """The table that plays ``match``: the person's and the computer's seats (two people
        in pass & play), the session's time control."""
        human = settings["human"]
        seats: dict[Side, Seat] = {
            side: Seat("person") if human is None or side == human
            else Seat("computer", level=settings["level"])
            for side in TABLE_SIDES}
        table_settings = {"length": match.length, "cube": match.cube,
                          "gammons": settings["gammons"], "jacoby": settings["jacoby"],
                          "beavers": settings["beavers"], "single": settings["kind"] == "single"}
        game = TableMatch(match, single=settings["kind"] == "single")
        seed = match.seed if match.seed is not None else 0
        return Table(RULES, table_settings, seats, time_control=control,
                     now=self._now, seed=seed, game=game)

    def state(self, game_id: str) -> GameState:
        """The state of a session, read back from the store when not in memory. In a timed
        game the clock is brought up to now first (a side out of time loses: recorded)."""
        session = self._get(game_id)
        with session.lock:
            self._clock_in(session)
            return self._describe(session)

    def inspect(self, game_id: str, reader: Callable[[Match, SettingsJSON], T]) -> T:
        """Run ``reader(match, settings)`` on a session under its lock and return what it
        returns: how review, hints, explanations and ``.mat`` export
        (:mod:`backgammon.services.review`) read a session. ``reader`` must not change the
        match: nothing is saved afterwards."""
        session = self._get(game_id)
        with session.lock:
            return reader(session.match, session.settings)

    def _get(self, game_id: str) -> _Session:
        with self._lock:
            session = self._sessions.get(game_id)
            if session is not None:
                self._sessions.move_to_end(game_id)
                return session
        loaded = self._load(game_id)
        with self._lock:
            session = self._sessions.get(game_id)
            if session is None:
                session = loaded
                self._remember(session)
            return session

    def _remember(self, session: _Session) -> None:
        """Keep ``session`` (the service's lock held), letting go of the ones used least
        recently past :data:`CACHE_SIZE` or past the memory bound (the newest is kept)."""
        old = self._sessions.pop(session.id, None)
        if old is not None:
            self._memory -= old.size * MEMORY_PER_RECORD_BYTE
        self._sessions[session.id] = session
        self._memory += session.size * MEMORY_PER_RECORD_BYTE
        while len(self._sessions) > 1 and (len(self._sessions) > CACHE_SIZE
                                           or self._memory > self.max_memory):
            _, gone = self._sessions.popitem(last=False)
            self._memory -= gone.size * MEMORY_PER_RECORD_BYTE

    def _resize(self, session: _Session, size: int) -> None:
        """The session's record now takes ``size`` bytes: its share of the bound follows."""
        with self._lock:
            if self._sessions.get(session.id) is session:
                self._memory += (size - session.size) * MEMORY_PER_RECORD_BYTE
                session.size = size
                self._remember(session)
            else:
                session.size = size

    def _forget(self, game_id: str) -> None:
        with self._lock:
            gone = self._sessions.pop(game_id, None)
            if gone is not None:
                self._memory -= gone.size * MEMORY_PER_RECORD_BYTE

    def memory_bytes(self) -> int:
        """The memory the sessions kept take, estimated (bytes)."""
        with self._lock:
            return self._memory

    def kept(self) -> list[str]:
        """The ids of the sessions kept in memory, the one used least recently first."""
        with self._lock:
            return list(self._sessions)

    def _stored(self, game_id: str) -> StoredGame:
        """A saved session's row. The store is shared with the table's door: a table's row
        (its record holds a token's hash) is no game of this door, refused as an unknown id
        (its existence never shown).

        Raises:
            GameNotFoundError: no session of this door has the id.
            StoredGameError: the row cannot be read.
        """
        stored = self._store.load(game_id)
        if TOKEN_HASH_KEY in stored.record:
            raise GameNotFoundError(f"no saved game has the id {game_id!r}")
        return stored

    def _load(self, game_id: str) -> _Session:
        stored = self._stored(game_id)
        record = stored.record
        if record.get("game", RULES.name) != RULES.name:  # (a record before it has none)
            raise StoredGameError(
                f"saved game {game_id!r} is not a backgammon game: {record.get('game')!r}")
        settings = _check_settings(game_id, record["settings"])
        version = record.get("version", 0)
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise StoredGameError(f"saved game {game_id!r} is damaged: version {version!r}")
        browser = record.get("browser")
        if browser is not None and not (isinstance(browser, str) and _browser_ok(browser)):
            raise StoredGameError(f"saved game {game_id!r} is damaged: browser {browser!r}")
        try:
            match = Match.replay(record["log"], dice=self._dice)
        except InvalidLogError as exc:
            raise StoredGameError(f"saved game {game_id!r} cannot be loaded: {exc}") from None
        if match.length != settings["length"] or match.cube != settings["cube"]:
            raise StoredGameError(
                f"saved game {game_id!r} cannot be loaded: its log is a "
                f"{match.length}-point match (cube {'on' if match.cube else 'off'}), but its "
                f"settings say {settings['length']} points (cube "
                f"{'on' if settings['cube'] else 'off'})"
            )
        if settings["kind"] == "single" and len(match.games) != 1:
            raise StoredGameError(
                f"saved game {game_id!r} cannot be loaded: a single game holds "
                f"{len(match.games)} games"
            )
        try:
            table = self._table(settings, match, None)
        except ActionRefused as exc:
            raise StoredGameError(f"saved game {game_id!r} cannot be loaded: {exc}") from None
        table.clock = self._restore_clock(game_id, settings, table, record.get("clock"))
        session = _Session(game_id, settings, table, version, self._now, browser)
        session.size = stored.size
        return session

    def _restore_clock(self, game_id: str, settings: SettingsJSON, table: Table,
                       data: object) -> Clock[str] | None:
        """The saved clock of a loaded session (paused, the remaining times as saved: it runs
        again once a page asks).

        Raises:
            StoredGameError: a timed game saved without its clock, an untimed one with one, or
                a clock that does not fit the game; the message says which.
        """
        if settings["time_control"] == "none":
            if data is not None:
                raise StoredGameError(
                    f"saved game {game_id!r} is damaged: an untimed game with a clock")
            return None
        if data is None:
            raise StoredGameError(
                f"saved game {game_id!r} is damaged: a {settings['time_control']} "
                f"game saved without its clock")
        games = len(cast(TableMatch, table.game).match.games)
        try:
            if not isinstance(data, dict):
                raise ClockError(f"the saved clock is {type(data).__name__}, not an object")
            if data.get("game") != games:
                raise ClockError(f"the saved clock belongs to game {data.get('game')!r}, "
                                 f"not game {games}")
            saved = data.get("clock")
            if not isinstance(saved, dict):
                raise ClockError(f"malformed saved clock: {saved!r} is not an object")
            clock: Clock[str] = Clock.from_dict(saved, self._now)
            expected = table.game.on_clock()  # (nobody between games and once it is over)
            if clock.paused != expected:
                raise ClockError(f"the saved clock runs for {clock.paused or 'nobody'}, but "
                                 f"{expected or 'nobody'} is to act")
        except TableClockError as exc:  # (backgammon's ClockError is one too)
            raise StoredGameError(
                f"saved game {game_id!r} cannot be loaded: its clock: {exc}") from None
        return clock

    def _save(self, session: _Session) -> None:
        session.version += 1
        try:
            size = self._store.save(session.id, session.record(), owner=session.owner)
        except BaseException:
            self._forget(session.id)
            raise
        self._resize(session, size)
        self._count_finished(session)

    def _count_finished(self, session: _Session) -> None:
        """Once the current game is over, count it in its browser's record (once: the record
        keys games by session and number). Games started from a set-up position are not
        counted."""
        game = session.game
        outcome = game.outcome
        if (self._stats is None or session.browser is None or outcome is None
                or session.match.setup is not None):
            return
        opponent = session.settings["level"] if session.computer is not None else \
            "pass_and_play"
        counted = finished_game(
            game, session.human if session.human is not None else WHITE,
            browser=session.browser, session=session.id, number=len(session.games),
            opponent=opponent, mode=session.settings["kind"],
            match_over=session.settings["kind"] == "match" and session.match.is_over)
        if counted is not None:
            self._stats.record(counted)

    def forget(self, game_id: str, browser: str) -> bool:
        """Delete a saved session (from memory and from the store): the page's "Start
        over", for the browser that started it (``record["browser"]``). Returns whether
        there was one; what it counted in a record stays.

        Raises:
            NotYourGameError: the game was started by another browser, or by none (an API
                client's); nothing is deleted.
            StoredGameError: the saved game cannot be read (its browser is unknown).
        """
        try:
            owner = self._stored(game_id).record.get("browser")
        except GameNotFoundError:
            self._forget(game_id)
            return False
        if owner != browser:
            raise NotYourGameError(f"game {game_id!r} was not started in this browser: only "
                                   "the browser that started it may start it over")
        self._forget(game_id)
        return self._store.delete(game_id)

    # ----------------------------------------------------------------------------------------
    # The person's actions: one gate, the table's

    def act(self, game_id: str, action: Mapping[str, Any]) -> GameState:
        """Carry out the person's action (the table's action JSON, as at every door: ``roll``,
        ``move_checker`` ``{"from", "to"}`` (one checker, through the intermediate points
        when it takes more than one die; a place is 1..24 in White's numbering, ``"bar"``,
        ``"off"``), ``undo``, ``end_turn``, ``move`` ``{"play"}`` (a whole play),
        ``double``, ``take``, ``beaver``, ``raccoon``, ``drop``, ``resign`` ``{"level"}``,
        ``next_game``; :mod:`backgammon.adapter` for each), then save. Against the computer
        the person acts for their side; in pass & play for the side the game waits on.

        A resignation in pass & play is accepted at once (the opponent is at the same screen).
        A roll that cannot be played passes by itself.

        Returns:
            The state after it.

        Raises:
            ActionRefused: ``invalid_action`` (malformed), ``not_your_turn`` (the computer's
                turn), ``not_allowed`` (not now, with the engine's words), ``illegal_move``
                (with the rule's words), ``game_over`` (over, or a side ran out of time:
                the timeout is recorded and saved).
        """
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            raise ActionRefused("invalid_action", "an action is a JSON object with a 'type'")
        kind = action["type"]
        session = self._get(game_id)
        with session.lock:
            if self._clock_in(session, acts=True):
                raise ActionRefused("game_over", self._time_up(session))
            table = session.table
            side = self._person_side(session, kind)
            human = session.human
            try:
                table.act(side, action)
            except ActionRefused as refused:
                raise ActionRefused(refused.code, players_words(str(refused), human)) from None
            if kind == "resign" and human is None:
                # the opponent at the same screen has agreed already (0 s on a clock)
                table.act(_other(side), {"type": "accept_resignation"})
            if session.presence is not None:
                session.presence.sync()
            self._save(session)
            return self._describe(session)

    def _person_side(self, session: _Session, kind: str) -> Side:
        """The side a person at this page acts for: theirs against the computer (refused
        while the computer is to act), else the side the game waits on (White when either
        may act: the opening roll, between games).

        Raises:
            ActionRefused: ``not_your_turn`` on the computer's turn.
        """
        human = session.human
        table = session.table
        if human is not None:
            waiting = table.game.to_act()
            if table.computer_to_act() is not None or (
                    waiting and color_name(human) not in waiting):
                verb = _VERBS.get(kind, kind)
                raise ActionRefused("not_your_turn",
                                    f"you cannot {verb} now: it is the computer's turn")
            return color_name(human)
        waiting = table.game.to_act()
        return next(iter(waiting)) if len(waiting) == 1 else "white"

    def roll(self, game_id: str) -> GameState:
        """Throw the dice (the opening roll first): ``act(game_id, {"type": "roll"})``."""
        return self.act(game_id, {"type": "roll"})

    def move(self, game_id: str, from_place: Place, to_place: Place) -> GameState:
        """Move one checker: ``act(game_id, {"type": "move_checker", "from", "to"})``."""
        return self.act(game_id, {"type": "move_checker", "from": from_place, "to": to_place})

    def undo(self, game_id: str) -> GameState:
        """Take back the last checker moved this turn (the dice stay)."""
        return self.act(game_id, {"type": "undo"})

    def end_turn(self, game_id: str) -> GameState:
        """End the turn: the checkers moved must make a whole legal play."""
        return self.act(game_id, {"type": "end_turn"})

    def double(self, game_id: str) -> GameState:
        """Offer a double before rolling."""
        return self.act(game_id, {"type": "double"})

    def take(self, game_id: str) -> GameState:
        """Take the double offered."""
        return self.act(game_id, {"type": "take"})

    def beaver(self, game_id: str) -> GameState:
        """Take the double offered and redouble at once, keeping the cube (money play with
        beavers)."""
        return self.act(game_id, {"type": "beaver"})

    def raccoon(self, game_id: str) -> GameState:
        """Answer the beaver of your double by redoubling at once (``Game.raccoon``)."""
        return self.act(game_id, {"type": "raccoon"})

    def drop(self, game_id: str) -> GameState:
        """Drop the double offered: the game is lost at the cube's value."""
        return self.act(game_id, {"type": "drop"})

    def resign(self, game_id: str, level: str) -> GameState:
        """Offer to resign at ``level`` (``"single"``, ``"gammon"``, ``"backgammon"``): the
        computer answers on its turn; in pass & play the game ends at once."""
        return self.act(game_id, {"type": "resign", "level": level})

    def next_game(self, game_id: str) -> GameState:
        """Start the next game of a match or money session once this game is over."""
        session = self._get(game_id)
        if session.settings["kind"] == "single":
            raise ActionRefused(
                "not_allowed", "this was a single game: start a new game or ask for a rematch")
        return self.act(game_id, {"type": "next_game"})

    def rematch(self, game_id: str, owner: str | None = None) -> GameState:
        """A new session with the same settings once this one is over (a single game played
        or a match won); the person keeps their side. ``owner``: the client address asking
        (as :meth:`create`)."""
        session = self._get(game_id)
        with session.lock:
            if not session.over:
                raise ActionRefused("not_allowed", "a rematch is offered once this one is over")
            settings = session.settings
            browser = session.browser
            # The table's rematch policy: nobody plays here from another screen, so this
            # request starts it (rematch_ready); the sides as rematch_sides says for "local".
            human = settings["human"]
            seats = ("person", "computer") if human != "black" else ("computer", "person")
            white_seat, _ = rematch_sides("local", *seats)
            side = "white" if white_seat == "person" else "black"
        options = GameOptions(
            mode=settings["mode"], level=settings["level"],
            side=side, cube=settings["cube"],
            gammons=settings["gammons"], kind=settings["kind"],
            length=settings["length"], time_control=settings["time_control"],
            jacoby=settings["jacoby"], beavers=settings["beavers"],
        )
        return self.create(options, browser=browser, owner=owner)

    def recent(self, browser: str, limit: int = RECENT_LIMIT) -> list[RecentGameJSON]:
        """A browser's unfinished games, the last played first, for the page to offer to
        resume (a game is resumed by reading its state: :meth:`state`).

        Args:
            browser: the browser's anonymous id (:data:`BROWSER_ID`).
            limit: at most this many (1..:data:`RECENT_LIMIT`).

        Returns:
            Each game's id, when it was last played, who plays, the score's caption, the
            score, the turns played in its current game and its status line. Finished games
            (a single game played, a match won) and saves that no longer load are left out.

        Raises:
            ValueError: ``browser`` is not a browser id, or ``limit`` is out of range.
        """
        if not (isinstance(browser, str) and BROWSER_ID.match(browser)):
            raise ValueError(f"a browser id is 8 to 64 letters, digits, '-' or '_', "
                             f"got {browser!r}")
        if isinstance(limit, bool) or not isinstance(limit, int) or not (
            1 <= limit <= RECENT_LIMIT
        ):
            raise ValueError(f"limit must be 1 to {RECENT_LIMIT}, got {limit!r}")
        found: list[RecentGameJSON] = []
        for game_id, updated in self._store.ids_for_browser(browser, _RECENT_SCAN):
            try:
                session = self._get(game_id)
            except (StoredGameError, LookupError):
                continue  # a damaged save (its own read says why) or one deleted meanwhile
            with session.lock:
                if session.over or session.browser != browser:
                    continue
                state = self._describe(session)
            found.append({
                "id": game_id,
                "updated_at": updated,
                "title": _session_title(state),
                "description": state["score"]["description"],
                "score": {"white": state["score"]["white"], "black": state["score"]["black"]},
                "turns": len(session.game.history),
                "message": state["message"],
            })
            if len(found) >= limit:
                break
        return found

    # ----------------------------------------------------------------------------------------
    # The clock: the table's one clock, held by Presence while nobody watches

    def clock_check(self, game_id: str, page: str = ANONYMOUS_PAGE, shown: int | None = None,
                    leave: bool = False) -> ClockCheckJSON:
        """The page's heartbeat: the game is watched by ``page`` (or, with ``leave``, no longer
        is); bring the clock up to now, recording a timeout when a side ran out; save the
        clock (not an action: the version stays unless a timeout was recorded).

        Args:
            game_id: the game.
            page: the page's own id (random, made by the page when it loads).
            shown: the state version the page has drawn; after the computer's turn the
                person's clock starts once a page has shown it.
            leave: the page is going away (its ``pagehide`` beacon).

        Returns:
            ``{"version", "phase", "clock"}``: a version other than the page's means it should
            read the state again (``clock`` None for an untimed game).
        """
        session = self._get(game_id)
        with session.lock:
            timed_out = self._clock_in(session, page=page, shown=shown, leave=leave)
            presence = session.presence
            if presence is not None and not timed_out and not session.game.is_over:
                self._save_clock(session)
            return {"version": session.version,
                    "phase": phase_name(session.game, session.over),
                    "clock": self._clock_json(session)}

    def _clock_in(self, session: _Session, *, page: str = ANONYMOUS_PAGE,
                  shown: int | None = None, leave: bool = False, acts: bool = False) -> bool:
        """Before a request is served (under the session's lock): bring the clock up to now,
        then note the page (``acts``: a person acted, so the turn has been seen).

        Returns:
            True when a side ran out of time: the timeout is recorded and saved.
        """
        presence = session.presence
        if presence is None or session.game.is_over:
            return False
        if presence.due() is not None:
            self._save(session)
            return True
        if leave:
            presence.left(page)
        elif acts:
            presence.acted(page)
        else:
            presence.seen(page, shown)
        presence.sync()
        return False

    def _save_clock(self, session: _Session) -> None:
        """Save the record with the clock as it is now, without counting an action."""
        try:
            size = self._store.save(session.id, session.record(), owner=session.owner)
        except BaseException:
            self._forget(session.id)
            raise
        self._resize(session, size)

    def _time_up(self, session: _Session) -> str:
        """Why an action is refused once a side has run out of time."""
        outcome = session.game.outcome
        assert outcome is not None
        who = _whose_time(session, outcome.loser)
        return f"{who[:1].upper()}{who[1:]} ran out of time: the game is over"

    def _clock_json(self, session: _Session) -> ClockJSON | None:
        presence = session.presence
        return None if presence is None else cast(ClockJSON, presence.clock_view())

    # ----------------------------------------------------------------------------------------
    # The computer

    def computer_turn(self, game_id: str) -> ComputerTurnJSON:
        """Let the computer act until the person must: answer a double, or double (when it
        wants), roll and play, each through the table. Runs in the caller's thread (the
        server calls it from a worker thread).

        Returns:
            ``{"steps", "summary", "state"}``: each roll, each checker moved and each cube
            decision, with the board after it, for the page to show one by one; what the
            computer did in a sentence or two; then the state.

        Raises:
            ActionRefused: ``not_allowed``: the computer is not to act (a pass & play game,
                the person's turn, the game over).
        """
        session = self._get(game_id)
        with session.lock:
            table = session.table
            if session.computer is None:
                raise ActionRefused(
                    "not_allowed", "this game has no computer player: two people play it at "
                    "one screen")
            if table.computer_to_act() is None:
                raise ActionRefused(
                    "not_allowed", f"the computer is not to act: {phase_words(session.game)}")
            seed = session.match.seed
            rng = self._rng if seed is None else derived_rng(
                seed, "computer", len(session.games), session.game.event_count)
            player = self._players(session.settings["level"], rng)
            presence = session.presence
            if presence is not None:
                # its clock runs while it thinks; the person's then waits until a page has
                # shown the turn (the version this request saves)
                presence.seen()
                presence.thinking = True
                presence.wait_for_version = session.version + 1
                presence.sync()
            turn = ComputerTurn(table, player, human=session.human,
                                out_of_time=lambda: presence is not None
                                and presence.due() is not None)
            try:
                turn.play()
            finally:
                # What the computer did stands (each action is whole); save it even if a
                # later step failed, so the page and the store agree.
                if presence is not None:
                    presence.thinking = False
                    presence.sync()
                self._save(session)
            return {"steps": turn.steps, "summary": turn.summary(),
                    "state": self._describe(session)}

    # ----------------------------------------------------------------------------------------
    # Describing a session to the page

    def _describe(self, session: _Session) -> GameState:
        game = session.game
        settings = session.settings
        computer = session.computer
        human = session.human
        computer_to_act = session.table.computer_to_act() is not None
        to_act = human if game.phase is Phase.OPENING else game.turn
        mine = (not computer_to_act and not game.is_over
                and (computer is None or to_act is not computer))
        view = describe(session.match, kind=settings["kind"], names=_names(session),
                        mine=mine, session_over=session.over,
                        computer_to_act=computer_to_act, to_act=to_act)
        viewer = human if human is not None else WHITE
        return cast(GameState, {
            "id": session.id,
            "version": session.version,
            "settings": settings,
            "players": {
                "white": _player(settings, WHITE, computer),
                "black": _player(settings, BLACK, computer),
            },
            "viewer": color_name(viewer),
            **view,
            "clock": self._clock_json(session),
            "ids": ids_json(session.match),
            "seed": session.match.seed,
        })


def _other(side: Side) -> Side:
    return "black" if side == "white" else "white"


# --------------------------------------------------------------------------------------------
# JSON pieces


def _browser_ok(browser: str) -> bool:
    try:
        check_browser_id(browser)
    except ValueError:
        return False
    return True


def _session_title(state: GameState) -> str:
    """Who plays, for the list of recent games: "You (White) vs Computer (Easy)"."""
    if state["settings"]["mode"] == "pass_and_play":
        return "Pass & play"
    human = state["settings"]["human"] or "white"
    other = "black" if human == "white" else "white"
    return f"You ({human.capitalize()}) vs {state['players'][other]['name']}"


def _names(session: _Session) -> Names:
    """How the sentences name the sides: "You" and "The computer", or White and Black in
    pass & play."""
    human = session.human
    if human is None:
        return Names()
    names = {human: "You", human.opponent: "The computer"}
    return Names(names[WHITE], names[BLACK], me=human, computer=human.opponent)


def _whose_time(session: _Session, loser: Color) -> str:
    """Who ran out of time, in the words of the result: "you", "the computer" or "White"."""
    if session.human is None:
        return title_of(loser)
    return "you" if loser is session.human else "the computer"


def _player(settings: SettingsJSON, color: Color, computer: Color | None) -> PlayerJSON:
    if computer is None:
        return {"name": title_of(color), "computer": False, "level": None}
    if color is computer:
        level = settings["level"]
        return {"name": f"Computer ({level.capitalize()})", "computer": True, "level": level}
    return {"name": "You", "computer": False, "level": None}


__all__ = ["BROWSER_ID", "RECENT_LIMIT", "GameOptions", "GameService"]
