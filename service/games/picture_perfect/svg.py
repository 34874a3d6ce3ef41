"""The final photo of one seat as a standalone SVG document.

The mat is drawn in perspective as the camera sees it (row 1 in front, row 4 at the back),
figures are drawn back to front so nearer figures overlap farther ones, each figure's height
follows its height class, and a face that the referee counts as covered (service/games/picture_perfect/rules.md,
"The photo") is drawn greyed and crossed out.  Below the picture each placed guest is listed with
its preference cards fulfilled and its points for this seat.
"""

from __future__ import annotations

from html import escape

from ..base import State
from .data import (
    COLS,
    GUEST_INDEX,
    GUEST_NAME,
    HEIGHT,
    HEIGHT_NAMES,
    LOW,
    NO_FACE,
    ROWS,
    TABLE_SQUARES,
)

W = 760
CELL = 150
FOCAL = 4.0
Y_FRONT = 500.0
HORIZON = 40.0
SCENE_H = 540
LINE_H = 20
FIGURE_H = {3: 190.0, 2: 115.0, 1: 60.0}
FIGURE_W = 54.0
COLOURS = {
    "yellow_dress": "#f2c82e", "lady_in_red": "#c8102e", "bride": "#fbfbfb", "diva": "#8e44ad",
    "grandmother": "#95a5a6", "little_girl": "#ff9ff3", "elderly_gentleman": "#6d4c41", "waiter": "#222222",
    "rock_star": "#2c3e50", "magician": "#4b0082", "little_boy": "#3498db", "wheelchair_gentleman": "#16a085",
    "corgi": "#d9822b", "potted_palm": "#2e8b57",
}


def _scale(depth: float) -> float:
    return FOCAL / (FOCAL + depth)


def _y(depth: float) -> float:
    return HORIZON + (Y_FRONT - HORIZON) * _scale(depth)


def _x(col_edge: float, depth: float) -> float:
    """x of a column boundary (0..COLS) at a depth (0 = front edge of row 1)."""
    return W / 2 + (col_edge - COLS / 2) * CELL * _scale(depth)


def _quad(c0: float, c1: float, d0: float, d1: float) -> str:
    pts = [(_x(c0, d0), _y(d0)), (_x(c1, d0), _y(d0)), (_x(c1, d1), _y(d1)), (_x(c0, d1), _y(d1))]
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)


def _figure(guest: str, row: int, col: int, number: int, covered: bool, points: int) -> tuple[str, str]:
    """The figure itself, and its overlay (number badge, covered-face mark) drawn on top of everything."""
    g = GUEST_INDEX[guest]
    depth = row - 0.5
    s = _scale(depth)
    cx, base = _x(col - 0.5, depth), _y(depth)
    h, w = FIGURE_H[HEIGHT[g]] * s, FIGURE_W * s
    top = base - h
    colour = COLOURS[guest]
    head_r = 13 * s
    parts = [f'<g class="guest" data-guest="{guest}">']
    if guest == "potted_palm":
        parts.append(f'<rect x="{cx - w * 0.35:.1f}" y="{base - 40 * s:.1f}" width="{w * 0.7:.1f}" '
                     f'height="{40 * s:.1f}" fill="#8d5524" stroke="#333"/>')
        for dx in (-0.6, -0.3, 0, 0.3, 0.6):
            parts.append(f'<ellipse cx="{cx + dx * w:.1f}" cy="{top + h * 0.35:.1f}" rx="{w * 0.35:.1f}" '
                         f'ry="{h * 0.33:.1f}" fill="{colour}" stroke="#1e5631" opacity="0.9"/>')
        face = None
    elif HEIGHT[g] == LOW:  # the corgi
        parts.append(f'<ellipse cx="{cx:.1f}" cy="{base - h * 0.4:.1f}" rx="{w * 0.6:.1f}" ry="{h * 0.35:.1f}" '
                     f'fill="{colour}" stroke="#333"/>')
        face = (cx + w * 0.45, base - h * 0.75)
    else:
        body_top = top + 2 * head_r
        parts.append(f'<rect x="{cx - w / 2:.1f}" y="{body_top:.1f}" width="{w:.1f}" height="{base - body_top:.1f}" '
                     f'rx="{8 * s:.1f}" fill="{colour}" stroke="#333"/>')
        face = (cx, top + head_r)
    if face is not None:
        parts.append(f'<circle cx="{face[0]:.1f}" cy="{face[1]:.1f}" r="{head_r:.1f}" fill="#f1c27d" stroke="#333"/>')
    parts.append("</g>")
    overlay = []
    if face is not None and covered:
        fx, fy = face
        overlay.append(f'<g class="covered-face" data-guest="{guest}"><circle cx="{fx:.1f}" cy="{fy:.1f}" '
                       f'r="{head_r:.1f}" fill="#777" fill-opacity="0.55" stroke="#000" stroke-dasharray="3,2"/>'
                       f'<line x1="{fx - head_r:.1f}" y1="{fy - head_r:.1f}" x2="{fx + head_r:.1f}" '
                       f'y2="{fy + head_r:.1f}" stroke="#000"/></g>')
    bx, by = cx + w / 2, top
    overlay.append(f'<g class="badge"><circle cx="{bx:.1f}" cy="{by:.1f}" r="11" fill="#fff" stroke="#333"/>'
                   f'<text x="{bx:.1f}" y="{by + 4:.1f}" font-size="11" text-anchor="middle">{number}</text>'
                   f'<text x="{bx + 14:.1f}" y="{by + 4:.1f}" font-size="12" font-weight="bold" '
                   f'fill="{"#1a7f37" if points > 0 else "#b42318"}">{points:+d}</text></g>')
    return "".join(parts), "".join(overlay)


def _table(decor: list[int]) -> str:
    """The table on row 2, columns 2-3, with decorations on the decorated squares."""
    (r, c0), (_, c1) = TABLE_SQUARES[0], TABLE_SQUARES[-1]
    d0, d1 = r - 1 + 0.15, r - 0.15
    lift = 45
    top = _quad(c0 - 1 + 0.1, c1 - 0.1, d0, d1)
    pts = [tuple(map(float, p.split(","))) for p in top.split()]
    raised = " ".join(f"{x:.1f},{y - lift * _scale(d0):.1f}" for x, y in pts)
    front = (f"{pts[0][0]:.1f},{pts[0][1]:.1f} {pts[1][0]:.1f},{pts[1][1]:.1f} "
             f"{pts[1][0]:.1f},{pts[1][1] - lift * _scale(d0):.1f} {pts[0][0]:.1f},{pts[0][1] - lift * _scale(d0):.1f}")
    out = [f'<g class="table"><polygon points="{front}" fill="#7b4a2a" stroke="#333"/>'
           f'<polygon points="{raised}" fill="#a0643a" stroke="#333"/>']
    for col in decor:
        depth = r - 0.5
        cx, cy = _x(col - 0.5, depth), _y(depth) - lift * _scale(depth)
        s = _scale(depth)
        out.append(f'<g class="decoration" data-column="{col}">')
        for dx, colour in ((-18, "#e84393"), (0, "#fdcb6e"), (18, "#00b894")):
            out.append(f'<rect x="{cx + dx * s - 8 * s:.1f}" y="{cy - 62 * s:.1f}" width="{16 * s:.1f}" '
                       f'height="{62 * s:.1f}" rx="4" fill="{colour}" stroke="#333"/>')
        out.append("</g>")
    out.append("</g>")
    return "".join(out)


def render(placement: dict, scored: dict, seat: int, total: int, extra: str) -> str:
    """Draw one photo from a placement and its scoring (``Layout``-independent: pure drawing)."""
    guests = scored["guests"]
    order = sorted(guests, key=lambda g: (-guests[g]["row"], guests[g]["col"]))
    numbers = {g: i + 1 for i, g in enumerate(sorted(guests, key=lambda g: (guests[g]["row"], guests[g]["col"])))}
    lines = max(1, len(guests))
    height = SCENE_H + 70 + LINE_H * (lines + 3)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" viewBox="0 0 {W} {height}" '
           f'font-family="Helvetica, Arial, sans-serif">',
           f"<title>Picture Perfect - final photo of seat {seat}</title>",
           f'<rect width="{W}" height="{height}" fill="#fdf6e3"/>',
           f'<rect x="20" y="20" width="{W - 40}" height="{SCENE_H - 40}" fill="#dfe6e9" stroke="#555"/>',
           '<g class="mat">']
    for r in range(1, ROWS + 1):
        for c in range(1, COLS + 1):
            table = (r, c) in TABLE_SQUARES
            fill = "#c8b18e" if table else ("#f5e6c8" if (r + c) % 2 else "#ead7b0")
            out.append(f'<polygon points="{_quad(c - 1, c, r - 1, r)}" fill="{fill}" stroke="#8a7654"/>')
    out.append("</g>")
    overlays = []
    by_row = {r: [g for g in order if guests[g]["row"] == r] for r in range(1, ROWS + 1)}
    for r in range(ROWS, 0, -1):  # back to front: nearer figures overlap farther ones
        if r == TABLE_SQUARES[0][0]:
            out.append(_table(placement.get("decor", [])))
        for g in by_row[r]:
            info = guests[g]
            fig, over = _figure(g, info["row"], info["col"], numbers[g], info["face_covered"], info["points"])
            out.append(fig)
            overlays.append(over)
    out += overlays
    out.append(f'<text x="{W / 2}" y="{SCENE_H - 8}" font-size="13" text-anchor="middle" fill="#555">'
               "camera side (row 1 in front; row 4 at the back)</text>")
    y = SCENE_H + 24
    out.append(f'<text x="24" y="{y}" font-size="18" font-weight="bold">Seat {seat}: {total} points</text>')
    y += 22
    if extra:
        out.append(f'<text x="24" y="{y}" font-size="13">{escape(extra)}</text>')
    y += LINE_H + 4
    if not guests:
        out.append(f'<text x="24" y="{y}" font-size="13">No guests placed.</text>')
    for g in sorted(guests, key=numbers.get):
        info = guests[g]
        marks = " ".join("✓" if ok else "✗" for ok in info["fulfilled"])
        vip = f", {info['vips']} VIP" if info["vips"] else ""
        face = "covered" if info["face_covered"] else ("none" if GUEST_INDEX[g] in NO_FACE else "visible")
        text = (f"{numbers[g]}. {GUEST_NAME[g]} - row {info['row']}, column {info['col']}, "
                f"{HEIGHT_NAMES[HEIGHT[GUEST_INDEX[g]]]}, face {face} - cards {marks}{vip}: {info['points']:+d}")
        out.append(f'<text x="24" y="{y}" font-size="13" class="score" data-guest="{g}" '
                   f'data-points="{info["points"]}">{escape(text)}</text>')
        y += LINE_H
    out.append("</svg>")
    return "\n".join(out)


def photo_svg(state: State, seat: int, scored: dict) -> str:
    """That seat's final photo as SVG, drawn from its scoring (``PicturePerfect.photo_svg`` checks that the match
    is over and scores the seat: this module draws and imports nothing of the rules)."""
    extra = []
    if scored["decor"]:
        extra.append(f"decorations on table column(s) {', '.join(map(str, scored['decor']))}")
    if state["auctions"]:
        extra.append(f"{scored['decorations']} decorations: {scored['decoration_points']:+d}")
    extra.append(f"{scored['placed']} guests placed, {scored['envelopes']} envelopes held")
    return render(state["placements"][seat], scored, seat, scored["total"], "; ".join(extra))
