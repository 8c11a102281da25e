"""The command line's setting flags, each made from its one declaration in `settings.Settings`.

A field whose metadata names commands in `flag` is a flag of a run: `--name` (`--name/--no-name`
for a switch, repeatable for a list), typed as the field, its help the field's doc and its default.
It counts when given before those subcommands, and before `config`, which shows every setting.
Adding such a field adds the flag: nothing here names a setting, and cli/app.py names only the two
settings `rollup` has options of its own for (`setting_option(..., command="rollup")`).
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from code_commit.config.settings import Settings, flag_name

_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}
_HINTS = typing.get_type_hints(Settings)

# The settings with a flag of a run, in the order --help shows them.
_FLAG_SETTINGS = tuple(name for name, f in _FIELDS.items() if f.metadata["flag"])

F = TypeVar("F", bound=Callable[..., Any])


def honoured_before(command: str) -> frozenset[str]:
    """The setting flags `command` honours when given before it."""
    if command == "config":
        return frozenset(_FLAG_SETTINGS)
    return frozenset(name for name in _FLAG_SETTINGS if command in _FIELDS[name].metadata["flag"])


def _value_type(name: str) -> Any:
    """The field's type without None: str, int, float, bool or list[str]. A switch that may name
    what it is on for (bool | list[str]) is a list: `--name true`, `--name false` or names."""
    hint = _HINTS[name]
    if isinstance(hint, types.UnionType):
        args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        (hint,) = [arg for arg in args if typing.get_origin(arg) is list] if len(args) > 1 else args
    return hint


def _shown_default(name: str) -> str:
    """The default as --help shows it; none for a switch, for a list and for a setting unset by
    default (its doc says what unset means)."""
    value = _FIELDS[name].default  # a list's default is a factory: MISSING here
    if value is None or value is dataclasses.MISSING or isinstance(value, bool):
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f" [default: {value}]"


def setting_option(name: str, command: str | None = None) -> Any:
    """The typer option of setting `name`: a run's flag, or (`command` given) that subcommand's own
    option, whose help names the setting it sets."""
    doc = _FIELDS[name].metadata["doc"]
    decls: tuple[str, ...] = ()
    if command is not None:  # its first sentence, without the "code-commit rollup: " its own --help needs not
        doc = doc.removeprefix(f"code-commit {command}: ").split(". ", 1)[0].removesuffix(".")
        doc = f"{doc[0].upper()}{doc[1:]} (setting {name})."
    elif typing.get_origin(_value_type(name)) is list:
        doc = f"{doc.removesuffix('.')} (repeatable)."
    elif _value_type(name) is bool:
        decls = (f"{flag_name(name)}/--no-{flag_name(name)[2:]}",)
    return typer.Option(*decls, help=doc + _shown_default(name))


def with_setting_flags(command: F) -> F:
    """Give `command` (which takes them as **kwargs) one keyword parameter per setting flag, as
    typer reads parameters: each None unless given. They come first in --help, after the context."""
    signature = inspect.signature(command, eval_str=True)
    context, *rest = (p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD)
    rest = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in rest]
    added = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[_value_type(name) | None, setting_option(name)],
        )
        for name in _FLAG_SETTINGS
    ]
    command.__signature__ = signature.replace(parameters=[context, *added, *rest])  # type: ignore[attr-defined]
    return command
