"""The trees a run's builds started from, so that the same tree is never built twice.

A build is a run's costly step, and its verdict comes from the tree it starts from. An answer that
leaves the tree as a build of the run already found it earns no build: the verdict is known, and a
build would spend the attempt's time to say it again. So an applied answer is not built when:

- it changed nothing on disk: its plan's net changes are empty (no block at all, or every file it
  gave already held that content). This holds after a build that changed the tree itself (a
  formatter) too: the model changed nothing, so nothing new would be tried; or
- the files the run has touched hold what they held when an earlier build of the run started.
  The run's files are those its answers wrote or deleted and those git shows that its builds
  changed; one the run first touched after that build is compared with what it held before the
  run first touched it (what it held when that build started).

Each file is compared by a SHA-256 of its bytes, read without following a symlink (its mode is not
compared). A symlink, a file that cannot be read, one over READ_BYTES, and a build's original that
was not kept never equal anything: in doubt, the tree is built. What builds write where git does not
look (ignored outputs, caches) is no part of the tree. Nothing here decides from what the model or
its build wrote about the tree: only from what is on disk and what the run recorded before it wrote.
"""

from __future__ import annotations

import hashlib
import itertools
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from code_commit.answer.plan import Plan
from code_commit.builds.changes import READ_BYTES, Before
from code_commit.files.confined import Tree
from code_commit.llm.prompts import Feedback
from code_commit.run.revert import Original

_ABSENT = "absent"
Files = dict[str, str]  # path -> a digest of what it holds


@dataclass(frozen=True)
class _NotBuilt:
    """Why an applied answer is not built: `what` for the console and run.log, `told` for the model."""

    what: str
    told: str

    def feedback(self, previous: Feedback | None) -> Feedback:
        """The next prompt's feedback: what happened, in a NO CHANGE section before the last feedback."""
        if previous is None:
            after = "build.sh has not run yet in this run: answer with the blocks that carry out the QUERY."
        elif previous.refused:
            after = "The ANSWER REFUSED section below is about an earlier answer: answer with blocks that change files."
        else:
            after = "The BUILD OUTPUT below is still the last build's: change the files so that build.sh passes."
        note = f"Your previous answer {self.told}, so build.sh was not run again; the attempt is used up. {after}"
        return replace(previous or Feedback(""), unchanged=note)


@dataclass
class BuiltTrees:
    """The run's working state for the rule above."""

    first: dict[str, str] = field(default_factory=dict)  # each file the run touched, before it first did
    built: list[tuple[int, Files]] = field(default_factory=list)  # each build's call, and the files as it found them
    _unique: Iterator[int] = field(default_factory=itertools.count)

    def decide(
        self, plan: Plan, call: int, root: Path, by_builds: Mapping[str, Before], by_answers: Mapping[str, Original]
    ) -> _NotBuilt | None:
        """Whether the tree `plan` (just applied) left is not to be built, and why; if it is to be built,
        it is remembered as the tree of this call's build. `by_builds` and `by_answers`: what the
        run's builds and answers found in the files they first changed (BuildWatch's, Originals')."""
        self.note(by_builds, by_answers, root)
        now = self.current(root)
        earlier = self.judged(now) if plan.changes else None
        if plan.changes and earlier is None:
            self.building(call, now)
            return None
        if not plan.final:
            return _NotBuilt(
                "the answer has no ^^^ block, so it changed nothing", "held no ^^^ block and changed nothing"
            )
        if not plan.changes:
            return _NotBuilt(
                "the answer changed nothing: every file it gave already held that content",
                "changed nothing (every file it gave already held that content)",
            )
        which = "the baseline build, before any answer," if earlier == 0 else f"the build of call {earlier}"
        return _NotBuilt(
            f"the answer left the files as {which} found them, and that build failed",
            f"put the files back as they were when {which} ran (that build failed)",
        )

    def note(self, by_builds: Mapping[str, Before], by_answers: Mapping[str, Original], root: Path) -> None:
        """The files first touched since the last look: by a build (which came first, so its original
        stands) or by the answer just applied, each as it was before."""
        for path, before in by_builds.items():
            if path not in self.first:
                self.first[path] = self._of_before(before, root)
        for path, original in by_answers.items():
            if path not in self.first:
                self.first[path] = _digest(original.content)

    def current(self, root: Path) -> Files:
        """What each file the run touched holds now."""
        now: Files = {}
        with Tree(root) as tree:
            for path in self.first:
                try:
                    info = tree.lstat(path)
                    if info is None:
                        now[path] = _ABSENT
                    elif stat.S_ISREG(info.st_mode) and info.st_size <= READ_BYTES:
                        now[path] = _digest(tree.read(path, READ_BYTES + 1))
                    else:
                        now[path] = self._never_equal()
                except OSError:
                    now[path] = self._never_equal()
        return now

    def judged(self, now: Files) -> int | None:
        """The call whose build started from the tree `now`, if one did."""
        for call, found in self.built:
            if all(found.get(path, self.first[path]) == digest for path, digest in now.items()):
                return call
        return None

    def building(self, call: int, now: Files) -> None:
        self.built.append((call, now))

    def _of_before(self, before: Before, root: Path) -> str:
        if before.symlink or not before.known:
            return self._never_equal()
        content = before.read(root)
        if before.blob is not None and content is None:  # git could not give it back
            return self._never_equal()
        return _digest(content)

    def _never_equal(self) -> str:
        return f"unknown {next(self._unique)}"


def _digest(content: bytes | None) -> str:
    return _ABSENT if content is None else hashlib.sha256(content).hexdigest()
