"""Continuing an answer cut off at the output limit, without prefill, and joining the parts exactly. Pure.

Current models refuse a request that ends with the assistant's turn (Claude 4.6 and later answer HTTP
400 "This model does not support assistant message prefill"), and Chat Completions never had a portable
way to make a model extend its own message. So every provider asks the same way, in a request that ends
with a user turn:

    user:       the original prompt, unchanged (the prompt cache serves it)
    assistant:  the answer up to the end of its last complete line (`kept`)
    user:       "continue: begin with these last lines, copied exactly", and the lines (`anchor`)

The line the cut fell in is dropped and written again by the model, whatever the cut split: a word, a
`^^^end` fence, a multi-byte character (a server may send U+FFFD for a character's first bytes). The
join takes `kept` as it was received and, from the continuation, only what follows the anchor: nothing
received is lost, and nothing is doubled. A continuation that does not repeat the anchor near its start
is not guessed at: it is asked for again (`insisting`), within the continuations left, and when none is
left the answer stays cut off (the run refuses it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

_ANCHOR_LINES = 2  # non-blank lines the continuation must repeat: one alone (`^^^end`, `}`) says too little
LEADING_LINES = 3  # lines a continuation may write before the anchor (a preamble): dropped

_CONTINUE = (
    "Your answer above was cut off at the output limit, in the line after the last one shown. "
    "Continue it: begin your reply with the last lines of your answer, copied exactly as they are "
    "between the markers below, then write everything that follows them, to the end of the answer. "
    "Write nothing before those lines, and repeat nothing else.\n"
    "--- LAST LINES ---\n{anchor}--- END OF LAST LINES ---\n"
)
# After a continuation that did not begin with them: the same request, and this said first.
_INSIST = (
    "Your last reply did not begin with those lines, so it could not be joined to the answer and was "
    "dropped. Begin your reply with the lines between the markers below, character for character.\n"
)


@dataclass(frozen=True)
class Continuation:
    kept: str  # the answer up to the end of its last complete non-blank line, newline included
    anchor: str  # the end of `kept` from its second-last non-blank line on (whole lines)
    insist: bool = False  # asked again after a continuation that did not repeat the anchor

    @property
    def assistant_turn(self) -> str:
        """The answer so far as the request sends it back: `kept` without its last newline (a turn that
        ends in white space is refused by some models)."""
        return self.kept[:-1]

    @property
    def instruction(self) -> str:
        return (_INSIST if self.insist else "") + _CONTINUE.format(anchor=self.anchor)

    def insisting(self) -> Continuation:
        """The same continuation, asked again after a reply that did not begin with the anchor."""
        return replace(self, insist=True)

    @property
    def chars(self) -> int:
        """The characters a continuation adds to the request."""
        return len(self.assistant_turn) + len(self.instruction)


def continuation_of(text: str) -> Continuation | None:
    """How to ask for the rest of `text`; None when it has no complete non-blank line to go on from."""
    lines = text.split("\n")[:-1]  # the last element is the line the cut fell in (or "")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return None
    kept = "\n".join(lines) + "\n"
    non_blank = [i for i, line in enumerate(lines) if line.strip()]
    start = non_blank[-_ANCHOR_LINES] if len(non_blank) >= _ANCHOR_LINES else non_blank[0]
    return Continuation(kept, "\n".join(lines[start:]) + "\n")


def join(continuation: Continuation, more: str) -> str | None:
    """`kept` and what `more` writes after the anchor; None when `more` does not repeat the anchor within
    its first LEADING_LINES + 1 lines, or adds nothing after it. Lines are compared without their
    trailing white space; `kept` keeps its own."""
    anchor = continuation.anchor.split("\n")[:-1]
    lines = more.split("\n")
    for start in range(min(LEADING_LINES + 1, len(lines))):
        window = lines[start : start + len(anchor)]
        if len(window) == len(anchor) and all(a.rstrip() == b.rstrip() for a, b in zip(anchor, window, strict=True)):
            after = start + len(anchor)
            if after >= len(lines):  # the anchor's last line has no newline: nothing came after it
                return None
            rest = "\n".join(lines[after:])
            return continuation.kept + rest if rest else None
    return None
