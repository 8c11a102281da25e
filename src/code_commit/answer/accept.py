"""A model's completion -> a checked plan, or the refusal that says why none: an answer cut off at the
output limit, longer than code-commit reads, or declined is refused whole; any other is planned
(planning.py)."""

from __future__ import annotations

from pathlib import Path

from code_commit.answer.plan import AnswerRefused, Plan
from code_commit.answer.planning import checked_plan
from code_commit.config.redaction import Redactor
from code_commit.config.settings import MAX_CONTINUATIONS, Settings
from code_commit.guard.policy import Guard
from code_commit.llm.base import Completion
from code_commit.llm.transport import ANSWER_TOO_LARGE


def accept_answer(
    root: Path,
    completion: Completion,
    settings: Settings,
    guard: Guard | None = None,
    need_blocks: bool = False,
    secrets: Redactor | None = None,
) -> Plan:
    """Parse and guard an answer; raise AnswerRefused if any part of it cannot be applied (or, with
    `need_blocks`, if it has no block at all: prose alone is no answer to a dry run)."""
    if completion.stop_reason == "max_tokens":
        raise AnswerRefused.of(
            "truncated",
            f"the answer was still cut off at the output limit ({settings.max_tokens} tokens) after "
            f"{completion.continuations} continuation(s) of at most {MAX_CONTINUATIONS}, so none of it was "
            "applied; give fewer or smaller files",
        )
    if completion.stop_reason == ANSWER_TOO_LARGE:
        raise AnswerRefused.of(
            "too_large",
            f"the answer was longer than code-commit reads ({settings.answer_byte_cap:,} bytes, "
            "max_answer_bytes), so the rest of it was not read and none of it was applied; give fewer or smaller "
            "files, or edit blocks instead of whole files",
        )
    if completion.stop_reason == "refusal":
        raise AnswerRefused.of(
            "declined", "the model declined to answer (stop reason: refusal), so nothing was applied"
        )
    return checked_plan(root, completion.text, settings, guard=guard, need_edits=need_blocks, secrets=secrets)
