"""Markdown code blocks: how a model's reply carries code (```cuda ... ```), read by the linter
(`lint reply.md`, a .py file saved with its fences) and by the RL loop's submissions."""
from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^`\n]*$")
# a model may open a fence at the end of a prose line ("Here it is: ```cuda"): accepted for code languages
_INLINE_OPEN = re.compile(r"(`{3,})(cuda|cu|cpp|c\+\+|cxx|c)[ \t]*$", re.I)


@dataclass(frozen=True)
class Block:
    lang: str       # the info string's first word, lower case ("" unlabelled)
    text: str       # the lines between the fences (ending in a newline where the block is closed)
    closed: bool    # False: the text runs to the end (a reply cut off)
    line: int       # 1-based line of the text's first line in the whole text


def blocks(text: str) -> list[Block]:
    """Fenced blocks in order. A closing fence uses the opening's character, at least as long."""
    out: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i]) or _INLINE_OPEN.search(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        close = re.compile(r"^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        body = "\n".join(lines[i + 1:j])
        out.append(Block(lang, body + "\n" if j < len(lines) else body, j < len(lines), i + 2))
        i = j + 1
    return out
