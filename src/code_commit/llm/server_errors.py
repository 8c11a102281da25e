"""What an OpenAI-compatible server's error says, read from the fields each server sets. Pure.

Servers word the same trouble differently: a prompt over the context is llama.cpp's type
exceed_context_size_error (with the counts beside it), OpenAI's and llama-cpp-python's code
context_length_exceeded, vLLM's param input_tokens; their numbers, where not in a field, are in the message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from code_commit.llm.catalog import tokens_at_most
from code_commit.llm.transport import excerpt


@dataclass(frozen=True)
class ServerError:
    """An OpenAI-style error as a server sent it: {"error": {...}}, {"error": "..."}, or the error itself at
    the top level, as vLLM before 0.10 and llama.cpp's `error:` lines send it."""

    type: str = ""
    code: str = ""  # OpenAI's is a word (context_length_exceeded); llama.cpp's and vLLM's the HTTP status
    param: str = ""
    message: str = ""
    n_prompt_tokens: int | None = None  # llama.cpp's exceed_context_size_error carries both counts
    n_ctx: int | None = None

    @property
    def kind(self) -> str:
        """The error's name for messages: its type, else its code."""
        return self.type or self.code

    @property
    def names(self) -> str:
        """Its type and, where it is a word (OpenAI's), its code: context_length_exceeded says more than
        invalid_request_error."""
        word = self.code if self.code and not self.code.isdigit() and self.code != self.type else ""
        return " ".join(name for name in (self.type, word) if name)


def whole_number(value: Any) -> int | None:
    """A count a server sent, if it is one (a positive int, never a bool)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def server_error(payload: Any) -> ServerError:
    if not isinstance(payload, dict):
        return ServerError()
    error = payload.get("error")
    if isinstance(error, str):
        return ServerError(message=excerpt(error))
    if not isinstance(error, dict):
        error = payload if payload.get("object") == "error" or "message" in payload else {}

    def text(name: str) -> str:
        value = error.get(name)
        return "" if value is None or isinstance(value, dict | list) else excerpt(value)

    return ServerError(
        type=text("type"),
        code=text("code"),
        param=text("param"),
        message=text("message"),
        n_prompt_tokens=whole_number(error.get("n_prompt_tokens")),
        n_ctx=whole_number(error.get("n_ctx")),
    )


# What a refusal's message may say about the model's limits (OpenAI's, vLLM's and others' wording).
_CONTEXT = re.compile(r"maximum context length is (\d+)|context (?:length|window|size) (?:is|of) (\d+)", re.I)
_PROMPT = re.compile(
    r"\((\d+) in the messages|(\d+) input tokens|messages resulted in (\d+) tokens"
    r"|prompt (?:has|contains) (\d+) tokens",
    re.I,
)
_OUTPUT_CAP = re.compile(r"at most (\d+) completion tokens", re.I)
_MAX_TOKENS = re.compile(r"max_(?:completion_)?tokens\W{0,3}(?:is )?too large|in the completion", re.I)


def _number(pattern: re.Pattern[str], text: str) -> int | None:
    match = pattern.search(text)
    return None if match is None else int(next(group for group in match.groups() if group))


@dataclass(frozen=True)
class ContextExceeded:
    """A prompt over the model's context, as the server counted it (either number may be unknown)."""

    prompt_tokens: int | None
    context: int | None


def context_exceeded(error: ServerError) -> ContextExceeded | None:
    """Whether an error says the prompt is over the context, known by the fields each server sets, never by
    its wording alone:

    - llama.cpp's server: type exceed_context_size_error, with n_prompt_tokens and n_ctx beside it
      (ggml-org/llama.cpp tools/server/server-common.cpp format_error_response, server-task.cpp
      server_task_result_error::to_json);
    - OpenAI, and llama-cpp-python (llama_cpp/server/errors.py, context_length_exceeded): code
      context_length_exceeded;
    - vLLM: param input_tokens (its VLLMValidationError for a prompt over max_model_len).

    The numbers are llama.cpp's fields; the others give them only in the message, read from there."""
    if error.type == "exceed_context_size_error":
        return ContextExceeded(error.n_prompt_tokens, error.n_ctx)
    if error.code == "context_length_exceeded" or error.param == "input_tokens":
        return ContextExceeded(_number(_PROMPT, error.message), _number(_CONTEXT, error.message))
    return None


@dataclass(frozen=True)
class OutputLimitTooLarge:
    """A request refused for its output limit (max_tokens), not its prompt."""

    fits: int | None  # the largest max_tokens that would fit, when the service's numbers tell


def output_limit_problem(message: str, prompt_chars: int, max_tokens: int) -> OutputLimitTooLarge | None:
    """Whether a refusal's message says, or its numbers show, that the trouble is the requested output
    limit rather than the prompt.

    Servers that check prompt + max_tokens against the context (vLLM, OpenAI's older models) refuse with
    "maximum context length is C tokens ... (P in the messages, M in the completion)". Where the message
    gives C but not P, the prompt is counted at 3 characters a token (a high estimate): a prompt that fits
    even so is not the trouble."""
    cap = _number(_OUTPUT_CAP, message)
    if cap is not None:
        return OutputLimitTooLarge(cap)
    context = _number(_CONTEXT, message)
    prompt = _number(_PROMPT, message)
    if context is not None and prompt is None and tokens_at_most(prompt_chars) < context:
        prompt = tokens_at_most(prompt_chars)
    if context is not None and prompt is not None:
        room = context - prompt
        return OutputLimitTooLarge(room) if 0 < room < max_tokens else None
    return OutputLimitTooLarge(None) if _MAX_TOKENS.search(message) else None
