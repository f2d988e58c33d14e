#!/usr/bin/env python3
"""The book's build helper and its three tests (standard library only; `make docs`, `make test-docs`).

    book.py stage BOOK STAGE FORGE_DOC FIGURES   copy book/ to a scratch folder, add the figures
                                                 (docs/) and the contract reference `forge doc`
                                                 generated from the NatSpec (FORGE_DOC/src)
    book.py check-links HTML                     every internal link and #anchor of the built
                                                 book resolves (exit 1 naming each broken one)
    book.py run-examples SRC VERITAS             run every ```console block marked
                                                 `<!-- runnable ... -->` with the real `veritas`
                                                 on PATH; its output must be the book's, byte
                                                 for byte (exit 1 with a diff otherwise)
    book.py check-forge-tests SRC TESTS...       every forge test the book names in backticks
                                                 (`test_…`, `testFuzz_…`, `invariant_…`, also as
                                                 `Contract::test_…`) is a test function in a .sol
                                                 file under TESTS, and each row of economics.md's
                                                 money table names at least one (exit 1 naming
                                                 each missing one)

A runnable block is a shell transcript: `$ ` starts a command, `> ` continues it (as bash's
PS2 shows it), every other line is expected standard output. The block's commands run in order
in one bash (`set -eo pipefail`) in an empty temporary folder, so variables carry over.
"""

from __future__ import annotations

import difflib
import html.parser
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

# --- stage ------------------------------------------------------------------------------------

REFERENCE_MARK = "<!-- forge doc: the contract reference is inserted here by scripts/book.py -->"


def _is_test(path: str) -> bool:
    """forge doc documents the Foundry tests too (they live under contracts/test): not reference."""
    return path.lstrip("/").startswith("contracts/test/")


def stage(book: pathlib.Path, out: pathlib.Path, forge_doc: pathlib.Path, figures: pathlib.Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy(book / "book.toml", out / "book.toml")
    shutil.copytree(book / "src", out / "src")
    # Figures keep the paths the text names (docs/...), relative to the flat chapter folder.
    (out / "src" / "docs").mkdir()
    for figure in sorted(figures.iterdir()):
        if figure.suffix in {".svg", ".png"}:
            shutil.copy(figure, out / "src" / "docs" / figure.name)
    # forge doc writes a book of its own: SUMMARY.md and one page per contract, interface and
    # library under src/<source folder>/, linked by absolute paths from its book's root. Its
    # pages move under reference/, its links become relative, its SUMMARY entries nest under
    # the reference chapter.
    generated = forge_doc / "src"
    reference = out / "src" / "reference"
    entries = []
    for line in (generated / "SUMMARY.md").read_text().splitlines():
        m = re.match(r"^(\s*)- \[(.*)\]\((.*)\)\s*$", line)
        if not m or m.group(3) in ("README.md", "/README.md") or _is_test(m.group(3)):
            continue
        target = m.group(3).lstrip("/")
        entries.append(f"    {m.group(1)}- [{m.group(2)}](reference/{target})")
    for page in sorted(generated.rglob("*.md")):
        rel = page.relative_to(generated)
        if rel.as_posix() in ("SUMMARY.md", "README.md") or _is_test(rel.as_posix()):
            continue
        dest = reference / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        text = page.read_text()
        depth = len(rel.parts) - 1
        up = "../" * depth

        def relative(m: re.Match) -> str:
            return f"]({up}{m.group(1)})"

        text = re.sub(r"\]\(/([^)\s]+)\)", relative, text)
        # forge doc links each item to its source on the git remote; there is none offline.
        text = re.sub(r"^\[Git Source\]\([^)]*\)\s*$", "", text, flags=re.M)
        dest.write_text(text)
    if not entries:
        sys.exit(f"book.py stage: no pages in {generated / 'SUMMARY.md'} (did forge doc run?)")
    summary = out / "src" / "SUMMARY.md"
    text = summary.read_text()
    if REFERENCE_MARK not in text:
        sys.exit(f"book.py stage: {summary} lacks the line {REFERENCE_MARK}")
    summary.write_text(text.replace(REFERENCE_MARK, "\n".join(entries)))


# --- check-links ------------------------------------------------------------------------------


class _Page(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            if (name == "href" and tag in ("a", "link", "area")) or (name == "src" and tag in ("img", "script")):
                self.links.append((self.getpos()[0], value))


def _parse(path: pathlib.Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(errors="replace"))
    return page


def check_links(root: pathlib.Path) -> int:
    root = root.resolve()
    pages = {p: _parse(p) for p in sorted(root.rglob("*.html"))}
    if not pages:
        print(f"book.py check-links: no HTML under {root} (run make docs)", file=sys.stderr)
        return 1
    broken = []
    checked = 0
    for path, page in pages.items():
        for line, link in page.links:
            parsed = urllib.parse.urlsplit(link)
            if parsed.scheme or link.startswith("//"):
                continue  # another site: not this book's business offline
            checked += 1
            where = f"{path.relative_to(root)}:{line}"
            target_path = urllib.parse.unquote(parsed.path)
            if not target_path:
                target = path
            elif target_path.startswith("/"):
                target = root / target_path.lstrip("/")
            else:
                target = (path.parent / target_path).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{where}: broken link {link!r}: {target} does not exist")
                continue
            fragment = urllib.parse.unquote(parsed.fragment)
            if fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if fragment not in ids:
                    broken.append(f"{where}: broken anchor {link!r}: no id {fragment!r} in {target.relative_to(root)}")
    for b in broken:
        print(b, file=sys.stderr)
    print(f"book.py check-links: {len(pages)} pages, {checked} internal links, {len(broken)} broken")
    return 1 if broken else 0


# --- run-examples -----------------------------------------------------------------------------


def runnable_blocks(src: pathlib.Path):
    """(file, line of the fence, commands, expected output) of each runnable block."""
    for md in sorted(src.rglob("*.md")):
        lines = md.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("<!-- runnable") and i + 1 < len(lines) and lines[i + 1].strip() == "```console":
                start = i + 2
                end = start
                while end < len(lines) and lines[end].strip() != "```":
                    end += 1
                commands: list[str] = []
                expected: list[str] = []
                for text in lines[start:end]:
                    if text.startswith("$ "):
                        commands.append(text[2:])
                    elif text.startswith("> ") and commands:
                        commands[-1] += "\n" + text[2:]
                    else:
                        expected.append(text)
                yield md, i + 2, commands, expected
                i = end
            i += 1


def run_examples(src: pathlib.Path, veritas: pathlib.Path) -> int:
    veritas = veritas.resolve()
    if not os.access(veritas, os.X_OK):
        print(f"book.py run-examples: {veritas} is not an executable (build it first)", file=sys.stderr)
        return 1
    failures = 0
    count = 0
    for md, line, commands, expected in runnable_blocks(src):
        count += 1
        with tempfile.TemporaryDirectory(prefix="veritas-book.") as tmp:
            bindir = pathlib.Path(tmp) / ".bin"
            bindir.mkdir()
            (bindir / "veritas").symlink_to(veritas)
            env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")
            script = "set -eo pipefail\n" + "\n".join(commands) + "\n"
            run = subprocess.run(["bash", "-c", script], cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
        got = run.stdout.splitlines()
        where = f"{md}:{line}"
        if run.returncode != 0 or got != expected:
            failures += 1
            print(f"book.py run-examples: FAIL {where}: exit {run.returncode}", file=sys.stderr)
            diff = difflib.unified_diff(expected, got, "the book", "veritas", lineterm="")
            print("\n".join(diff), file=sys.stderr)
            if run.stderr:
                print("stderr:\n" + run.stderr, file=sys.stderr)
        else:
            print(f"book.py run-examples: ok {where} ({len(commands)} commands)")
    if count == 0:
        print(f"book.py run-examples: no runnable block under {src}", file=sys.stderr)
        return 1
    print(f"book.py run-examples: {count} blocks, {failures} failed")
    return 1 if failures else 0


# --- check-forge-tests ------------------------------------------------------------------------

# A forge test named in code spans: `test_X`, `testFuzz_X`, `invariant_X`, `Suite::test_X`.
_FORGE_TEST = re.compile(r"`(?:([A-Za-z0-9_]+)::)?((?:test|testFuzz|invariant)_[A-Za-z0-9_]+)`")
_MONEY_TABLE = "## Who is paid, burned, refunded or slashed"


def _forge_tests(roots: list[pathlib.Path]) -> dict[str, set[str]]:
    """Test function name -> the contracts (the .sol files' stems, less `.t`) that declare it."""
    found: dict[str, set[str]] = {}
    for root in roots:
        for sol in sorted(root.rglob("*.sol")):
            for name in re.findall(r"\bfunction\s+((?:test|testFuzz|invariant)_[A-Za-z0-9_]+)\s*\(", sol.read_text()):
                found.setdefault(name, set()).add(sol.name.removesuffix(".sol").removesuffix(".t"))
    return found


def _money_rows(text: str) -> list[str]:
    """The body rows of the first table after the money-rules heading."""
    lines = text.splitlines()
    try:
        i = lines.index(_MONEY_TABLE)
    except ValueError:
        return []
    rows: list[str] = []
    for line in lines[i + 1 :]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            break
    return rows[2:]  # the header and its rule


def check_forge_tests(src: pathlib.Path, roots: list[pathlib.Path]) -> int:
    tests = _forge_tests(roots)
    if not tests:
        print(f"book.py check-forge-tests: no forge test under {[str(r) for r in roots]}", file=sys.stderr)
        return 1
    missing: list[str] = []
    named = 0
    for md in sorted(src.rglob("*.md")):
        for number, line in enumerate(md.read_text().splitlines(), 1):
            for suite, name in _FORGE_TEST.findall(line):
                named += 1
                where = tests.get(name)
                if where is None:
                    missing.append(f"{md}:{number}: `{name}` is no test function under {', '.join(map(str, roots))}")
                elif suite and suite not in where:
                    missing.append(f"{md}:{number}: `{suite}::{name}`: the test is in {', '.join(sorted(where))}")
    rows = _money_rows((src / "economics.md").read_text())
    if not rows:
        missing.append(f"{src / 'economics.md'}: no table under '{_MONEY_TABLE}'")
    for row in rows:
        if not _FORGE_TEST.search(row.rstrip().rstrip("|").rsplit("|", 1)[-1]):
            missing.append(f"{src / 'economics.md'}: a money rule names no forge test in its last column: {row[:80]}")
    for m in missing:
        print(f"book.py check-forge-tests: {m}", file=sys.stderr)
    print(f"book.py check-forge-tests: {named} forge test names in the book, {len(rows)} money rules, {len(missing)} problems")
    return 1 if missing else 0


def main(argv: list[str]) -> int:
    if len(argv) == 5 and argv[0] == "stage":
        stage(*(pathlib.Path(a) for a in argv[1:]))
        return 0
    if len(argv) == 2 and argv[0] == "check-links":
        return check_links(pathlib.Path(argv[1]))
    if len(argv) == 3 and argv[0] == "run-examples":
        return run_examples(pathlib.Path(argv[1]), pathlib.Path(argv[2]))
    if len(argv) >= 3 and argv[0] == "check-forge-tests":
        return check_forge_tests(pathlib.Path(argv[1]), [pathlib.Path(a) for a in argv[2:]])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
