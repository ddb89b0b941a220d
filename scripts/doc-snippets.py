#!/usr/bin/env python3
"""Copies the Swift blocks of README.md and docs/*.md into the doc tests.

Each test in Tests/StrataTests/Docs/ holds a block between `// snippet: FILE N` and `// end snippet`;
this script rewrites what is between the markers from the N-th ```swift block of FILE (its leading
`import` lines dropped, indented like the marker). DocsSyncTests fails when they differ, so run this
after editing a doc's Swift block, then `swift test --filter Docs`.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent


def blocks(document):
    text = (root / document).read_text()
    found = []
    for match in re.finditer(r"^```swift\n(.*?)^```$", text, re.S | re.M):
        lines = match.group(1).split("\n")[:-1]
        while lines and (lines[0].startswith("import ") or lines[0] == ""):
            lines.pop(0)
        found.append(lines)
    return found


def main():
    changed = []
    for test in sorted((root / "Tests/StrataTests/Docs").glob("*.swift")):
        out, lines, i = [], test.read_text().split("\n"), 0
        while i < len(lines):
            line = lines[i]
            out.append(line)
            marker = re.match(r"^( *)// snippet: (\S+) (\d+)$", line)
            i += 1
            if not marker:
                continue
            indent, document, number = marker.group(1), marker.group(2), int(marker.group(3))
            while i < len(lines) and lines[i].strip() != "// end snippet":
                i += 1
            block = blocks(document)[number - 1]
            out.extend(indent + l if l else "" for l in block)
        text = "\n".join(out)
        if text != test.read_text():
            test.write_text(text)
            changed.append(test.name)
    print("updated: " + (", ".join(changed) if changed else "nothing"))


if __name__ == "__main__":
    sys.exit(main())
