"""``ssl.principal.mapping.rules``: a TLS client's distinguished name to a principal name, with
Kafka's rule syntax (SslPrincipalMapper).

Rules are separated by commas and tried in order; the first that matches gives the name:

* ``DEFAULT`` - the distinguished name itself;
* ``RULE:pattern/replacement/`` - when the (Java) regular expression matches the whole name,
  every match of it replaced by ``replacement`` (``$1`` for a group); a trailing ``L`` or ``U``
  lower- or upper-cases the result.

A name no rule matches fails the client's authentication.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_RULES = "DEFAULT"

_RULE = r"(DEFAULT)|RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?).*?|(.*?)"
_SPLITTER = re.compile(r"\s*(" + _RULE + r")\s*(?:,\s*|$)")
_PARSER = re.compile(_RULE)
_BACK_REFERENCE = re.compile(r"\$(\d+)")


class NoMatchingRule(ValueError):
    """No rule applies to a distinguished name."""


def _python_replacement(replacement: str, groups: int) -> str:
    """A Java replacement string (``$1``, ``\\$``) as a Python ``re.sub`` template. A group
    reference past the pattern's groups drops digits until it names one, or is literal text,
    as Kafka treats it."""
    out = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\" and i + 1 < len(replacement):
            out.append(replacement[i + 1].replace("\\", "\\\\"))
            i += 2
            continue
        m = _BACK_REFERENCE.match(replacement, i)
        if m is not None:
            digits = m.group(1)
            n = len(digits)
            while n > 1 and int(digits[:n]) > groups:
                n -= 1
            index = int(digits[:n])
            if index <= groups:
                out.append(f"\\g<{index}>" + digits[n:])
            else:
                out.append("$" + digits)
            i = m.end()
            continue
        out.append("\\\\" if c == "\\" else c)
        i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Rule:
    pattern: re.Pattern[str] | None  # None: DEFAULT
    replacement: str = ""
    lower: bool = False
    upper: bool = False

    def apply(self, dn: str) -> str | None:
        if self.pattern is None:
            return dn
        if self.pattern.fullmatch(dn) is None:
            return None
        result = self.pattern.sub(_python_replacement(self.replacement, self.pattern.groups), dn)
        if self.lower:
            return result.lower()
        if self.upper:
            return result.upper()
        return result


class SslPrincipalMapper:
    """The parsed rules (ValueError for a rule Kafka would refuse)."""

    def __init__(self, rules: str | None = DEFAULT_RULES) -> None:
        text = (DEFAULT_RULES if rules is None else rules).strip()
        self.rules: list[Rule] = []
        for m in _SPLITTER.finditer(text):
            rule = m.group(1)
            if m.start() == m.end():
                break
            parsed = _PARSER.match(rule)
            if parsed is None:
                raise ValueError(f"Invalid rule: {rule}")
            if parsed.end() != len(rule):
                raise ValueError(f"Invalid rule: `{rule}`, unmatched substring: "
                                 f"`{rule[parsed.end():]}`")
            if parsed.group(1) is not None:
                self.rules.append(Rule(None))
            elif parsed.group(2) is not None:
                try:
                    pattern = re.compile(parsed.group(2))
                except re.error as e:
                    raise ValueError(f"Invalid rule: {rule}: {e}") from e
                self.rules.append(Rule(pattern, parsed.group(3), parsed.group(4) == "L",
                                       parsed.group(4) == "U"))

    def name(self, dn: str) -> str:
        for rule in self.rules:
            name = rule.apply(dn)
            if name is not None:
                return name
        raise NoMatchingRule(f"No rules apply to {dn}")
