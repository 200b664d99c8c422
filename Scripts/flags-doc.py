#!/usr/bin/env python3
"""Writes docs/flags.md: every command and option of pushbench in full, from the parser's own
description of them (`pushbench --experimental-dump-help`), so the page and `--help` come from one
text. `--help` shows each option in a line or two; this page adds each command's prose and each
option's discussion.

Usage: Scripts/flags-doc.py PUSHBENCH [OUT]   (OUT defaults to standard output)
"""

import json
import subprocess
import sys


def option_name(argument):
    names = argument.get("names") or []
    spelled = [("--" if name["kind"] == "long" else "-") + name["name"] for name in names]
    value = argument.get("valueName")
    if argument["kind"] == "positional":
        return f"`<{value}>`"
    text = ", ".join(f"`{name}`" for name in spelled)
    return text + (f" `<{value}>`" if argument["kind"] == "option" and value else "")


def cell(text):
    return " ".join((text or "").split()).replace("|", "\\|")


def prose(discussion):
    """A command's discussion as Markdown: its indented lines (examples, lists) as code blocks."""
    out, block = [], []
    for line in (discussion or "").split("\n"):
        if line.startswith("  "):
            block.append(line[2:])
            continue
        if block:
            out += ["```", *block, "```"]
            block = []
        out.append(line)
    if block:
        out += ["```", *block, "```"]
    return "\n".join(out).strip()


def command_section(command, path, lines):
    name = " ".join(path)
    lines += [f"## `{name}`", "", cell(command.get("abstract")), ""]
    text = prose(command.get("discussion"))
    if text:
        lines += [text, ""]
    arguments = [a for a in command.get("arguments") or [] if a.get("shouldDisplay", True)]
    arguments = [a for a in arguments if not any(n["name"] in ("help", "version") for n in a.get("names") or [])]
    if arguments:
        lines += ["| option | default | what it is | more |", "|---|---|---|---|"]
        for argument in arguments:
            default = argument.get("defaultValue")
            lines.append(
                f"| {option_name(argument)} | {cell(default) if default is not None else ''} "
                f"| {cell(argument.get('abstract'))} | {cell(argument.get('discussion'))} |"
            )
        lines.append("")
    for sub in command.get("subcommands") or []:
        if sub["commandName"] != "help":
            command_section(sub, path + [sub["commandName"]], lines)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    dump = subprocess.run([sys.argv[1], "--experimental-dump-help"], check=True, capture_output=True, text=True)
    root = json.loads(dump.stdout)["command"]
    lines = [
        "# Every command and option",
        "",
        "Written by `make flags-doc` (`Scripts/flags-doc.py`) from pushbench's own description of its commands:",
        "`pushbench COMMAND --help` shows each option in a line or two, and this page adds what each command",
        "and option is for. Any option can also be set in the environment as `PUSHBENCH_<OPTION>`",
        "(`PUSHBENCH_REPORTS_DIR=out`, `PUSHBENCH_QUIET=1`; a repeatable option takes one value a line); the",
        "command line wins. [cli.md](cli.md) gives the conventions and the exit statuses.",
        "",
    ]
    command_section(root, ["pushbench"], lines)
    text = "\n".join(lines).rstrip() + "\n"
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as file:
            file.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
