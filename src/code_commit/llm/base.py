"""The provider protocol and the typed results every provider returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from code_commit.llm.prompts import Prompt


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0  # input neither written to nor read from the prompt cache
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    thinking_tokens: int = 0  # of output_tokens, those spent thinking (billed as output, counted in it)
    # Some of these counts are code-commit's estimate from the text, not the service's own count: a server
    # that reports no usage, an attempt that broke off before its counts came (catalog.estimated_usage).
    estimated: bool = False

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.thinking_tokens + other.thinking_tokens,
            self.estimated or other.estimated,
        )

    @property
    def all_input_tokens(self) -> int:
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    @property
    def cached_share(self) -> float:
        """The share of all input tokens read from the prompt cache (0 when there was no input)."""
        total = self.all_input_tokens
        return self.cache_read_tokens / total if total else 0.0


@dataclass(frozen=True)
class Tally:
    """How many requests a call has made so far."""

    requests: int = 0  # HTTP requests sent: attempts that failed, the answer, its continuations
    retries: int = 0  # requests that repeated one that failed with a transient fault
    continuations: int = 0  # answered requests for the rest of an answer cut off at the output limit


@dataclass(frozen=True)
class Completion:
    text: str
    stop_reason: str  # Anthropic's words: end_turn, max_tokens, refusal, model_context_window_exceeded, ...
    usage: Usage  # every request, continuations included, and what failed attempts are known to have used
    duration: float  # the whole call: every attempt, wait and continuation
    requests: int = 1  # as in Tally
    retries: int = 0
    continuations: int = 0
    thinking: str = ""  # the model's thinking, apart from the answer: logged, never parsed


def _ignore(message: str) -> None:
    pass


@dataclass
class Hooks:
    """How a provider reaches the run: what it reports, and the run's veto before each request."""

    notify: Callable[[str], None] = _ignore  # a retry or a continuation, for the console and run.log
    # Before every HTTP attempt (retries and continuations included), with the request's characters;
    # raise to stop.
    before_request: Callable[[int], None] = field(default=lambda chars: None)
    # After each attempt: an answered request's counts, or what a failed one is known to have used.
    on_usage: Callable[[Usage], None] = field(default=lambda usage: None)
    # The call's running counts, whenever they change: a call that fails still says what it made.
    on_tally: Callable[[Tally], None] = field(default=lambda tally: None)


class Provider(Protocol):
    def complete(self, prompt: Prompt, on_text: Callable[[str], None] | None = None) -> Completion:
        """Send the prompt; return the whole answer. Raise ServiceError when the service fails.

        on_text receives the answer's text as it streams in; after a retried attempt it starts over.
        """
        ...
