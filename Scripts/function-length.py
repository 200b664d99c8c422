#!/usr/bin/env python3
"""Fails on a Swift function longer than a reader holds in one look.

    Scripts/function-length.py [--limit N] DIR...

Counts the lines of every body: func, init, deinit, subscript, computed properties (a `var`
whose declaration opens a brace), and closures held in stored properties (a `let` of a type
whose declaration opens a brace). A body runs from its opening brace's line to its closing
brace's line; braces in string literals (multi-line and raw ones too) and comments do not
count, nor do those of a default argument's closure in the signature. A declaration with no
body (a protocol's requirement) has none: the next declaration or the closing of its scope
ends the wait for one. Prints each body over the limit (60 by default) as LINES PATH:LINE NAME,
longest first, and exits 1 if there is any; `make lint` runs it on Sources/.
"""
import argparse
import os
import re
import sys

DECLARATION = re.compile(
    r"\b(?P<name>func\s+[^\s(<]+|init[?!]?|deinit|subscript|var\s+\w+|let\s+\w+)(?=[\s(<:{=])"
)
# What a line starts with when it declares something of its own: a body still awaited by the
# declaration before it (a protocol's requirement has none) is not coming.
NEXT_DECLARATION = re.compile(
    r"^\s*(@|(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|"
    r"nonisolated|convenience|required|lazy|weak|unowned)\s+)*(?:struct|class|enum|protocol|extension|actor|"
    r"let|var|case|typealias|associatedtype|func|init|deinit|subscript|import)\b)"
)


def code_only(lines):
    """Each line with its string literals and comments blanked out."""
    in_block_comment = False
    in_multiline = None  # the closing delimiter of an open multi-line string
    for line in lines:
        out = []
        i = 0
        while i < len(line):
            if in_block_comment:
                end = line.find("*/", i)
                if end < 0:
                    i = len(line)
                    continue
                in_block_comment, i = False, end + 2
                continue
            if in_multiline:
                end = line.find(in_multiline, i)
                if end < 0:
                    i = len(line)
                    continue
                i, in_multiline = end + len(in_multiline), None
                continue
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                in_block_comment, i = True, i + 2
                continue
            raw = re.match(r'(#*)"""', line[i:])
            if raw:
                in_multiline = '"""' + raw.group(1)
                i += len(raw.group(0))
                continue
            quote = re.match(r'(#*)"', line[i:])
            if quote:
                closing = '"' + quote.group(1)
                i += len(quote.group(0))
                depth = 0
                while i < len(line):
                    if line.startswith("\\(", i):
                        depth, i = depth + 1, i + 2
                    elif depth and line[i] == ")":
                        depth, i = depth - 1, i + 1
                    elif not depth and line[i] == "\\":
                        i += 2
                    elif not depth and line.startswith(closing, i):
                        i += len(closing)
                        break
                    else:
                        i += 1
                continue
            out.append(line[i])
            i += 1
        yield "".join(out)


def bodies(path):
    """(name, first line, length) of every body in the file at `path`."""
    with open(path, encoding="utf-8") as handle:
        code = list(code_only(handle.read().split("\n")))
    found = []
    pending = None  # a declaration whose body's brace has not opened yet
    parentheses = 0  # open in its signature: a brace there is a default argument's closure
    stack = []  # open braces: (name or None, line, depth)
    for number, line in enumerate(code, 1):
        if pending and parentheses == 0 and NEXT_DECLARATION.match(line):
            pending = None
        match = DECLARATION.search(line)
        if match and "=" not in line[: match.start()] and not line.lstrip().startswith("case "):
            name = match.group("name")
            # A `let` counts only as a stored property (outside any body): a local one's
            # closure is part of its function's body.
            in_body = any(entry[0] for entry in stack)
            if name.startswith("let") and in_body:
                pass
            elif not name.startswith(("var", "let")) or "{" in line[match.end():]:
                pending = (name, number)
                parentheses = 0
        for character in line:
            if pending and character in "()":
                parentheses += 1 if character == "(" else -1
            if character == "{":
                if pending and parentheses == 0:
                    stack.append((pending[0], pending[1]))
                    pending = None
                else:
                    stack.append((None, number))
            elif character == "}" and stack:
                if pending and parentheses == 0:
                    pending = None  # its scope closed before any body opened
                name, first = stack.pop()
                if name:
                    found.append((name, first, number - first + 1))
        if pending and pending[0].startswith(("var", "let")) and number > pending[1]:
            pending = None
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("folders", nargs="+")
    arguments = parser.parse_args()
    long = []
    for folder in arguments.folders:
        for root, _, files in os.walk(folder):
            for file in sorted(files):
                if file.endswith(".swift"):
                    path = os.path.join(root, file)
                    long += [(length, path, first, name) for name, first, length in bodies(path)
                             if length > arguments.limit]
    for length, path, first, name in sorted(long, reverse=True):
        print(f"{length} {path}:{first} {name}")
    if long:
        print(f"{len(long)} function(s) over {arguments.limit} lines: split them into steps with names",
              file=sys.stderr)
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
