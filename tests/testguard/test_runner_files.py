"""What each runner reads, read with its format's parser (testguard/runners.py): a change to the
runner's part of a file is seen however it is spelled (XML's CDATA and character references, TOML's
dotted keys, a Makefile's continued lines and special targets, CMake's bracket arguments and
comments), and a change to the rest of a shared file is not the runner's."""

from __future__ import annotations

import pytest

from code_commit.testguard.runners import Unreadable, cmake_commands, entries_for, runner_part

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <properties><java.version>17</java.version>{props}</properties>
  <build><plugins><plugin>
    <artifactId>maven-surefire-plugin</artifactId>
    <configuration>{config}</configuration>
  </plugin></plugins></build>
</project>
"""


def changed(path: str, before: str | None, after: str | None) -> bool:
    old = runner_part(path, None if before is None else before.encode())
    new = runner_part(path, None if after is None else after.encode())
    assert old is not None and new is not None, f"{path} is a runner's file"
    return old != new and (old.holds_any() or new.holds_any())


@pytest.mark.parametrize(
    "spelling",
    ["<skipTests>true</skipTests>", "<skipTests><![CDATA[true]]></skipTests>", "<skipTests>&#116;rue</skipTests>"],
)
def test_surefire_s_skip_is_seen_however_xml_spells_it(spelling: str) -> None:
    assert changed("pom.xml", POM.format(props="", config=""), POM.format(props="", config=spelling))
    assert changed("pom.xml", POM.format(props="", config=""), POM.format(props=spelling, config=""))


def test_the_rest_of_a_pom_is_code() -> None:
    before = POM.format(props="", config="")
    assert not changed("pom.xml", before, before.replace("<java.version>17", "<java.version>21"))


def test_an_entity_bomb_is_unreadable_not_expanded() -> None:
    bomb = '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8)
    )
    bomb += "]><project><properties><skipTests>&i;</skipTests></properties></project>"
    with pytest.raises(Unreadable):
        runner_part("pom.xml", bomb.encode())


@pytest.mark.parametrize(
    ("before", "after", "runner"),
    [
        ("[tool.pytest.ini_options]\naddopts = '-q'\n", "[tool.pytest.ini_options]\naddopts = '-q -k x'\n", True),
        ("[project]\nname = 'a'\n", "[project]\nname = 'a'\n[tool.pytest]\naddopts = ['--setup-plan']\n", True),
        ("[project]\nname = 'a'\n", "tool.pytest.addopts = ['--setup-only']\n[project]\nname = 'a'\n", True),
        (
            "[project]\nversion = '1'\n[tool.pytest.ini_options]\nx = 1\n",
            "[project]\nversion = '2'\n[tool.pytest.ini_options]\nx = 1\n",
            False,
        ),
    ],
)
def test_pyproject_s_runner_tables_and_nothing_else(before: str, after: str, runner: bool) -> None:
    assert changed("pyproject.toml", before, after) is runner


def test_ini_files_by_section() -> None:
    assert changed("setup.cfg", "[metadata]\nname = a\n", "[metadata]\nname = a\n[tool:pytest]\naddopts = -p x\n")
    assert not changed("setup.cfg", "[metadata]\nname = a\n", "[metadata]\nname = b\n")
    assert changed("tox.ini", "[tox]\nenv_list = py\n", "[tox]\nenv_list = py\n[testenv]\ncommands = pytest -k x\n")


def test_package_json_s_test_scripts_and_runner_keys() -> None:
    base = '{"scripts": {"test": "node --test", "lint": "eslint ."}}'
    assert changed("package.json", base, base.replace("node --test", "node --test | cat"))
    assert changed("package.json", base, base.replace('"lint"', '"pretest": "exit 0", "lint"'))
    assert changed("package.json", base, base[:-1] + ', "jest": {"testPathIgnorePatterns": ["calc"]}}')
    assert not changed("package.json", base, base.replace("eslint .", "eslint --fix ."))


MAKEFILE = (
    "CFLAGS = -O2\nRUN = ./runner\n\n.PHONY: test all\ntest: runner\n\t$(RUN) \\\n\t  --all\n\n"
    "runner: tests/runner.c\n\t$(CC) -o $@ $<\n\nlib.o: lib.c\n\t$(CC) $(CFLAGS) -c $<\n"
)


@pytest.mark.parametrize(
    "after",
    [
        MAKEFILE.replace("\t$(RUN)", "\t-$(RUN)"),
        MAKEFILE.replace("  --all", "  --all || true"),
        MAKEFILE.replace("RUN = ./runner", "RUN = true"),  # a variable the test rule refers to
        MAKEFILE + ".IGNORE:\n",
        MAKEFILE + "MAKEFLAGS += -k\n",
        MAKEFILE.replace("\t$(CC) -o $@ $<", "\t$(CC) -o $@ stub.c"),  # the rule that builds the tests
        MAKEFILE.replace("test: runner", "test:"),
    ],
)
def test_a_makefile_s_test_rules_are_the_runner_s(after: str) -> None:
    assert changed("Makefile", MAKEFILE, after)


def test_a_makefile_s_compile_rules_are_code() -> None:
    assert not changed("Makefile", MAKEFILE, MAKEFILE.replace("CFLAGS = -O2", "CFLAGS = -O2 -Wall"))
    assert not changed("Makefile", MAKEFILE, MAKEFILE.replace("-c $<", "-c -o $@ $<"))


CMAKE = "project(c)\nadd_library(c c.c)\nenable_testing()\nadd_executable(t tests/t.c)\nadd_test(NAME t COMMAND t)\n"


@pytest.mark.parametrize(
    "after",
    [
        CMAKE + "set_tests_properties(t PROPERTIES WILL_FAIL TRUE)\n",
        CMAKE.replace("add_test(NAME t COMMAND t)", "# add_test(NAME t COMMAND t)"),
        CMAKE.replace("tests/t.c", "stub.c"),
        CMAKE + "set_property(TEST t PROPERTY DISABLED [[TRUE]])\n",
    ],
)
def test_cmake_s_test_commands_are_the_runner_s(after: str) -> None:
    assert changed("CMakeLists.txt", CMAKE, after)


def test_cmake_s_other_commands_are_code_and_comments_are_not_commands() -> None:
    assert not changed("CMakeLists.txt", CMAKE, CMAKE.replace("add_library(c c.c)", "add_library(c c.c util.c)"))
    assert cmake_commands('#[[ add_test(x) ]]\nset(A "add_test(y)" [=[ ) ]=])\n') == [
        ("set", ("A", "add_test(y)", " ) "))
    ]


def test_cargo_s_test_switches_and_its_config() -> None:
    base = '[package]\nname = "c"\n\n[lib]\npath = "src/lib.rs"\n'
    assert changed("Cargo.toml", base, base + "test = false\n")
    assert changed("Cargo.toml", base, base + '\n[[test]]\nname = "x"\nharness = false\n')
    assert not changed("Cargo.toml", base, base.replace('name = "c"', 'name = "c"\nversion = "0.2.0"'))
    assert entries_for(".cargo/config.toml") and entries_for("sub/.cargo/config") and not entries_for("config.toml")


def test_whole_files_and_unparseable_ones() -> None:
    assert changed("jest.config.js", "module.exports = {};\n", "module.exports = {bail: 0};\n")
    assert changed("conftest.py", None, "import pytest\n")
    with pytest.raises(Unreadable):
        runner_part("pyproject.toml", b"[tool.pytest\n")
