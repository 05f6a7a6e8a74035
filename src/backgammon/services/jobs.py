"""A bounded pool of long jobs (analyses, rollouts) run in worker threads, fair between clients.

What every kind of job shares (:mod:`.analysis_jobs`, :mod:`.rollout_jobs` subclass
:class:`JobPool` and run their own work in :meth:`JobPool._run`):

* **Bounds**: at most ``max_jobs`` unfinished jobs in all and ``per_client`` for one client
  (its address); past them a submission is refused at once with the pool's busy error.
* **Fairness**: jobs wait in one queue, first come first served, except that one client never
  runs on every worker: with two or more workers it runs at most ``workers - 1`` at once, so
  another client's job starts on the next free worker.
* **Keeping**: finished jobs are kept for their clients to read, ``max_jobs`` in all: past
  that, the oldest finished job of the client that has the most is forgotten, so one
  client's jobs cannot push another's out.
* **Stopping**: only the client that started a job may stop it (the server may stop any);
  :meth:`JobPool.close` stops everything and returns at once (the threads are daemons).
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict, deque
from typing import Generic, Protocol, TypeVar

from backgammon.core.errors import BackgammonError


class Job(Protocol):
    """What the pool reads of a job."""

    id: str
    client: str | None
    status: str


J = TypeVar("J", bound=Job)


class JobPool(Generic[J]):
    """The pool's bookkeeping; a subclass says what its jobs are and runs them.

    Args:
        workers: jobs run at once (worker threads, started with the first job).
        max_jobs: unfinished jobs allowed, and jobs kept in all.
        per_client: unfinished jobs one client may have.

    Class attributes a subclass sets: ``noun`` and ``nouns`` (words for its messages),
    ``wait_words``, ``finished`` (the statuses of a job that is over), ``busy`` (raised when full),
    ``missing`` (an unknown id), ``not_yours`` (a stop by another client).
    """

    noun = "job"
    nouns = "jobs"
    #: What a client with too many jobs is told to do.
    wait_words = "try again once one is done"
    finished: tuple[str, ...] = ("done", "failed", "cancelled")
    busy: type[BackgammonError] = BackgammonError
    missing: type[BackgammonError] = BackgammonError
    not_yours: type[BackgammonError] = BackgammonError

    def __init__(self, workers: int, max_jobs: int, per_client: int) -> None:
        if workers < 1 or max_jobs < 1 or per_client < 1:
            raise ValueError("workers, max_jobs and per_client must be at least 1")
        self.workers = workers
        self.max_jobs = max_jobs
        self.per_client = per_client
        #: jobs one client runs at once: never every worker, when there are two or more
        self.running_per_client = max(1, workers - 1)
        self._jobs: OrderedDict[str, J] = OrderedDict()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queue: deque[J] = deque()
        self._running: Counter[str | None] = Counter()
        self._threads: list[threading.Thread] = []
        self._closed = False

    # ---------------------------------------------------------------- for subclasses

    def _run(self, job: J) -> None:
        """Do the job (in a worker thread)."""
        raise NotImplementedError

    def _halt(self, job: J) -> None:
        """Stop the job for the server (at :meth:`close`)."""
        raise NotImplementedError

    def _waiting(self, job: J) -> bool:
        """True while the queued job is still to run (not stopped before it started)."""
        return job.status == "queued"

    # ---------------------------------------------------------------- the pool

    def _admit(self, job: J, client: str | None) -> J:
        """Queue ``job`` for ``client`` within the bounds.

        Raises:
            busy: the pool is closed, full, or ``client`` has ``per_client`` unfinished.
        """
        with self._lock:
            if self._closed:
                raise self.busy(f"the server is stopping: no {self.noun} is taken")
            unfinished = [j for j in self._jobs.values() if j.status not in self.finished]
            if len(unfinished) >= self.max_jobs:
                raise self.busy(f"{len(unfinished)} {self.nouns} are waiting or running: "
                                "try later")
            mine = sum(1 for j in unfinished if client is not None and j.client == client)
            if client is not None and mine >= self.per_client:
                what = self.noun if mine == 1 else self.nouns
                raise self.busy(f"you have {mine} {what} waiting or running: {self.wait_words}")
            self._jobs[job.id] = job
            self._forget_finished()
            self._queue.append(job)
            if not self._threads:
                self._threads = [
                    threading.Thread(target=self._work, name=f"{self.noun}-{i}", daemon=True)
                    for i in range(self.workers)
                ]
                for thread in self._threads:
                    thread.start()
            self._wake.notify()
        return job

    def _forget_finished(self) -> None:
        """Past ``max_jobs`` kept, forget the oldest finished job of the client with the most
        finished (the lock held)."""
        while len(self._jobs) > self.max_jobs:
            finished = [j for j in self._jobs.values() if j.status in self.finished]
            if not finished:
                return
            counts = Counter(j.client for j in finished)
            most = max(counts.values())
            oldest = next(j for j in finished if counts[j.client] == most)
            del self._jobs[oldest.id]

    def get(self, job_id: str) -> J:
        """The job with this id.

        Raises:
            missing: unknown id.
        """
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise self.missing(f"no {self.noun} has the id {job_id!r}")
        return job

    def _owned(self, job_id: str, client: str | None) -> J:
        """The job, for ``client`` to stop (None: the server, which may stop any).

        Raises:
            missing: unknown id.
            not_yours: ``client`` is not the client that started it.
        """
        job = self.get(job_id)
        if client is not None and job.client != client:
            raise self.not_yours(f"this {self.noun} was started by another client")
        return job

    def _next(self) -> J | None:
        """The first queued job whose client may run one more (the lock held); stopped ones
        leave the queue."""
        for job in list(self._queue):
            if not self._waiting(job):
                self._queue.remove(job)
                continue
            if self._running[job.client] < self.running_per_client:
                self._queue.remove(job)
                return job
        return None

    def _work(self) -> None:
        while True:
            with self._wake:
                job = self._next()
                while job is None:
                    if self._closed:
                        return
                    self._wake.wait()
                    job = self._next()
                self._running[job.client] += 1
            try:
                self._run(job)
            finally:
                with self._wake:
                    self._running[job.client] -= 1
                    self._wake.notify_all()

    def close(self) -> None:
        """Stop: no job is taken any more, queued and running ones are stopped; returns at
        once."""
        with self._wake:
            self._closed = True
            jobs = list(self._jobs.values())
            self._wake.notify_all()
        for job in jobs:
            self._halt(job)
