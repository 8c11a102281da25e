"""A provider that answers from a fixed script: the model of `code-commit demo`.

It implements the same `Provider` protocol as the real ones, so everything around it (prompt
assembly, parser, guard, apply, build, logs) is the real pipeline. No network, no key.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from code_commit.errors import ServiceError
from code_commit.llm.base import Completion, Usage
from code_commit.llm.prompts import Prompt

_CHARS_PER_TOKEN = 4  # a rough estimate, for the token counts the demo shows; nothing is billed


class ScriptedProvider:
    name = "scripted"  # for the run's record: no network service answered

    def __init__(self, answers: Sequence[str], pace: float = 0.0) -> None:
        """`pace`: seconds each answer takes to stream in, so a person can watch it arrive."""
        self._answers = list(answers)
        self._pace = pace
        self.prompts: list[Prompt] = []  # every prompt received, in order

    def complete(self, prompt: Prompt, on_text: Callable[[str], None] | None = None) -> Completion:
        started = time.monotonic()
        self.prompts.append(prompt)
        if not self._answers:
            raise ServiceError("the scripted model has no answer left")
        text = self._answers.pop(0)
        pieces = [text[i : i + 64] for i in range(0, len(text), 64)]
        for piece in pieces:
            if self._pace:
                time.sleep(self._pace / len(pieces))
            if on_text:
                on_text(piece)
        return Completion(
            text=text,
            stop_reason="end_turn",
            usage=Usage(
                input_tokens=len(prompt.render()) // _CHARS_PER_TOKEN,
                output_tokens=len(text) // _CHARS_PER_TOKEN,
            ),
            duration=time.monotonic() - started,
        )
