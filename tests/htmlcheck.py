"""A strict well-formedness check of an HTML page with the standard
library's parser: every element closed, and in order; no end tag without
its start; void elements not closed; ids unique; one html, head, body and
title; a doctype. Browsers forgive all of these; a report mailed around is
opened by many of them, so the page must not need forgiving."""
from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
ONCE = ("html", "head", "body", "title")


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list = []
        self.errors: list = []
        self.ids: Counter = Counter()
        self.tags: Counter = Counter()
        self.doctype = False

    def handle_decl(self, decl: str) -> None:
        self.doctype = self.doctype or decl.strip().lower() == "doctype html"

    def _attributes(self, attrs: list) -> None:
        for name, value in attrs:
            if name == "id":
                self.ids[value] += 1

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags[tag] += 1
        self._attributes(attrs)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.tags[tag] += 1
        self._attributes(attrs)
        if tag not in VOID:
            self.errors.append(f"line {self.getpos()[0]}: <{tag}/> is not a void element")

    def handle_endtag(self, tag: str) -> None:
        line = self.getpos()[0]
        if tag in VOID:
            self.errors.append(f"line {line}: end tag </{tag}> of a void element")
        elif not any(t == tag for t, _ in self.stack):
            self.errors.append(f"line {line}: </{tag}> without its start tag")
        else:                                               # what lies above its start tag is unclosed
            while self.stack[-1][0] != tag:
                open_tag, opened = self.stack.pop()
                self.errors.append(f"<{open_tag}> opened at line {opened} is never closed (</{tag}> at line {line})")
            self.stack.pop()


def html_errors(text: str) -> list:
    """What is wrong with the page, one line each (empty when it is well formed)."""
    checker = _Checker()
    checker.feed(text)
    checker.close()
    errors = list(checker.errors)
    errors += [f"<{tag}> opened at line {line} is never closed" for tag, line in checker.stack]
    errors += [f"id {name!r} used {n} times" for name, n in checker.ids.items() if n > 1]
    errors += [f"<{tag}> appears {checker.tags[tag]} times (must be once)" for tag in ONCE if checker.tags[tag] != 1]
    if not checker.doctype:
        errors.append("no <!DOCTYPE html>")
    return errors
