#!/usr/bin/env python3
"""No function in core/, app/ or widgets/ longer than 120 lines unless a comment says why.

A function's body is found by matching braces (string and character literals and // comments
left out); the outermost function-like block counts (lambdas and local classes inside it are
part of it). A function may be longer when one of the three lines before its signature holds a
comment with "long function:" and the reason.

Usage: check_function_length.py SOURCE_DIR
"""
import pathlib
import re
import sys

LIMIT = 120
CONTROL = re.compile(r"^(if|for|while|switch|else|do|namespace|struct|class|union|enum|return|case|extern)\b")


def strip(line):
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def long_functions(path):
    raw = path.read_text(errors="replace").split("\n")
    lines = [strip(x) for x in raw]
    stack = []  # (line of the brace, is a function, line of the statement's start)
    for i, line in enumerate(lines):
        for ch in line:
            if ch == "{":
                start = i
                while start > 0 and lines[start - 1].strip() and not re.search(r"[;{}]\s*$", lines[start - 1]) \
                        and not lines[start - 1].lstrip().startswith("#"):
                    start -= 1
                head = " ".join(x.strip() for x in lines[start:i + 1]).split("{")[0].strip()
                before_paren = head.split("(")[0]
                is_fn = "(" in head and not CONTROL.match(head) and "]" not in before_paren and "=" not in before_paren
                stack.append((i, is_fn, start))
            elif ch == "}" and stack:
                opened, is_fn, start = stack.pop()
                if is_fn and not any(f for _, f, _ in stack) and i - opened + 1 > LIMIT:
                    reason = any("long function:" in raw[j] for j in range(max(0, start - 3), start))
                    if not reason:
                        yield start + 1, i - opened + 1, raw[start].strip()


def main():
    root = pathlib.Path(sys.argv[1])
    found = []
    for sub in ("core", "app", "widgets"):
        for path in sorted((root / sub).rglob("*")):
            if path.suffix in (".cpp", ".h") and path.is_file():
                for line, length, signature in long_functions(path):
                    found.append(f"{path.relative_to(root)}:{line}: {length} lines: {signature[:100]}")
    for f in found:
        print(f)
    if found:
        print(f"{len(found)} function(s) over {LIMIT} lines without a 'long function:' comment saying why "
              "(split them by job, or state the reason above the signature)")
        return 1
    print(f"no function over {LIMIT} lines in core/, app/ and widgets/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
