"""Text from outside made safe to show on a terminal: model answers, paths, build output.

Such text is hostile input. Printed raw, an escape sequence can clear the screen, rewrite a line
already shown (a "build passes" that never happened), set the window title or write to the
clipboard (OSC 52); a CR or a bidi override can disguise what a line says. `visible` shows every
control and format character as a symbol instead, so the terminal only ever prints characters.

Standard library only, and `unicodedata` is imported only for text that needs it: the console
uses this on every line.
"""

from __future__ import annotations

# Unicode categories shown as symbols: controls (ESC, CR, BEL...), formats (bidi overrides,
# zero-width characters), line and paragraph separators, and lone surrogates.
HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs"))


def visible(text: str) -> str:
    """Text safe to show a person: control and format characters (escape sequences, CR, bidi
    overrides, zero-width characters, lone surrogates) are shown as symbols, so that text cannot
    drive the terminal or hide or disguise a line on the screen. A tab stays a tab."""
    if text.isprintable():
        return text
    import unicodedata

    out = []
    for ch in text:
        code = ord(ch)
        if ch == "\t" or unicodedata.category(ch) not in HIDDEN:
            out.append(ch)
        elif code < 0x20:
            out.append(chr(0x2400 + code))  # the control pictures: ␍ for CR, ␛ for ESC
        elif code == 0x7F:
            out.append("\u2421")  # ␡
        else:
            out.append(f"<U+{code:04X}>")
    return "".join(out)


def visible_lines(text: str) -> str:
    """`visible` for a block of lines: each line made visible, the newlines kept."""
    return "\n".join(visible(line) for line in text.split("\n"))
