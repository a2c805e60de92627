"""Harmonies geometry: the personal hex board (both sides), token stacks and the pattern matcher.

Pure functions and small immutable tables, precomputed once per board side (``Geometry``):

* spaces ``(x, y)`` in hex-index order (sorted by x, then y; spec 2.1), flat-topped hexes, odd
  columns shifted half a hex down; ``neighbours[h]`` by direction 1 N .. 6 NW;
* token stacks as small ints (``STACKS``, tokens top to bottom) with the placement table of
  HA-R5..R11 (``PLACE_ON``);
* card patterns (spec 2.2) as chains of ``(direction, code)`` steps; ``placements`` lists every
  rotation (HA-R16: 6 rotations, never mirrored) and anchor that lies on the board, grouped by the
  hex that receives the cube (HA-R15), each as ``(code, hex bitmask)`` requirements, so a match is
  ``all(req & ~have[code] == 0)``.
"""

from __future__ import annotations

from dataclasses import dataclass

# token colours (spec 2): index = colour id
COLOURS = ("W", "M", "B", "G", "Y", "R")
W, M, B, G, Y, R = range(6)
COLOUR_NAMES = ("blue", "grey", "brown", "green", "yellow", "red")

# every stack the placement rules allow, tokens listed top to bottom ("" = empty space)
STACKS = ("", "W", "Y", "G", "B", "BB", "GB", "GBB", "M", "MM", "MMM", "R", "RB", "RM", "RR")
STACK_ID = {s: i for i, s in enumerate(STACKS)}
EMPTY = 0
NUM_STACKS = len(STACKS)
HEIGHT = tuple(len(s) for s in STACKS)
TOP = tuple(COLOURS.index(s[0]) if s else -1 for s in STACKS)  # top colour id, -1 if empty


def _place_table() -> tuple[tuple[int, ...], ...]:
    """PLACE_ON[stack][colour] = the stack after placing ``colour`` on it, or -1 (HA-R5..R11)."""
    table = [[-1] * len(COLOURS) for _ in STACKS]
    for s, name in enumerate(STACKS):
        for c, col in enumerate(COLOURS):
            new = col + name
            if name == "":
                ok = True  # HA-R5: any token on an empty space
            elif col in "WY":
                ok = False  # HA-R6: blue and yellow only on empty spaces
            elif name[0] in "WYG":
                ok = False  # HA-R7: nothing on blue, yellow or green
            elif col == "M":
                ok = set(name) == {"M"} and len(name) <= 2  # HA-R8: mountains up to 3 greys
            elif col == "B":
                ok = name == "B"  # HA-R9: trunks are at most 2 browns
            elif col == "G":
                ok = name in ("B", "BB")  # HA-R10: G on one or two browns
            else:  # red, HA-R11: only on a single brown, grey or red token
                ok = name in ("B", "M", "R")
            if ok and len(new) <= 3:  # HA-R11: a stack is never taller than 3
                table[s][c] = STACK_ID[new]
    return tuple(tuple(r) for r in table)


PLACE_ON = _place_table()

# scoring kinds of stacks (HA-R34)
IS_TREE = tuple(s[:1] == "G" for s in STACKS)
IS_MOUNTAIN = tuple(s[:1] == "M" for s in STACKS)
IS_BUILDING = tuple(s[:1] == "R" and len(s) == 2 for s in STACKS)

DIRECTIONS = (1, 2, 3, 4, 5, 6)  # 1 N, 2 NE, 3 SE, 4 S, 5 SW, 6 NW


def step(x: int, y: int, d: int) -> tuple[int, int]:
    """The space next to ``(x, y)`` in direction ``d`` (spec 2.1; e = x even)."""
    e = x % 2 == 0
    if d == 1:
        return x, y - 1
    if d == 2:
        return x + 1, (y - 1 if e else y)
    if d == 3:
        return x + 1, (y if e else y + 1)
    if d == 4:
        return x, y + 1
    if d == 5:
        return x - 1, (y if e else y + 1)
    if d == 6:
        return x - 1, (y - 1 if e else y)
    raise ValueError(f"direction {d} is not 1..6")


def rotate(d: int, k: int) -> int:
    """Direction ``d`` rotated by ``k`` steps: ((d - 1 + k) mod 6) + 1 (spec 2.1)."""
    return (d - 1 + k) % 6 + 1


@dataclass(frozen=True)
class Pattern:
    """A card pattern (spec 2.2): the first hex's code, then ``(direction, code)`` steps; ``cube``
    is the index (0 = first hex) of the hex that receives the cube."""

    codes: tuple[str, ...]
    directions: tuple[int, ...]  # len(codes) - 1 steps
    cube: int


def parse_pattern(text: str, known_codes: set[str] | frozenset[str]) -> Pattern:
    """Parse ``"GBB; 3:W; 3:W*"`` (ValueError on anything else)."""
    parts = [p.strip() for p in text.split(";")]
    codes: list[str] = []
    dirs: list[int] = []
    cube = -1
    for i, part in enumerate(parts):
        if i > 0:
            d, sep, part = part.partition(":")
            if not sep or d not in ("1", "2", "3", "4", "5", "6"):
                raise ValueError(f"pattern {text!r}: step {i} must be 'd:stack' with d in 1..6")
            dirs.append(int(d))
        if part.endswith("*"):
            if cube >= 0:
                raise ValueError(f"pattern {text!r}: more than one cube hex")
            cube, part = i, part[:-1]
        if part not in known_codes:
            raise ValueError(f"pattern {text!r}: unknown stack code {part!r}")
        codes.append(part)
    if cube < 0 or len(codes) < 2:
        raise ValueError(f"pattern {text!r}: needs at least 2 hexes and one cube hex '*'")
    return Pattern(tuple(codes), tuple(dirs), cube)


class Geometry:
    """One board side: spaces, neighbours and every pattern placement (precomputed)."""

    def __init__(self, columns: list[int] | tuple[int, ...]):
        self.columns = tuple(columns)
        self.spaces: tuple[tuple[int, int], ...] = tuple((x, y) for x, h in enumerate(columns) for y in range(h))
        self.size = len(self.spaces)
        self.index = {xy: i for i, xy in enumerate(self.spaces)}
        # neighbours[h][d - 1] = hex index or -1
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.index.get(step(x, y, d), -1) for d in DIRECTIONS) for x, y in self.spaces
        )
        self.adjacent: tuple[tuple[int, ...], ...] = tuple(tuple(n for n in row if n >= 0) for row in self.neighbours)
        self.all_bits = (1 << self.size) - 1

    def hex_of(self, x: int, y: int) -> int:
        return self.index[(x, y)]

    def walk(self, anchor: int, directions: tuple[int, ...], k: int) -> list[int] | None:
        """The hexes of a chain from ``anchor`` rotated by ``k``, or None if it leaves the board."""
        out = [anchor]
        x, y = self.spaces[anchor]
        for d in directions:
            x, y = step(x, y, rotate(d, k))
            h = self.index.get((x, y), -1)
            if h < 0:
                return None
            out.append(h)
        return out

    def placements(self, pattern: Pattern) -> dict[int, list[tuple[tuple[str, int], ...]]]:
        """Every way the pattern lies on the board, grouped by cube hex: ``{cube_hex: [((code,
        bitmask), ...), ...]}`` over all 6 rotations (HA-R16) and all anchors (HA-R15). Identical
        requirement sets are listed once."""
        out: dict[int, list[tuple[tuple[str, int], ...]]] = {}
        seen: set[tuple[int, tuple[tuple[str, int], ...]]] = set()
        for k in range(6):
            for anchor in range(self.size):
                hexes = self.walk(anchor, pattern.directions, k)
                if hexes is None or len(set(hexes)) != len(hexes):
                    continue
                req: dict[str, int] = {}
                for code, h in zip(pattern.codes, hexes):
                    req[code] = req.get(code, 0) | (1 << h)
                item = tuple(sorted(req.items()))
                key = (hexes[pattern.cube], item)
                if key not in seen:
                    seen.add(key)
                    out.setdefault(hexes[pattern.cube], []).append(item)
        return out

    def groups(self, members: int) -> list[int]:
        """Connected components (hex adjacency) of the set ``members`` (a bitmask), as bitmasks."""
        out = []
        left = members
        adj = self.adjacent
        while left:
            low = left & -left
            comp = low
            frontier = [low.bit_length() - 1]
            left ^= low
            while frontier:
                h = frontier.pop()
                for n in adj[h]:
                    b = 1 << n
                    if left & b:
                        left ^= b
                        comp |= b
                        frontier.append(n)
            out.append(comp)
        return out

    def diameter(self, group: int) -> int:
        """HA-R29: the largest number of hexes on a shortest path (inside the group) between two
        of its hexes (1 for a single hex)."""
        cells = []
        bits = group
        while bits:  # the group's hexes, lowest first
            low = bits & -bits
            bits ^= low
            cells.append(low.bit_length() - 1)
        best = 1
        adj = self.adjacent
        for s in cells:
            dist = {s: 1}
            frontier = [s]
            while frontier:
                nxt = []
                for h in frontier:
                    for n in adj[h]:
                        if group >> n & 1 and n not in dist:
                            dist[n] = dist[h] + 1
                            nxt.append(n)
                frontier = nxt
            best = max(best, max(dist.values()))
        return best
