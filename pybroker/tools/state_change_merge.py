"""``pybroker state-change-log merge``: the state-change logs of several brokers merged into one
time-ordered history, as Kafka's ``kafka.tools.StateChangeLogMerger`` does, with its options:

- ``--logs f1,f2`` or ``--logs-regex /dir/state-change.log.*`` (exactly one): the files, the
  second as a directory and a regular expression for the names in it (rotated files too);
- ``--topic t`` and ``--partitions 0,1`` (which needs ``--topic``): only the lines that name
  these partitions;
- ``--start-time`` and ``--end-time`` (``yyyy-MM-dd HH:mm:ss,SSS``): only the lines in that
  window.

It is an n-way merge: each file is read in order and the earliest pending line of all files is
printed next; a line's time is the first timestamp in it, and a line without one (a stack
trace's) goes with the line before it. Unlike Kafka 3.9's merger, which still looks for the
pre-1.0 ``[topic,partition]`` form and so finds almost nothing in the lines Kafka 3.9 writes,
partitions are recognised as Kafka 3.9 and pybroker write them: ``topic-partition``
(``orders-0``), alone or in a list (``orders-0,orders-1``). The old form is recognised too.
"""

from __future__ import annotations

import argparse
import heapq
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}")
#: Kafka's merger's defaults for the window
START_TIME = "0000-00-00 00:00:00,000"
END_TIME = "9999-12-31 23:59:59,999"


def _partition_pattern(topic: str | None, partitions: Sequence[int]) -> re.Pattern[str] | None:
    """A partition of ``topic`` (any, or one of ``partitions``) as a line names it: ``t-0``
    not inside a longer name, or the old ``[t,0]``."""
    if topic is None:
        return None
    number = "|".join(str(p) for p in partitions) if partitions else r"\d+"
    name = re.escape(topic)
    return re.compile(rf"(?<![\w.-]){name}-(?:{number})(?![\w.-]|-\d)|\[{name}, *(?:{number})\]")


def entries(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(timestamp, text) per entry of a log: a line with a timestamp and the lines without one
    after it."""
    stamp: str | None = None
    text: list[str] = []
    for line in lines:
        m = TIMESTAMP.search(line)
        if m is None:
            if stamp is not None:
                text.append(line)
            continue
        if stamp is not None:
            yield stamp, "".join(text)
        stamp, text = m.group(0), [line if line.endswith("\n") else line + "\n"]
    if stamp is not None:
        yield stamp, "".join(text)


def merge(files: Sequence[TextIO], *, topic: str | None = None,
          partitions: Sequence[int] = (), start: str = START_TIME,
          end: str = END_TIME) -> Iterator[str]:
    """The entries of ``files`` that pass the filters, in time order (files in the order given
    for equal times, each file's own order kept)."""
    pattern = _partition_pattern(topic, partitions)

    def selected(index: int, f: TextIO) -> Iterator[tuple[str, int, int, str]]:
        for n, (stamp, text) in enumerate(entries(f)):
            if not start <= stamp <= end:
                continue
            if pattern is not None and not pattern.search(text.split("\n", 1)[0]):
                continue
            yield stamp, index, n, text

    for _stamp, _index, _n, text in heapq.merge(*(selected(i, f) for i, f in enumerate(files))):
        yield text


def files_of(logs: str | None, logs_regex: str | None) -> list[Path]:
    """The files ``--logs`` lists, or those of ``--logs-regex``'s directory whose names match
    its last part (sorted, so that rotated files come in a stable order)."""
    if logs is not None:
        return [Path(p) for p in logs.split(",") if p]
    assert logs_regex is not None
    path = Path(logs_regex)
    directory = path.parent if str(path.parent) else Path(".")
    name = re.compile(path.name)
    return sorted(p for p in directory.iterdir() if p.is_file() and name.fullmatch(p.name))


def _timestamp(text: str) -> str:
    if not TIMESTAMP.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a time as yyyy-MM-dd HH:mm:ss,SSS")
    return text


def _partitions(text: str) -> list[int]:
    try:
        values = [int(p) for p in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of "
                                         "partitions") from None
    if len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"the list of partitions {text!r} has duplicates")
    return values


def add_arguments(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--logs", help="comma-separated state-change log files")
    source.add_argument("--logs-regex", help="a directory and a regular expression for the "
                        "names of the files in it: /dir/state-change.log.*")
    p.add_argument("--topic", help="only the lines that name this topic's partitions")
    p.add_argument("--partitions", type=_partitions,
                   help="comma-separated partitions of --topic (default: all)")
    p.add_argument("--start-time", type=_timestamp, default=START_TIME,
                   help="yyyy-MM-dd HH:mm:ss,SSS (default: the beginning)")
    p.add_argument("--end-time", type=_timestamp, default=END_TIME,
                   help="yyyy-MM-dd HH:mm:ss,SSS (default: the end)")


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if args.partitions and not args.topic:
        print("--partitions needs --topic", file=sys.stderr)
        return 2
    paths = files_of(args.logs, args.logs_regex)
    if not paths:
        print("no state-change log files given or found", file=sys.stderr)
        return 2
    handles: list[TextIO] = []
    try:
        for path in paths:
            handles.append(open(path, encoding="utf-8", errors="replace"))  # noqa: SIM115
        for text in merge(handles, topic=args.topic, partitions=args.partitions or (),
                          start=args.start_time, end=args.end_time):
            out.write(text)
    except OSError as e:
        print(f"cannot read {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    finally:
        for f in handles:
            f.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="pybroker state-change-log merge", description=__doc__
                                .split("\n\n")[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
