"""Summarise a py-spy raw profile (``bench/load.py --profile FILE``): the
functions with the most samples, inclusive and self.

    python bench/profile_top.py FILE [--top 40] [--grep games/]
"""

from __future__ import annotations

import argparse
from collections import Counter


def frame_key(frame: str) -> str:
    name, _, where = frame.partition(" (")
    return f"{name} {where.split(':')[0].rsplit('/', 1)[-1]}" if where else name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--grep", default="", help="only frames whose text contains this")
    args = parser.parse_args()
    inclusive, own, total = Counter(), Counter(), 0
    with open(args.file) as f:
        for line in f:
            stack, _, count = line.rstrip().rpartition(" ")
            n = int(count)
            total += n
            frames = stack.split(";")
            for key in {frame_key(fr) for fr in frames if args.grep in fr}:
                inclusive[key] += n
            own[frame_key(frames[-1])] += n
    print(f"{total} samples; inclusive:")
    for key, n in inclusive.most_common(args.top):
        print(f"{100 * n / total:5.1f}%  {key}")
    print("self:")
    for key, n in own.most_common(args.top // 2):
        print(f"{100 * n / total:5.1f}%  {key}")


if __name__ == "__main__":
    main()
