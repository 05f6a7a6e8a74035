"""The neural nets: small multilayer perceptrons in numpy, and their weights file.

Each net maps the encoding of :mod:`backgammon.ai.encoding` to five cubeless probabilities for
the side on roll: win, win gammon, win backgammon, lose gammon, lose backgammon (gammons
include backgammons). One hidden layer of sigmoid units, five sigmoid outputs, float32 — the
shape of TD-Gammon and of GNU Backgammon's nets. :func:`consistent` clips the outputs so that
P(backgammon) <= P(gammon) <= P(win) on each side.

Weights file (``.npz``, no pickles): for each net ``NAME/W1`` ``(inputs, hidden)``, ``NAME/b1``,
``NAME/W2`` ``(hidden, 5)``, ``NAME/b2``; and ``meta``, a JSON text with ``format`` (must be
:data:`FORMAT_VERSION`), ``sha256`` (of every array's bytes in sorted key order) and free
training notes (games played, settings). :func:`load_weights` checks both and raises
:class:`WeightsError`, naming the file, for a missing, unreadable or altered one.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from backgammon.ai.encoding import N_INPUTS

Floats = npt.NDArray[np.float32]

#: The weights file format this code reads and writes.
FORMAT_VERSION: Final = 1
#: Outputs of every net.
N_OUTPUTS: Final = 5


class WeightsError(ValueError):
    """A weights file is missing, unreadable, of another format, or fails its checksum."""


def _sigmoid(z: Floats) -> Floats:
    # clip so exp cannot overflow in float32
    return (1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))).astype(np.float32, copy=False)


@dataclass
class Net:
    """One multilayer perceptron: ``inputs -> hidden (sigmoid) -> 5 (sigmoid)``.

    Attributes:
        w1: ``(inputs, hidden)`` float32; b1: ``(hidden,)``; w2: ``(hidden, 5)``; b2: ``(5,)``.
    """

    w1: Floats
    b1: Floats
    w2: Floats
    b2: Floats

    @classmethod
    def random(cls, hidden: int, rng: np.random.Generator, inputs: int = N_INPUTS) -> Net:
        """A fresh net with small random weights drawn from ``rng`` (seeded by the caller)."""
        scale1 = 1.0 / np.sqrt(inputs)
        scale2 = 1.0 / np.sqrt(hidden)
        return cls(
            (rng.standard_normal((inputs, hidden)) * scale1).astype(np.float32),
            np.zeros(hidden, dtype=np.float32),
            (rng.standard_normal((hidden, N_OUTPUTS)) * scale2).astype(np.float32),
            np.zeros(N_OUTPUTS, dtype=np.float32),
        )

    @property
    def hidden(self) -> int:
        """Hidden units."""
        return int(self.w1.shape[1])

    def forward(self, x: Floats) -> tuple[Floats, Floats]:
        """``(hidden activations (N, hidden), outputs (N, 5))`` for inputs ``x`` ``(N, I)``."""
        h = _sigmoid(x @ self.w1 + self.b1)
        return h, _sigmoid(h @ self.w2 + self.b2)

    def __call__(self, x: Floats) -> Floats:
        """Raw outputs ``(N, 5)`` for inputs ``(N, I)`` (not yet :func:`consistent`)."""
        return self.forward(x)[1]

    def train_step(self, x: Floats, target: Floats, rate: float) -> float:
        """One gradient step on the squared error of the outputs against ``target``
        ``(N, 5)``, summed over the rows, with step size ``rate``. Returns the mean squared
        error before the step."""
        h, y = self.forward(x)
        err = y - target
        d2 = err * y * (1.0 - y)  # (N, 5)
        d1 = (d2 @ self.w2.T) * h * (1.0 - h)  # (N, H)
        self.w2 -= rate * (h.T @ d2)
        self.b2 -= rate * d2.sum(axis=0)
        self.w1 -= rate * (x.T @ d1)
        self.b1 -= rate * d1.sum(axis=0)
        return float((err * err).mean())

    def arrays(self, name: str) -> dict[str, Floats]:
        """This net's arrays keyed ``NAME/W1`` ... for a weights file."""
        return {f"{name}/W1": self.w1, f"{name}/b1": self.b1,
                f"{name}/W2": self.w2, f"{name}/b2": self.b2}

    def copy(self) -> Net:
        """A deep copy."""
        return Net(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy())


def consistent(p: Floats) -> Floats:
    """Clip ``(N, 5)`` probabilities in place to a consistent set: 0 <= P(win bg) <= P(win g)
    <= P(win) <= 1 and 0 <= P(lose bg) <= P(lose g) <= 1 - P(win). Returns ``p``."""
    np.clip(p, 0.0, 1.0, out=p)
    np.minimum(p[:, 1], p[:, 0], out=p[:, 1])
    np.minimum(p[:, 2], p[:, 1], out=p[:, 2])
    np.minimum(p[:, 3], 1.0 - p[:, 0], out=p[:, 3])
    np.minimum(p[:, 4], p[:, 3], out=p[:, 4])
    return p


@dataclass
class NetSet:
    """The nets the evaluator uses: ``contact`` and ``race``, and the training notes."""

    contact: Net
    race: Net
    meta: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> NetSet:
        """A deep copy (the notes too)."""
        return NetSet(self.contact.copy(), self.race.copy(), json.loads(json.dumps(self.meta)))


def _checksum(arrays: dict[str, Floats]) -> str:
    digest = hashlib.sha256()
    for key in sorted(arrays):
        digest.update(key.encode())
        digest.update(np.ascontiguousarray(arrays[key], dtype=np.float32).tobytes())
    return digest.hexdigest()


def save_weights(nets: NetSet, path: str | Path) -> None:
    """Write ``nets`` to ``path`` (``.npz``, see the module docstring), atomically: a
    temporary file beside it is renamed over it, so a crash never leaves half a file."""
    path = Path(path)
    arrays = {**nets.contact.arrays("contact"), **nets.race.arrays("race")}
    meta = dict(nets.meta, format=FORMAT_VERSION, sha256=_checksum(arrays))
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as handle:
        payload: dict[str, Any] = {"meta": np.array(json.dumps(meta, sort_keys=True)), **arrays}
        np.savez_compressed(handle, **payload)
    tmp.replace(path)


def load_weights(path: str | Path) -> NetSet:
    """Read a weights file written by :func:`save_weights`.

    Raises:
        WeightsError: the file is missing or unreadable, is not of :data:`FORMAT_VERSION`,
            lacks an array, has arrays of mismatched shapes, or fails its checksum; the
            message names the file.
    """
    path = Path(path)
    try:
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as data:
            arrays = {key: np.asarray(data[key]) for key in data.files}
    except FileNotFoundError:
        raise WeightsError(f"weights file {path} is missing") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise WeightsError(f"weights file {path} is unreadable: {exc}") from None
    try:
        meta = json.loads(str(arrays.pop("meta")))
    except (KeyError, ValueError):
        raise WeightsError(f"weights file {path} has no readable 'meta' entry") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise WeightsError(
            f"weights file {path} is format {found!r}; this program reads {FORMAT_VERSION}"
        )
    floats = {key: value.astype(np.float32) for key, value in arrays.items()}
    if _checksum(floats) != meta.get("sha256"):
        raise WeightsError(f"weights file {path} fails its checksum: it is corrupt or altered")
    nets: list[Net] = []
    for name in ("contact", "race"):
        try:
            net = Net(*(floats[f"{name}/{part}"] for part in ("W1", "b1", "W2", "b2")))
        except KeyError as exc:
            raise WeightsError(f"weights file {path} lacks the array {exc.args[0]}") from None
        h = net.w1.shape[1] if net.w1.ndim == 2 else -1
        if (net.w1.shape != (N_INPUTS, h) or net.b1.shape != (h,)
                or net.w2.shape != (h, N_OUTPUTS) or net.b2.shape != (N_OUTPUTS,)):
            raise WeightsError(
                f"weights file {path}: the {name} net's arrays do not fit {N_INPUTS} inputs"
            )
        nets.append(net)
    return NetSet(nets[0], nets[1], meta)


#: The weights shipped with the package.
DEFAULT_WEIGHTS: Final = Path(__file__).with_name("weights") / "nets.npz"

_DEFAULT: NetSet | None = None


def single_threaded_blas() -> None:
    """Keep numpy's BLAS to one thread in this process.

    The nets multiply small matrices (tens of rows): a BLAS spreading each over several threads
    spends more on waking them than on the work, and on a busy machine it is 40 times slower
    (1.6 ms against 41 µs a call, measured on the project's 2-core machine). Done once, on the
    first load of the nets, through threadpoolctl.
    """
    global _LIMITED
    if not _LIMITED:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
        _LIMITED = True


_LIMITED = False


def default_nets() -> NetSet:
    """The shipped nets (:data:`DEFAULT_WEIGHTS`), loaded once per process (and numpy's BLAS
    kept to one thread: :func:`single_threaded_blas`).

    Raises:
        WeightsError: the shipped file is missing or corrupt (see :func:`load_weights`).
    """
    global _DEFAULT
    if _DEFAULT is None:
        single_threaded_blas()
        _DEFAULT = load_weights(DEFAULT_WEIGHTS)
    return _DEFAULT


def use_weights(path: str | Path) -> NetSet:
    """Make the weights file at ``path`` this process's default nets (in place of the shipped
    ones) and return them: for the benches and ``backgammon train`` checkpoints.

    The process-wide evaluator (:func:`backgammon.ai.netsearch.shared_net_evaluator`, which
    the levels, hints and analysis use) follows at its next call, with empty caches; an
    evaluator made earlier with its own nets keeps them.

    Raises:
        WeightsError: as :func:`load_weights`.
    """
    global _DEFAULT
    single_threaded_blas()
    _DEFAULT = load_weights(path)
    return _DEFAULT


__all__ = [
    "DEFAULT_WEIGHTS",
    "FORMAT_VERSION",
    "N_OUTPUTS",
    "Net",
    "NetSet",
    "WeightsError",
    "consistent",
    "default_nets",
    "load_weights",
    "save_weights",
    "single_threaded_blas",
    "use_weights",
]
