"""Source NER pipelines run in a process of their own, beside the pipeline.

A source NER (``en_core_web_sm``'s tok2vec and parser) holds Python's GIL
for most of its time, so a thread cannot run it beside the rest of the
pipeline. :class:`SourceProcess` runs the sources in a child process
(``python .../detect/privacy_ner/source_child.py``, loaded once) and
answers requests in order: privacy_ner sends the texts of a batch, goes on
with its own rules while the child reads them, and collects the entities when
it needs them. On a machine with two cores a document's NER and rules then
take the time of the longer of the two, and a service uses both cores.

The child is a plain subprocess, not a ``multiprocessing`` one: it does not
import the parent's ``__main__`` (a script without a ``__main__`` guard works).
Requests and answers are length-prefixed pickles on its stdin and stdout; a
writer thread sends and a reader thread receives, so submitting never blocks
and large texts cannot deadlock against large answers. Each request runs in
the source's memory zone: the child's vocabulary stays flat over a long run.
The child sees only the texts, and answers entity offsets and labels; its
stdout is kept for answers (anything a library prints goes to stderr).

Failing closed: an answer that does not come within ``timeout_s``, a child
that died, or an exception in the child raise :class:`SourceProcessError` in
the caller (the runner then retries document by document and masks a
document that fails whole); the next request starts a new child.
"""

import configparser
import importlib.util
import logging
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

logger = logging.getLogger("spacy_textsan")

#: entity offsets and labels of one text
Entities = list[tuple[int, int, str]]

_HEADER = struct.Struct("!Q")
#: the thread counts of the BLAS and OpenMP libraries, set to 1 in the NER process where not set
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def batch_parts(n: int, size: int = 4) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each part of a batch of ``n`` documents sent
    to the source process: parts of ``size`` documents, but the first and
    the last of one document, then two. The first part's entities come back
    soon (the pipeline waits for them before anything else), and the last
    part's documents are few (the process waits for the next batch while the
    pipeline finishes them)."""
    sizes = []
    left = n
    for head in (1, 2):
        if left > 0:
            sizes.append(min(head, left))
            left -= sizes[-1]
    tail = []
    for last in (2, 1):
        if left > size:
            tail.append(last)
            left -= last
    while left > 0:
        sizes.append(min(size, left))
        left -= sizes[-1]
    bounds, start = [], 0
    for part in sizes + tail:
        bounds.append((start, start + part))
        start += part
    return bounds


class SourceProcessError(RuntimeError):
    """The NER process failed to answer (died, timed out, or raised)."""


def write_frame(stream: IO[bytes], obj: Any) -> None:
    """One length-prefixed pickle."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """The next frame of :func:`write_frame`; ``EOFError`` at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def serve_sources(names: Sequence[str], requests: IO[bytes], answers: IO[bytes], entry_points: bool = True) -> None:
    """The child's loop: load ``names``, answer ``(0, "ready", None)``, then
    answer each request ``(ticket, name, texts, runs, batch_size)`` with
    ``(ticket, "ok", entities per text)`` or ``(ticket, "error", message)``;
    ``None`` or the end of ``requests`` ends it. ``entry_points=False``: the
    components other packages register (``spacy_factories``) are not loaded."""
    from spacy.util import registry

    from .sources import add_cased_persons, load_source, source_entities

    if not entry_points:
        registry._entry_point_factories.entry_points = False

    try:
        sources = {name: load_source(name) for name in names}
    except Exception as e:  # reported to the parent, which raises it where the pipeline is loaded
        write_frame(answers, (0, "error", f"{type(e).__name__}: {e}"))
        return
    write_frame(answers, (0, "ready", None))
    while True:
        try:
            request = read_frame(requests)
        except EOFError:
            return
        if request is None:
            return
        ticket, name, texts, runs, batch_size = request
        try:
            nlp = sources[name]
            with nlp.memory_zone():
                ents = source_entities(nlp, texts, batch_size=batch_size)
                if runs is not None:
                    ents = add_cased_persons(nlp, runs, ents)
            write_frame(answers, (ticket, "ok", ents))
        except Exception as e:  # the kind of failure only: no text of the request
            write_frame(answers, (ticket, "error", f"{type(e).__name__} in source {name!r}"))


#: spaCy's own trainable and rule-based factories: a source made of these alone
#: needs neither PyTorch nor another package's components
CORE_FACTORIES = frozenset(
    "tok2vec ner tagger parser attribute_ruler lemmatizer senter morphologizer sentencizer "
    "entity_ruler span_ruler spancat textcat textcat_multilabel trainable_lemmatizer".split()
)


def source_config(name: str) -> str | None:
    """The text of the ``config.cfg`` of source ``name`` (a directory, or an
    installed package, found without importing it); None if there is none."""
    path = Path(name)
    if not path.is_dir():
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.submodule_search_locations:
            return None
        path = Path(next(iter(spec.submodule_search_locations)))
    found = [path / "config.cfg"] if (path / "config.cfg").is_file() else sorted(path.glob("*/config.cfg"))
    return found[0].read_text(encoding="utf-8") if found else None


def plain_spacy_source(name: str) -> bool:
    """Whether source ``name`` loads with spaCy alone: its pipeline's
    components are :data:`CORE_FACTORIES` and every function its ``[nlp]``
    and ``[components]`` sections name is one of spaCy's (``spacy.*``), and
    nothing in it mentions PyTorch or transformers."""
    text = source_config(name)
    if text is None or "torch" in text.lower() or "transformer" in text.lower():
        return False
    config = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        config.read_string(text)
    except configparser.Error:
        return False
    for section in config.sections():
        if section != "nlp" and not section.startswith(("nlp.", "components.")):
            continue
        for key, value in config.items(section):
            value = value.strip().strip('"')
            if key == "factory" and value not in CORE_FACTORIES:
                return False
            if key.startswith("@") and not value.startswith("spacy."):
                return False
    return True


def main() -> None:
    """The child: its names in the first frame of stdin, answers on stdout.
    When every source loads with spaCy alone (:func:`plain_spacy_source`),
    PyTorch is never imported and other packages' components are not
    loaded: the process holds the NER and little else (about 150 MB instead
    of 560 for en_core_web_sm)."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # what a library prints cannot break a frame
    requests = sys.stdin.buffer
    try:
        names = read_frame(requests)
    except EOFError:
        return
    plain = "spacy" not in sys.modules and all(plain_spacy_source(name) for name in names)
    if plain:
        sys.modules.setdefault("torch", None)  # type: ignore[arg-type]  # thinc then runs without PyTorch
    serve_sources(names, requests, answers, entry_points=not plain)


class SourceProcess:
    """The child process that runs the source pipelines ``names`` (see the module doc).

    ``submit`` returns a ticket at once; ``result(ticket)`` waits for its
    answer. Safe to use from several threads; pickled as its settings only
    (the copy starts a child of its own when first used)."""

    #: how often a wait checks that the child is alive
    POLL_S = 0.5

    def __init__(self, names: Sequence[str], *, timeout_s: float = 120.0, start_timeout_s: float = 300.0):
        self.names = list(names)
        self.timeout_s = timeout_s
        self.start_timeout_s = start_timeout_s
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._requests: queue.Queue = queue.Queue()
        self._answers: queue.Queue = queue.Queue()
        self._next = 1
        self._first = 1  # the first ticket the running child answers
        self._done: dict[int, tuple[str, Any]] = {}  # answers read for other callers
        self._cancelled: set[int] = set()
        self._children = 0  # children started
        self._ready = False  # the running child answered that its sources are loaded

    @property
    def restarts(self) -> int:
        """Children started after the first (each one replaced a child that ended)."""
        return max(0, self._children - 1)

    # -- life -------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self.alive else None

    def start(self, wait: bool = True) -> None:
        """Start the child (if it is not running) and wait until its sources
        are loaded; :class:`SourceProcessError` if they cannot be. With
        ``wait=False`` it loads them while the caller goes on (a pipeline
        loads its other components meanwhile); the next :meth:`start` or
        :meth:`result` waits for them and raises that error."""
        with self._lock:
            if self.alive:
                if wait:
                    self._wait_ready_locked()
                return
            self._stop_locked()
            env = dict(os.environ)
            # one BLAS thread in the child unless the user set a count: the NER's products are small, and a
            # pool of threads spins on the cores the parent's components run on
            for variable in _BLAS_THREAD_VARIABLES:
                env.setdefault(variable, "1")
            package_root = str(Path(__file__).resolve().parents[3])  # this copy of spacy_textsan, installed or not
            env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
            process = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("source_child.py"))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
            )
            self._process = process
            self._requests, self._answers = queue.Queue(), queue.Queue()
            threading.Thread(
                target=_write_requests, args=(process.stdin, self._requests), name="textsan-ner-send", daemon=True
            ).start()
            threading.Thread(
                target=_read_answers, args=(process.stdout, self._answers), name="textsan-ner-receive", daemon=True
            ).start()
            self._requests.put(self.names)
            self._children += 1
            self._done.clear()
            self._cancelled.clear()
            self._first = self._next
            self._ready = False
            if wait:
                self._wait_ready_locked()

    def _wait_ready_locked(self) -> None:
        if self._ready:
            return
        _, status, payload = self._get_locked(0, time.monotonic() + self.start_timeout_s)
        self._check_ready(status, payload)

    def _check_ready(self, status: str, payload: Any) -> None:
        """The child's first answer: its sources loaded, or why not."""
        if status != "ready":
            self._stop_locked()
            raise SourceProcessError(f"the NER process could not load {self.names}: {payload}")
        self._ready = True

    def close(self) -> None:
        """End the child (it finishes the request at hand)."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self, kill: bool = False) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        self._requests.put(None)  # the writer sends the end and closes stdin
        try:
            if kill:
                process.kill()
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)

    def __getstate__(self) -> dict:
        return {"names": self.names, "timeout_s": self.timeout_s, "start_timeout_s": self.start_timeout_s}

    def __setstate__(self, state: dict) -> None:
        SourceProcess.__init__(
            self, state["names"], timeout_s=state["timeout_s"], start_timeout_s=state["start_timeout_s"]
        )

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to close
            pass

    # -- requests ---------------------------------------------------------------

    def submit(self, name: str, texts: Sequence[str], runs: Sequence[Sequence[tuple]] | None, batch_size: int) -> int:
        """Send one request (the entities of ``texts`` by source ``name``; with
        ``runs``, the persons of the title-cased ALL-CAPS runs too); its ticket."""
        if name not in self.names:
            raise ValueError(f"source {name!r} does not run in the NER process ({self.names})")
        if not self.alive:
            if self._process is not None:
                logger.warning("the NER process of privacy_ner ended; starting a new one")
            self.start()
        with self._lock:
            ticket = self._next
            self._next += 1
            self._requests.put((ticket, name, list(texts), None if runs is None else list(runs), batch_size))
        return ticket

    def result(self, ticket: int) -> list[Entities]:
        """The answer to ``ticket``: the entities of each text, in order."""
        deadline = time.monotonic() + self.timeout_s
        with self._lock:
            _, status, payload = self._get_locked(ticket, deadline)
        if status != "ok":
            raise SourceProcessError(f"the NER process failed: {payload}")
        return payload

    def cancel(self, tickets: Sequence[int]) -> None:
        """Drop the answers of ``tickets`` (their caller gave up on them)."""
        with self._lock:
            for ticket in tickets:
                if self._done.pop(ticket, None) is None:
                    self._cancelled.add(ticket)

    def _get_locked(self, ticket: int, deadline: float) -> tuple[int, str, Any]:
        """The answer to ``ticket`` (answers to other tickets are kept for
        their callers, those of cancelled tickets dropped)."""
        while True:
            if ticket in self._done:
                status, payload = self._done.pop(ticket)
                return ticket, status, payload
            process = self._process
            if process is None or (ticket and ticket < self._first):
                raise SourceProcessError("the NER process ended before it answered")
            try:
                answer = self._answers.get(timeout=self.POLL_S)
            except queue.Empty:
                answer = None
            if answer is None or answer[1] == "eof":
                if answer is not None or process.poll() is not None:
                    code = process.wait(5) if process.poll() is None else process.returncode
                    self._stop_locked()
                    raise SourceProcessError(f"the NER process ended (exit code {code})")
                if time.monotonic() > deadline:
                    self._stop_locked(kill=True)  # a stuck child is killed; the next request starts a new one
                    raise SourceProcessError(f"the NER process did not answer within {self.timeout_s:g}s")
                continue
            got, status, payload = answer
            if got == ticket:
                return got, status, payload
            if got == 0:  # a child started without waiting: its sources are loaded, or not
                self._check_ready(status, payload)
                continue
            if got in self._cancelled:
                self._cancelled.discard(got)
            else:
                self._done[got] = (status, payload)


def _write_requests(stream: IO[bytes], requests: queue.Queue) -> None:
    """The writer thread: frames from ``requests`` to the child's stdin; ``None`` closes it."""
    try:
        while True:
            request = requests.get()
            write_frame(stream, request)
            if request is None:
                break
    except (BrokenPipeError, OSError, ValueError):  # the child ended: the reader reports it
        pass
    finally:
        try:
            stream.close()
        except OSError:
            pass


def _read_answers(stream: IO[bytes], answers: queue.Queue) -> None:
    """The reader thread: frames from the child's stdout to ``answers``; ``(-1, "eof", None)`` at the end."""
    try:
        while True:
            answers.put(read_frame(stream))
    except (EOFError, OSError, ValueError, pickle.UnpicklingError):
        answers.put((-1, "eof", None))
