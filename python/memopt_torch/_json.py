"""JSON as memopt's C++ readers parse it, for readers that must refuse the
same documents with the same messages (safetensors.py).

`parse` ports memopt::parseJson (lib/Support/Json.cpp): its nesting bound,
then llvm::json::parse (llvm/lib/Support/JSON.cpp): UTF-8 validation, the
grammar (numbers as strtoll, strtoull or strtod read them: `+1`, `01` and
`.5` are numbers, `NaN` is not), unpaired surrogate escapes as U+FFFD, and
its error messages with their line, column and byte offset. Python's json
module differs on each of these. The parser keeps an explicit stack: no
recursion limit applies.

Integers are ints, other numbers floats, true/false bools, null None.
"""

import re

# memopt::kMaxJsonDepth (include/memopt/Support/Json.h).
MAX_DEPTH = 1000


class ParseError(Exception):
    """Formatted as llvm::json::ParseError: `[line:column, byte=offset]: message`."""


def _error(text, position, message, offset_label="byte="):
    line = 1 + text.count(b"\n", 0, position)
    line_start = text.rfind(b"\n", 0, position) + 1
    return ParseError(f"[{line}:{position - line_start}, {offset_label}{position}]: {message}")


def _check_depth(text, max_depth):
    """checkJsonDepth of lib/Support/Json.cpp: brackets outside strings."""
    depth = 0
    line = 1
    line_start = 0
    i = 0
    n = len(text)
    special = re.compile(rb'[\n"\[\]{}]')
    while True:
        match = special.search(text, i)
        if not match:
            return
        i = match.start()
        c = text[i]
        if c == 0x0A:
            line += 1
            line_start = i + 1
        elif c == 0x22:
            i += 1
            while i < n and text[i] != 0x22:
                if text[i] == 0x5C:
                    i += 1
                i += 1
        elif c in (0x5B, 0x7B):
            depth += 1
            if depth > max_depth:
                raise ParseError(f"[{line}:{i - line_start + 1}, byte offset {i}]: arrays "
                                 f"and objects nested deeper than {max_depth} levels")
        elif depth > 0:
            depth -= 1
        i += 1


def _utf8_error_offset(text):
    """Where llvm::isUTF8 finds the first invalid sequence, or None."""
    try:
        text.decode("utf-8")
        return None
    except UnicodeDecodeError as error:
        return error.start


_WHITESPACE = re.compile(rb"[ \r\n\t]*")
_NUMBER_CHARS = re.compile(rb"[0-9eE+\-.]*")
_PLAIN = re.compile(rb'[^"\\\x00-\x1f]+')
_INTEGER = re.compile(rb"[+-]?[0-9]+")
_UNSIGNED = re.compile(rb"\+?[0-9]+")
_DECIMAL = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_HEX = b"0123456789abcdefABCDEF"
_SIMPLE_ESCAPES = {0x22: b'"', 0x5C: b"\\", 0x2F: b"/", 0x62: b"\b", 0x66: b"\f",
                   0x6E: b"\n", 0x72: b"\r", 0x74: b"\t"}
_REPLACEMENT = "\ufffd".encode("utf-8")


class _Parser:
    """llvm::json's Parser over `text` (bytes): `p` is its P, the errors
    name the position it has reached."""

    def __init__(self, text):
        self.text = text
        self.p = 0
        self.end = len(text)
        # The first key an object repeats, as findDuplicateKey in
        # lib/Execution/Weights.cpp reports it: (key, line, column).
        self.duplicate = None

    def error(self, message):
        return _error(self.text, self.p, message)

    def next(self):
        if self.p == self.end:
            return 0
        c = self.text[self.p]
        self.p += 1
        return c

    def peek(self):
        return 0 if self.p == self.end else self.text[self.p]

    def eat_whitespace(self):
        self.p = _WHITESPACE.match(self.text, self.p).end()

    def parse_number(self, first_position):
        self.p = _NUMBER_CHARS.match(self.text, self.p).end()
        s = self.text[first_position:self.p]
        if _INTEGER.fullmatch(s) and -2**63 <= int(s) < 2**63:
            return int(s)
        if s[0] != 0x2D and _UNSIGNED.fullmatch(s) and int(s) < 2**64:
            return int(s)
        if _DECIMAL.fullmatch(s):
            return float(s)
        raise self.error("Invalid JSON value (number?)")

    def parse_hex4(self):
        chars = [self.next() for _ in range(4)]
        value = 0
        for c in chars:
            if c == 0 or c not in _HEX:
                raise self.error("Invalid \\u escape sequence")
            value = value * 16 + int(chr(c), 16)
        return value

    def parse_unicode(self, out):
        first = self.parse_hex4()
        while True:
            if first < 0xD800 or first >= 0xE000:
                out += chr(first).encode("utf-8")
                return
            if first >= 0xDC00:
                out += _REPLACEMENT
                return
            if self.p + 2 > self.end or self.text[self.p] != 0x5C or self.text[self.p + 1] != 0x75:
                out += _REPLACEMENT
                return
            self.p += 2
            second = self.parse_hex4()
            if second < 0xDC00 or second >= 0xE000:
                out += _REPLACEMENT
                first = second
                continue
            out += chr(0x10000 | ((first - 0xD800) << 10) | (second - 0xDC00)).encode("utf-8")
            return

    def parse_string(self):
        """After the opening quote; the string's UTF-8 bytes."""
        out = bytearray()
        while True:
            plain = _PLAIN.match(self.text, self.p)
            if plain:
                out += plain.group()
                self.p = plain.end()
                if self.p == self.end:
                    raise self.error("Unterminated string")
            c = self.next()
            if c == 0x22:
                return bytes(out)
            if self.p == self.end:
                raise self.error("Unterminated string")
            if c <= 0x1F:
                raise self.error("Control character in string")
            if c != 0x5C:
                out.append(c)
                continue
            c = self.next()
            if c in _SIMPLE_ESCAPES:
                out += _SIMPLE_ESCAPES[c]
            elif c == 0x75:
                self.parse_unicode(out)
            else:
                raise self.error("Invalid escape sequence")

    def parse_key(self, keys):
        """An object's key (the opening quote next), noting a repeated one."""
        quote = self.p
        if self.next() != 0x22:
            raise self.error("Expected object key")
        key = self.parse_string().decode("utf-8")
        if key in keys and self.duplicate is None:
            line = 1 + self.text.count(b"\n", 0, quote)
            column = quote - (self.text.rfind(b"\n", 0, quote) + 1) + 1
            self.duplicate = (key, line, column)
        keys.add(key)
        return key

    def parse_scalar(self, c):
        """The value that starts with `c` (consumed), not an array or object."""
        for word, value in ((b"null", None), (b"true", True), (b"false", False)):
            if c == word[0]:
                for expected in word[1:]:
                    if self.next() != expected:
                        raise self.error(f"Invalid JSON value ({word.decode()}?)")
                return value
        if c == 0x22:
            return self.parse_string().decode("utf-8")
        if c in b"0123456789eE+-.":
            return self.parse_number(self.p - 1)
        raise self.error("Invalid JSON value")

    def parse_value(self):
        """Parser::parseValue, its recursion on a stack of open containers:
        (container, its keys, the key its next value goes to) each."""
        stack = []
        while True:
            # A value starts here.
            self.eat_whitespace()
            if self.p == self.end:
                raise self.error("Unexpected EOF")
            c = self.next()
            if c == 0x5B or c == 0x7B:
                container = [] if c == 0x5B else {}
                self.eat_whitespace()
                if self.peek() != (0x5D if c == 0x5B else 0x7D):
                    keys = set()
                    key = None
                    if c == 0x7B:
                        key = self.parse_key(keys)
                        self.expect_colon()
                    stack.append((container, keys, key))
                    continue
                self.p += 1
                value = container
            else:
                value = self.parse_scalar(c)
            # A value ends here: store it and close what it completes.
            while True:
                if not stack:
                    return value
                container, keys, key = stack[-1]
                if isinstance(container, list):
                    container.append(value)
                else:
                    container[key] = value
                self.eat_whitespace()
                c = self.next()
                closing = 0x5D if isinstance(container, list) else 0x7D
                if c == 0x2C:
                    self.eat_whitespace()
                    if isinstance(container, dict):
                        stack[-1] = (container, keys, self.parse_key(keys))
                        self.expect_colon()
                    break
                if c == closing:
                    stack.pop()
                    value = container
                    continue
                raise self.error("Expected , or ] after array element" if closing == 0x5D
                                 else "Expected , or } after object property")

    def expect_colon(self):
        self.eat_whitespace()
        if self.next() != 0x3A:
            raise self.error("Expected : after object key")
        self.eat_whitespace()


def parse(text, max_depth=MAX_DEPTH):
    """(value, duplicate) of the JSON bytes `text`; duplicate is None or the
    first key an object repeats, (key, line, column of its second quote).
    Raises ParseError where memopt::parseJson fails, with its message."""
    _check_depth(text, max_depth)
    parser = _Parser(text)
    bad = _utf8_error_offset(text)
    if bad is not None:
        parser.p = bad
        raise parser.error("Invalid UTF-8 sequence")
    value = parser.parse_value()
    parser.eat_whitespace()
    if parser.p != parser.end:
        raise parser.error("Text after end of document")
    return value, parser.duplicate
