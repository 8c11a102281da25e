"""Tokens of a test file in a brace language (JavaScript/TypeScript, Rust, Go, Java, Kotlin, C#, PHP,
C/C++, and a plain fallback), with comments and string contents out of the way.

A skip marker in a comment or a string is not a skip, so detection works on tokens, never on text.
Each language's comments and literals are lexed as its compiler reads them, as far as that decides
where code is: nested block comments (Rust, Kotlin), raw strings (Rust `r#"…"#`, Go backticks, C#
`@"…"` and `\"\"\"`, Java text blocks), template literals with `${…}` code (JavaScript), regular
expression literals and JSX text (JavaScript), heredocs (PHP), char literals and lifetimes (Rust).
`brackets` pairs every (, [ and { with its closer. One pass over the text: the work is linear in
its length, whatever it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

ID, NUM, STR, PUNCT, COMMENT = "id", "num", "str", "punct", "comment"


class Token(NamedTuple):
    kind: str
    text: str
    pos: int  # offset in the text


@dataclass(frozen=True)
class Lexis:
    """How one language spells comments and literals."""

    hash_comments: bool = False  # `#` starts a line comment (PHP: except `#[`, an attribute)
    slash_comments: bool = True  # `//` and `/* */`
    nested_comments: bool = False  # Rust and Kotlin nest `/* */`
    quote_strings: bool = True  # '…' is a string, not a char literal
    js: bool = False  # templates, regular expressions
    jsx: bool = False  # JSX elements in expressions
    go_raw: bool = False  # `…` is a raw string
    backtick_ids: bool = False  # Kotlin: `name with spaces` is an identifier
    rust: bool = False  # r#"…"#, b"…", 'a lifetimes
    csharp: bool = False  # @"…", $"…", raw """…"""
    text_blocks: bool = False  # Java and Kotlin """…"""
    php: bool = False  # $variables, heredocs, #[attributes]
    dollar_ids: bool = False  # $ may be part of an identifier (JavaScript, PHP)


_WORD = re.compile(r"[^\W\d]\w*")
_JS_WORD = re.compile(r"(?:[^\W\d]|\$)[\w$]*")
_RUST_RAW = re.compile(r'b?r(#{0,255})"')
_CSHARP_PREFIX = re.compile(r'(?:\$+@?|@\$*)"')
_JSX_START = re.compile(r"<[A-Za-z>]")
_JSX_TAG = re.compile(r"</?\s*([A-Za-z][\w.:-]*)?")
MAX_NESTING = 64  # templates and JSX inside templates and JSX: deeper ones are read as plain text
_NUMBER = re.compile(r"\d[\w]*(?:\.\d[\w]*)?(?:[eE][+-]?\d+)?")
_PUNCT = re.compile(r"===|!==|=>|==|!=|<=|>=|->|::|:=|\?\.|&&|\|\||\.\.\.|\S")
_SPACE = re.compile(r"\s+")
# After these a `/` starts a regular expression, not a division (and `<` may start JSX).
_EXPRESSION_KEYWORDS = frozenset(
    {
        "return",
        "typeof",
        "instanceof",
        "in",
        "of",
        "new",
        "delete",
        "void",
        "throw",
        "case",
        "do",
        "else",
        "yield",
        "await",
    }
)
_HEREDOC = re.compile(r"<<<[ \t]*(['\"]?)([A-Za-z_]\w*)\1\r?\n")


def lex(text: str, lexis: Lexis) -> list[Token]:
    """Every token of `text`, comments included (kind COMMENT), in order."""
    return _Lexer(text, lexis).run()


def code(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t.kind != COMMENT]


def brackets(tokens: list[Token]) -> list[int]:
    """For each token, the index of its partner bracket, or -1. An unmatched closer is left alone; an
    unclosed opener is paired with the end."""
    partner = [-1] * len(tokens)
    stack: list[int] = []
    closers = {")": "(", "]": "[", "}": "{"}
    for i, token in enumerate(tokens):
        if token.kind != PUNCT:
            continue
        if token.text in "([{":
            stack.append(i)
        elif token.text in closers:
            # pop to the nearest opener of the same kind; if there is none, the closer is stray
            for depth in range(len(stack) - 1, max(-1, len(stack) - 64), -1):
                if tokens[stack[depth]].text == closers[token.text]:
                    for unclosed in stack[depth + 1 :]:
                        partner[unclosed] = i
                    partner[stack[depth]] = i
                    partner[i] = stack[depth]
                    del stack[depth:]
                    break
    for unclosed in stack:
        partner[unclosed] = len(tokens)
    return partner


class _Lexer:
    def __init__(self, text: str, lexis: Lexis) -> None:
        self.text = text
        self.x = lexis
        self.out: list[Token] = []
        self._nesting = 0
        # Characters a failed JSX guess may scan, in all: each guess that is no element (a TypeScript
        # type argument, a comparison) costs what it read, and the file's length bounds the total.
        self._jsx_budget = 2 * len(text) + 1024

    def run(self) -> list[Token]:
        self._code(0, None)
        return self.out

    def _last(self) -> Token | None:
        for token in reversed(self.out):
            if token.kind != COMMENT:
                return token
        return None

    def _expression_expected(self) -> bool:
        """Whether the next token starts an expression (so `/` is a regex and `<` may be JSX)."""
        last = self._last()
        if last is None:
            return True
        if last.kind == ID:
            return last.text in _EXPRESSION_KEYWORDS
        if last.kind in (NUM, STR):
            return False
        return last.text not in (")", "]", "}")

    def _code(self, i: int, until: str | None) -> int:
        """Lex code from i; with `until` ("}"), stop after the brace that closes the code of a
        template's `${`. Returns where lexing stopped."""
        text, x, n = self.text, self.x, len(self.text)
        depth = 0
        while i < n:
            c = text[i]
            if c.isspace():
                i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
                continue
            two = text[i : i + 2]
            if x.slash_comments and two == "//":
                end = _line_end(text, i)
                self.out.append(Token(COMMENT, text[i:end], i))
                i = end
                continue
            if x.slash_comments and two == "/*":
                end = self._block_comment(i)
                self.out.append(Token(COMMENT, text[i:end], i))
                i = end
                continue
            if c == "#" and x.hash_comments and not (x.php and two == "#["):
                end = _line_end(text, i)
                self.out.append(Token(COMMENT, text[i:end], i))
                i = end
                continue
            start = i
            if x.php and text.startswith("<<<", i) and (heredoc := _HEREDOC.match(text, i)):
                i = _heredoc_end(text, heredoc.end(), heredoc.group(2))
                self.out.append(Token(STR, text[start:i], start))
                continue
            if x.rust and c in "br" and (raw := _RUST_RAW.match(text, i)):
                close = '"' + raw.group(1)
                end = text.find(close, raw.end())
                i = n if end < 0 else end + len(close)
                self.out.append(Token(STR, text[start:i], start))
                continue
            if x.rust and two in ('b"', "b'"):
                i = self._quoted(i + 1, text[i + 1]) if two == 'b"' else self._char(i + 1)
                self.out.append(Token(STR, text[start:i], start))
                continue
            if x.csharp and c in "@$" and (verbatim := _CSHARP_PREFIX.match(text, i)):
                prefix = verbatim.group(0)
                verbatim_text = "@" in prefix  # "" escapes a quote, a backslash is a backslash
                i = _verbatim_end(text, i + len(prefix)) if verbatim_text else self._quoted(i + len(prefix) - 1, '"')
                self.out.append(Token(STR, text[start:i], start))
                continue
            if (x.csharp or x.text_blocks) and text.startswith('"""', i):
                quotes = len(text[i:]) - len(text[i:].lstrip('"'))
                end = text.find('"' * quotes, i + quotes)
                i = n if end < 0 else end + quotes
                self.out.append(Token(STR, text[start:i], start))
                continue
            if c == '"':
                i = self._quoted(i, '"')
                self.out.append(Token(STR, text[start:i], start))
                continue
            if c == "'":
                i = self._quoted(i, "'") if x.quote_strings else self._char(i)
                kind = STR if i > start + 1 else PUNCT
                self.out.append(Token(kind, text[start:i], start))
                continue
            if c == "`":
                if x.js:
                    i = self._template(i)
                    self.out.append(Token(STR, text[start:i], start))
                    continue
                if x.go_raw or x.backtick_ids:
                    end = text.find("`", i + 1)
                    i = n if end < 0 else end + 1
                    kind = ID if x.backtick_ids and "\n" not in text[start:i] else STR
                    self.out.append(Token(kind, text[start:i], start))
                    continue
            if x.js and c == "/" and self._expression_expected():
                i = _regex_end(text, i)
                self.out.append(Token(STR, text[start:i], start))
                continue
            if (
                x.jsx
                and c == "<"
                and self._jsx_budget > 0
                and self._expression_expected()
                and _JSX_START.match(text, i)
            ):
                element_end = self._jsx(i)
                if element_end is not None:
                    self.out.append(Token(STR, text[start:element_end], start))
                    i = element_end
                    continue
            word = (_JS_WORD if x.dollar_ids else _WORD).match(text, i)
            if word and not text[i].isdigit():
                i = word.end()
                self.out.append(Token(ID, text[start:i], start))
                continue
            if x.php and c == "$" and (variable := _WORD.match(text, i + 1)):
                i = variable.end()
                self.out.append(Token(ID, text[start:i], start))
                continue
            if c.isdigit():
                i = _NUMBER.match(text, i).end()  # type: ignore[union-attr]
                self.out.append(Token(NUM, text[start:i], start))
                continue
            punct = _PUNCT.match(text, i)
            assert punct is not None  # \S matches any character that is not space
            i = punct.end()
            self.out.append(Token(PUNCT, punct.group(0), start))
            if until is not None:
                if punct.group(0) == "{":
                    depth += 1
                elif punct.group(0) == "}":
                    if depth == 0:
                        self.out.pop()  # the template's closing brace is part of the string
                        return i
                    depth -= 1
        return n

    def _block_comment(self, i: int) -> int:
        text = self.text
        if not self.x.nested_comments:
            end = text.find("*/", i + 2)
            return len(text) if end < 0 else end + 2
        depth = 0
        j = i
        while j < len(text):
            two = text[j : j + 2]
            if two == "/*":
                depth += 1
                j += 2
            elif two == "*/":
                depth -= 1
                j += 2
                if depth == 0:
                    return j
            else:
                j += 1
        return len(text)

    def _quoted(self, i: int, quote: str) -> int:
        """The end of a string that opens at i, with backslash escapes. An unterminated string
        ends at the line's end in most languages; PHP and JavaScript are not read past it either."""
        text, n = self.text, len(self.text)
        j = i + 1
        multiline = self.x.php or (quote == '"' and self.x.rust)
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == quote:
                return j + 1
            if c == "\n" and not multiline:
                return j
            j += 1
        return n

    def _char(self, i: int) -> int:
        """A char literal at i ('a', '\\n', '\\u{1F600}'), or just the quote (a Rust lifetime 'a)."""
        text = self.text
        if text[i + 1 : i + 2] == "\\":
            end = text.find("'", i + 2, i + 16)
            return i + 1 if end < 0 else end + 1
        if text[i + 2 : i + 3] == "'" and text[i + 1 : i + 2] not in ("", "\n"):
            return i + 3
        return i + 1

    def _template(self, i: int) -> int:
        """A JavaScript template literal: text, `${ code }` (lexed as code, so its strings and braces
        nest), up to the closing backtick."""
        text, n = self.text, len(self.text)
        j = i + 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
            elif c == "`":
                return j + 1
            elif text.startswith("${", j) and self._nesting < MAX_NESTING:
                before = len(self.out)
                self._nesting += 1
                j = self._code(j + 2, "}")
                self._nesting -= 1
                del self.out[before:]  # the code inside a template is part of the string token
            else:
                j += 1
        return n

    def _jsx(self, i: int) -> int | None:
        """The end of the JSX element at i, or None if it is not one (then `<` is an operator).
        Text between tags is not code: an apostrophe there opens no string."""
        end = self._jsx_element(i)
        if end is None:
            self._jsx_budget -= self._scanned - i
        return end

    def _jsx_element(self, i: int) -> int | None:
        text, n = self.text, len(self.text)
        self._scanned = i
        depth = 0
        j = i
        while j < n:
            self._scanned = j
            if text[j] == "<":
                closing = text.startswith("</", j)
                tag = _JSX_TAG.match(text, j)
                if tag is None:
                    return None
                j = tag.end()
                while j < n and text[j] != ">":  # attributes: strings and {code}
                    self._scanned = j
                    if text[j] in "\"'":
                        j = self._quoted(j, text[j])
                    elif text[j] == "{":
                        j = self._jsx_code(j)
                    elif text[j] == "/" and text[j + 1 : j + 2] == ">":
                        break
                    elif text[j] == "<":
                        return None  # a comparison after all
                    else:
                        j += 1
                if j >= n:
                    self._scanned = n
                    return None
                self_closing = text[j] == "/"
                j += 2 if self_closing else 1
                if closing:
                    depth -= 1
                elif not self_closing:
                    depth += 1
                if depth <= 0:
                    return j
            elif text[j] == "{":
                j = self._jsx_code(j)
            else:
                j += 1
        self._scanned = n
        return None

    def _jsx_code(self, i: int) -> int:
        if self._nesting >= MAX_NESTING:
            end = self.text.find("}", i)
            return len(self.text) if end < 0 else end + 1
        before = len(self.out)
        self._nesting += 1
        end = self._code(i + 1, "}")
        self._nesting -= 1
        del self.out[before:]
        return end


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _verbatim_end(text: str, i: int) -> int:
    """The end of a C# verbatim string whose text starts at i: `""` is an escaped quote."""
    j = i
    while True:
        end = text.find('"', j)
        if end < 0:
            return len(text)
        if text[end + 1 : end + 2] == '"':
            j = end + 2
            continue
        return end + 1


def _heredoc_end(text: str, i: int, label: str) -> int:
    closing = re.compile(rf"^[ \t]*{re.escape(label)}\b", re.MULTILINE).search(text, i)
    return len(text) if closing is None else closing.end()


def _regex_end(text: str, i: int) -> int:
    """The end of a regular expression literal at i (`/…/flags`): a `/` inside [...] does not end it."""
    j = i + 1
    in_class = False
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            return j
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            j += 1
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            return j
        j += 1
    return j
