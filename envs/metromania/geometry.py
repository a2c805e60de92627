"""The hexagonal city of triangles (MM spec section 2, "Board geometry"): lattice, edges,
triangles, district slots and rotations, gates. Built once from the component data and shared.

Vertices use axial coordinates (x, y) with max(|x|, |y|, |x + y|) <= N; vertex index = position in
the list sorted by (x, y). Triangles are identified by their sorted corner sets; triangle index =
position in the sorted list of those sets. Directions d0..d5 counter-clockwise. Flat tables are
indexed ``v * 6 + d`` (the step from vertex v in direction d).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .data import components

DIRS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
BLANK, RES, COM, ENT, LAKE, PARK = 0, 1, 2, 3, 4, 5
KIND_NAMES = ("blank", "R", "C", "E", "lake", "park")
TYPE_KIND = {"R": RES, "C": COM, "E": ENT}


@dataclass(frozen=True)
class Geometry:
    side: int
    verts: tuple[tuple[int, int], ...]
    vidx: dict
    nbr: tuple[int, ...]  # [v*6+d] -> neighbour vertex or -1
    edge: tuple[int, ...]  # [v*6+d] -> undirected edge id or -1
    edge_verts: tuple[tuple[int, int], ...]
    tri_left: tuple[int, ...]  # [v*6+d] -> triangle left of the edge or -1
    tri_right: tuple[int, ...]
    tris: tuple[tuple[int, int, int], ...]  # corner vertex indices, sorted
    vert_tris: tuple[tuple[int, ...], ...]  # triangles with vertex v as a corner
    tri_touch: tuple[frozenset, ...]  # triangles sharing at least one vertex with t (t excluded)
    perimeter: tuple[bool, ...]
    white_gates: tuple[int, ...]  # white gate g -> vertex
    black_gates: tuple[int, ...]
    white_side: tuple[int, ...]  # white gate g -> side 0..5
    black_side: tuple[int, ...]
    white_at: tuple[int, ...]  # vertex -> white gate index or -1
    black_at: tuple[int, ...]
    slot_cells: tuple[tuple[tuple[int, ...], ...], ...]  # [slot][rotation][r*r + c] -> triangle

    @property
    def num_vertices(self) -> int:
        return len(self.verts)

    @property
    def num_triangles(self) -> int:
        return len(self.tris)

    @property
    def num_edges(self) -> int:
        return len(self.edge_verts)


def cell_index(r: int, c: int) -> int:
    """Position of template cell (row r, index c) in row-major order (0..35)."""
    return r * r + c


def _inside(p: tuple[int, int], n: int) -> bool:
    return max(abs(p[0]), abs(p[1]), abs(p[0] + p[1])) <= n


def _add(p, q, k=1):
    return (p[0] + k * q[0], p[1] + k * q[1])


@cache
def geometry() -> Geometry:
    comp = components()
    n = comp["board"]["side"]
    verts = tuple(sorted((x, y) for x in range(-n, n + 1) for y in range(-n, n + 1) if _inside((x, y), n)))
    vidx = {p: i for i, p in enumerate(verts)}
    nv = len(verts)
    nbr = [-1] * (nv * 6)
    for i, p in enumerate(verts):
        for d, dd in enumerate(DIRS):
            q = _add(p, dd)
            if q in vidx:
                nbr[i * 6 + d] = vidx[q]
    edge_ids: dict[tuple[int, int], int] = {}
    edge = [-1] * (nv * 6)
    for i in range(nv):
        for d in range(6):
            j = nbr[i * 6 + d]
            if j >= 0:
                key = (min(i, j), max(i, j))
                edge[i * 6 + d] = edge_ids.setdefault(key, len(edge_ids))
    edge_verts = tuple(sorted(edge_ids, key=lambda e: edge_ids[e]))
    tri_set: set[tuple[int, int, int]] = set()
    for i, p in enumerate(verts):
        for d in range(6):
            a, b = _add(p, DIRS[d]), _add(p, DIRS[(d + 1) % 6])
            if a in vidx and b in vidx:
                x0, x1, x2 = sorted((i, vidx[a], vidx[b]))
                tri_set.add((x0, x1, x2))
    tris = tuple(sorted(tri_set))
    tidx: dict[tuple[int, ...], int] = {t: k for k, t in enumerate(tris)}
    tri_left = [-1] * (nv * 6)
    tri_right = [-1] * (nv * 6)
    for i, p in enumerate(verts):
        for d in range(6):
            j = nbr[i * 6 + d]
            if j < 0:
                continue
            for table, side in ((tri_left, (d + 1) % 6), (tri_right, (d + 5) % 6)):
                third = _add(p, DIRS[side])
                if third in vidx:
                    table[i * 6 + d] = tidx[tuple(sorted((i, j, vidx[third])))]
    vert_tris = tuple(tuple(k for k, t in enumerate(tris) if i in t) for i in range(nv))
    tri_touch = tuple(frozenset(u for c in t for u in vert_tris[c] if u != k) for k, t in enumerate(tris))
    perimeter = tuple(max(abs(x), abs(y), abs(x + y)) == n for x, y in verts)
    corners = [(n * dx, n * dy) for dx, dy in DIRS]
    wg: list[int] = []
    bg: list[int] = []
    ws: list[int] = []
    bs: list[int] = []
    for s, pattern in enumerate(comp["board"]["gate_pattern"]):
        for pos, colour in enumerate(pattern, start=1):
            v = vidx[_add(corners[s], DIRS[(s + 2) % 6], pos)]
            (wg if colour == "W" else bg).append(v)
            (ws if colour == "W" else bs).append(s)
    white_at = [-1] * nv
    black_at = [-1] * nv
    for g, v in enumerate(wg):
        white_at[v] = g
    for g, v in enumerate(bg):
        black_at[v] = g
    slot_cells = []
    for s in range(6):
        o, p, q = (0, 0), corners[s], corners[(s + 1) % 6]
        rots = []
        for a_, b_, c_ in ((o, p, q), (p, q, o), (q, o, p)):
            u = ((b_[0] - a_[0]) // n, (b_[1] - a_[1]) // n)
            w = ((c_[0] - a_[0]) // n, (c_[1] - a_[1]) // n)

            def pt(i, j, a_=a_, u=u, w=w):
                return (a_[0] + i * u[0] + j * w[0], a_[1] + i * u[1] + j * w[1])

            cells = []
            for r in range(n):
                for c in range(2 * r + 1):
                    if c % 2 == 0:
                        j = c // 2
                        pts = (pt(r - j, j), pt(r + 1 - j, j), pt(r - j, j + 1))
                    else:
                        j = (c - 1) // 2
                        pts = (pt(r - j, j), pt(r - j - 1, j + 1), pt(r - j, j + 1))
                    cells.append(tidx[tuple(sorted(vidx[x] for x in pts))])
            rots.append(tuple(cells))
        slot_cells.append(tuple(rots))
    return Geometry(
        side=n,
        verts=verts,
        vidx=vidx,
        nbr=tuple(nbr),
        edge=tuple(edge),
        edge_verts=edge_verts,
        tri_left=tuple(tri_left),
        tri_right=tuple(tri_right),
        tris=tris,
        vert_tris=vert_tris,
        tri_touch=tri_touch,
        perimeter=perimeter,
        white_gates=tuple(wg),
        black_gates=tuple(bg),
        white_side=tuple(ws),
        black_side=tuple(bs),
        white_at=tuple(white_at),
        black_at=tuple(black_at),
        slot_cells=tuple(slot_cells),
    )


@cache
def district_kinds() -> tuple[tuple[int, ...], ...]:
    """Per district template: the kind of each of its 36 cells (row-major, ``cell_index``)."""
    out = []
    for t in components()["districts"]:
        kinds = [BLANK] * 36
        for r, c in t["blocked_cells"]:
            kinds[cell_index(r, c)] = LAKE if t["blocked"] == "lake" else PARK
        for ty, k in TYPE_KIND.items():
            for r, c in t[ty]:
                kinds[cell_index(r, c)] = k
        out.append(tuple(kinds))
    return tuple(out)


def layout_kinds(perm: list[int] | tuple[int, ...], rots: list[int] | tuple[int, ...]) -> list[int]:
    """Kind of every triangle for districts ``perm[slot]`` with rotations ``rots[slot]`` (MM-R2)."""
    kinds = [BLANK] * geometry().num_triangles
    placed = district_placements()
    for s, (t, k) in enumerate(zip(perm, rots)):
        for tri, kind in placed[s][t][k]:
            kinds[tri] = kind
    return kinds


@cache
def district_placements() -> tuple[tuple[tuple[tuple[tuple[int, int], ...], ...], ...], ...]:
    """``[slot][district][rotation]``: the (triangle, kind) pairs of the district's non-blank cells
    in that slot and rotation (what ``layout_kinds`` writes over the blank board)."""
    g = geometry()
    return tuple(
        tuple(
            tuple(tuple((cells[i], kind) for i, kind in enumerate(dk) if kind != BLANK) for cells in g.slot_cells[s])
            for dk in district_kinds()
        )
        for s in range(6)
    )
