"""One table of answer formats (answer/formats.py): its names are --format's choices, and `auto`
recognises each format from the text alone."""

from __future__ import annotations

import pytest

from code_commit.answer.formats import AUTO, FORMATS, TABLE, recognised
from code_commit.cli.apply import FORMATS as FORMAT_CHOICES

SAMPLES = {
    "caret": "^^^src/a.py\nprint(1)\n^^^end\n",
    "json": '[{"file": "src/a.py", "action": "create_file", '
    '"changes": [{"original_lines": [], "changed_lines": ["print(1)"]}]}]',
}


def test_the_choices_of_format_are_auto_and_the_table_s_names() -> None:
    assert (AUTO, *(entry.name for entry in TABLE)) == FORMAT_CHOICES
    assert set(FORMATS) == set(SAMPLES), "each format has its sample here"


@pytest.mark.parametrize("name", list(SAMPLES))
def test_auto_recognises_each_format_and_its_parser_reads_it(name: str) -> None:
    assert recognised(SAMPLES[name]).name == name
    (edit,) = FORMATS[name].parse(SAMPLES[name], None)
    assert edit.path == "src/a.py"


def test_exactly_one_format_recognises_any_text() -> None:
    for text in (*SAMPLES.values(), "", "prose and nothing else", "```json\n[]\n```\n", "^^^x\n```json\n[]\n```"):
        assert sum(entry.recognises(text) for entry in TABLE) == 1, text
