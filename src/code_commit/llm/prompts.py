"""System prompt loading and prompt assembly. Assembly is pure.

A prompt is an ordered list of sections. The default order (`--prompt-order spec`):

    initial: [project structure][code modification][initial query][query][codebase]
    repair:  [project structure][code modification][repair query][build output][query][codebase]
             [file replacements][file context]

[build output] is the last build's output (`--- BUILD OUTPUT ---`), or why the last answer was refused
(`--- ANSWER REFUSED ---`); when the answers since changed nothing, so no build ran, a `--- NO CHANGE ---`
block before it says so (alone when no build has run yet).

[file context] (`repair_context = "failure"`, the default) holds the project files the failing build
names, and what they import, that neither the codebase shows whole nor the file replacements hold, each
as `--- FILE CONTEXT [path] ---` and its content; it is always the last section, in either order, and
absent when there is no such file, so the spec's sections keep their order and wording.

The system-prompt sections go to the provider's system slot and the rest, in order, to the
user turn, so the model sees them exactly in that order.

`--prompt-order cache` puts what every call of a run shares first, so the provider's prompt cache
can serve it to every call after the first:

    initial: [project structure][code modification] | [query][codebase] | [initial query]
    repair:  [project structure][code modification] | [query][codebase] | [repair query][build output]
             [file replacements]

The task prompt (initial or repair query) moves behind the codebase because it is the one system
prompt that differs between the initial call and the repairs; left in front, it would make the first
repair miss the cache. A `|` above is a cache breakpoint (`Section.cache`). In the default order only
[project structure][code modification] lead every call (the task prompt after them differs), so the
one breakpoint is there:

    initial: [project structure][code modification] | [initial query][query][codebase]
    repair:  [project structure][code modification] | [repair query][build output][query][codebase]
             [file replacements]
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.errors import SetupError

PROMPT_FILES = {
    "project_structure": "project_structure.txt",
    "code_modification": "code_modification.txt",
    "initial_query": "initial_query.txt",
    "repair_query": "repair_query.txt",
}


@dataclass(frozen=True)
class Section:
    title: str
    text: str
    system: bool = False
    cache: bool = False  # a prompt-cache breakpoint: the prefix up to here is the same in later calls


@dataclass(frozen=True)
class Prompt:
    sections: tuple[Section, ...]

    @property
    def system(self) -> tuple[Section, ...]:
        return tuple(s for s in self.sections if s.system)

    @property
    def user(self) -> tuple[Section, ...]:
        return tuple(s for s in self.sections if not s.system)

    def render(self) -> str:
        """The whole prompt as one text, as it is logged."""
        return "".join(_with_newline(s.text) for s in self.sections)

    def redacted(self, redact: Redactor) -> Prompt:
        return Prompt(tuple(replace(s, text=redact(s.text)) for s in self.sections))


@dataclass(frozen=True)
class SystemPrompts:
    project_structure: str
    code_modification: str
    initial_query: str
    repair_query: str


def system_prompts_dir() -> Path:
    """Where the prompt texts are: inside the installed package, or in a source checkout."""
    here = Path(__file__).resolve().parents[1]  # the code_commit package
    for candidate in (here / "system_prompts", here.parents[1] / "system_prompts"):
        if candidate.is_dir():
            return candidate
    raise SetupError(f"the system prompts are missing from {here}; reinstall code-commit")


def load_system_prompts(directory: Path | None = None, settings: Settings | None = None) -> SystemPrompts:
    """The prompt texts, with the code-modification prompt's {placeholders} filled from `settings`."""
    directory = directory or system_prompts_dir()
    texts: dict[str, str] = {}
    for name, filename in PROMPT_FILES.items():
        try:
            texts[name] = (directory / filename).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SetupError(f"cannot read the system prompt {directory / filename}: {exc}") from exc
    modification = fill_placeholders(texts["code_modification"], _prompt_values(settings or Settings()))
    texts["code_modification"] = modification.rstrip("\n") + "\n"  # an empty last placeholder leaves no blank line
    return SystemPrompts(**texts)


# What the code-modification prompt says of the tests, by the `tests` setting (its {tests} placeholder):
# the rule, and under protect and report the one sanctioned way to hand the task back. Nothing under
# free: the prompt neither states a rule nor offers the block there.
TESTS_PROTECTED = """\
THE TESTS

The project's existing tests are the specification, and they are read-only:
- An answer that changes or deletes an existing test file, or creates, changes or deletes the
  test runner's configuration (pytest's ini, toml and cfg files and conftest.py, the test
  settings of pyproject.toml or package.json, a jest or vitest config, a Makefile's or CMake's
  test rules and the like), is rejected whole, and none of it is applied.
- You may add new test files, such as a regression test for the change. They are kept, but
  whether the build passes is judged without them.
- Fix the code, not the tests.
"""

TESTS_REPORTED = """\
THE TESTS

You may change the tests and the test runner's configuration, but every such change is
reported to the supervisor, file by file. Fix the code, not the tests, unless the QUERY asks
for a change to the tests.
"""

HAND_BACK = """\
WHEN THE CODE CANNOT BE FIXED

If the task cannot be done without changing the tests or build.sh (the tests contradict the
QUERY, or the failure lies outside the code: a tool the build lacks, its environment), do not
work around it. Answer with this one block instead, and no other block:

^^^needs-human
why a person must decide, in a few sentences: what contradicts what, or what is missing
^^^end

The run then stops, and a person reads your reason; nothing else in that answer is applied.
"""

_TESTS_TEXTS = {"protect": TESTS_PROTECTED + "\n" + HAND_BACK, "report": TESTS_REPORTED + "\n" + HAND_BACK, "free": ""}


def _prompt_values(settings: Settings) -> dict[str, str]:
    """What the code-modification prompt's placeholders stand for."""
    if settings.allow_delete:
        deleting = "Delete a file only when the task needs it."
    else:
        deleting = (
            "Deleting files is turned off in this project: a ^^^delete block makes the whole answer "
            "rejected. Change or empty the file instead, and say outside the blocks what the supervisor "
            "should delete."
        )
    return {
        "edit_threshold_lines": str(settings.edit_threshold_lines),
        "edit_threshold_bytes": str(settings.edit_threshold_bytes),
        "deleting": deleting,
        "tests": _TESTS_TEXTS[settings.tests],
    }


def fill_placeholders(text: str, values: Mapping[str, str]) -> str:
    """Replace each {name} of `values` in `text`; other braces (code in a prompt) are left alone."""
    if not values:
        return text
    pattern = re.compile(r"\{(" + "|".join(map(re.escape, values)) + r")\}")
    return pattern.sub(lambda match: values[match.group(1)], text)


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") or not text else text + "\n"


def _labelled(label: str, text: str) -> str:
    return f"--- {label} ---\n{_with_newline(text)}"


def initial_prompt(system: SystemPrompts, query: str, codebase: str, order: str = "spec") -> Prompt:
    task = Section("initial query", system.initial_query, system=True)
    return _ordered(system, task, (), query, codebase, order)


@dataclass(frozen=True)
class Feedback:
    """What the previous attempt produced: the build's output, or why the answer was refused; and, when
    the answers after it changed nothing, so no build ran, what happened (`unchanged`, a NO CHANGE
    section before it; `text` may then be empty: no build has run yet)."""

    text: str
    refused: bool = False
    unchanged: str = ""


def repair_prompt(
    system: SystemPrompts,
    feedback: Feedback,
    query: str,
    codebase: str,
    replacements: Mapping[str, str | None],
    order: str = "spec",
    context: Mapping[str, str] | None = None,
) -> Prompt:
    """`replacements` maps each path earlier answers touched to its latest content (None: removed);
    `context`, the failure's files (path -> content, in order) shown after everything else."""
    label = "ANSWER REFUSED" if feedback.refused else "BUILD OUTPUT"
    task = Section("repair query", system.repair_query, system=True)
    shown = _labelled("NO CHANGE", feedback.unchanged) if feedback.unchanged else ""
    if feedback.text or not feedback.unchanged:
        shown += _labelled(label, feedback.text)
    tail = (
        Section("build output", shown),
        Section("file replacements", render_replacements(replacements)),
    )
    prompt = _ordered(system, task, tail, query, codebase, order)
    if not context:
        return prompt
    return Prompt((*prompt.sections, Section("file context", _render_context(context))))


def _ordered(
    system: SystemPrompts, task: Section, tail: tuple[Section, ...], query: str, codebase: str, order: str
) -> Prompt:
    """The sections in the given order (see the module doc); tail is (build output, file replacements)."""
    structure = Section("project structure", system.project_structure, system=True)
    modification = Section("code modification", system.code_modification, system=True)
    query_section = Section("query", _labelled("QUERY", query))
    codebase_section = Section("codebase", _labelled("CODEBASE", codebase))
    if order == "cache":
        return Prompt(
            (
                structure,
                replace(modification, cache=True),
                query_section,
                replace(codebase_section, cache=True),
                replace(task, system=False),
                *tail,
            )
        )
    # The default order: the task prompt and the build output come before the query and the codebase, so
    # the prefix every call shares ends with the code-modification prompt.
    return Prompt(
        (structure, replace(modification, cache=True), task, *tail[:1], query_section, codebase_section, *tail[1:])
    )


def _render_context(context: Mapping[str, str]) -> str:
    return "".join(_labelled(f"FILE CONTEXT [{path}]", content) for path, content in context.items())


def render_replacements(replacements: Mapping[str, str | None]) -> str:
    parts = []
    for path in sorted(replacements):
        content = replacements[path]
        if content is None:
            parts.append(f"--- FILE REMOVED [{path}] ---\n")
        else:
            parts.append(_labelled(f"FILE REPLACEMENT [{path}]", content))
    return "".join(parts)
