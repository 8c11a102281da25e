"""Secret redaction: a secret's one visible form (`censor`), the `Redactor` that censors it in
every form code-commit escapes text into, and logging censored as each record is made.

Everything written to a log file, shown on the console or put in a prompt passes through a
`Redactor` first, so a key never reaches disk or a terminal except censored to its last two
characters.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging


def censor(secret: str) -> str:
    """The only form in which a secret may appear: a fixed mask and its last two characters."""
    return "********" + secret[-2:]


@dataclass(frozen=True)
class Redactor:
    secrets: tuple[str, ...] = ()

    @classmethod
    def of(cls, secrets: Iterable[str]) -> Redactor:
        # Each secret also in the forms code-commit itself escapes text into: a JSON record (`"`, `\`,
        # and non-ASCII in `apply --json`), a message that quotes with repr(), and its UTF-8 bytes read
        # as Latin-1 (how diffs.redact_bytes censors a patch); each decodes back to the secret. Longest
        # first, so one that contains another is masked whole.
        forms = {form for s in secrets if s for form in _escaped_forms(s)}
        return cls(tuple(sorted(forms, key=len, reverse=True)))

    def found_in(self, text: str) -> frozenset[str]:
        """The secrets `text` holds, each in whichever of its forms it is there."""
        return frozenset(secret for secret in self.secrets if secret in text)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, censor(secret))
        return text


def _escaped_forms(secret: str) -> set[str]:
    import json

    utf8_as_latin1 = secret.encode("utf-8", "surrogatepass").decode("latin-1")  # how a patch's bytes are censored
    return {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        utf8_as_latin1,
    }


def _censor_record(record: logging.LogRecord, redact: Redactor) -> None:
    record.msg = redact(record.getMessage())
    record.args = None
    if record.exc_info and not record.exc_text:
        import logging

        # Formatted now, so a handler prints the censored text rather than formatting it afresh.
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


@contextlib.contextmanager
def redacted_logging(redact: Redactor) -> Iterator[None]:
    """Censor every log record as it is made, whatever logger makes it and whatever handler prints
    it: the SDK's own debug logging (ANTHROPIC_LOG=debug) adds its handler when the SDK is first
    imported, which is after this is in place, and a handler's filters would miss it."""
    import logging  # not at start-up: only a run logs

    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _censor_record(record, redact)
        return record

    logging.setLogRecordFactory(factory)
    try:
        yield
    finally:
        logging.setLogRecordFactory(previous)
