"""Who may see and do what: the admin token, each game's seat tokens and table token.

A game's tokens are not stored: each is an HMAC of the game id and the role under the database's secret
(`replay.live.service_secret`), so the server hands them out at creation and checks them without a lookup, and
they stay valid across restarts. A seat token shows that seat's cards and plays for it; the table token (the
device that records a game at a real table, or whoever created it) sees everything of that game and supplies its
chance events; the admin token does everything on every game.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

from loom.events.base import LoomError
from loom.service.views import OMNISCIENT, PUBLIC, Viewer

TABLE = "table"


class Unauthorized(LoomError):
    """A request that needs a token and came without one (401)."""


class Forbidden(LoomError):
    """A request whose token does not allow it (403)."""


class SeatNotFound(LoomError):
    """A seat the game does not have (404)."""


@dataclass(frozen=True, slots=True)
class Grant:
    """What one request's token allows on one game: everything (the admin's or the table's), one seat, or nothing."""

    everything: bool = False
    seat: int | None = None

    @property
    def anonymous(self) -> bool:
        """No token, or one that opens nothing of this game."""
        return not self.everything and self.seat is None


NOBODY = Grant()
EVERYTHING = Grant(everything=True)
ROLES_KEPT = 4096
"""Games whose tokens are kept, worked out, in memory: a request on one of them checks its token in one lookup."""


class Keys:
    """Makes and checks tokens from the database's secret and the admin token (None: no admin)."""

    def __init__(self, secret: bytes, admin_token: str | None) -> None:
        self.secret = secret  # handed to the server's shards, which check the same tokens
        self._admin = admin_token
        # (game id, seats) -> {token: what it opens}: a game's tokens never change, so what is kept is never stale.
        # Shared by the writer and the readers' threads: a dict's get and set are atomic, and at worst a game's
        # tokens are worked out twice.
        self._roles: dict[tuple[int, int], dict[str, Grant]] = {}

    def token(self, game_id: int, role: int | str) -> str:
        """The token of seat `role` (a number) or of the table of game `game_id`."""
        digest = hmac.new(self.secret, f"loom/{game_id}/{role}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:24]).decode()

    def tokens(self, game_id: int, seats: int) -> dict[str, object]:
        """Every token of a game: one per seat, in seat order, and the table's."""
        return {"seats": [self.token(game_id, seat) for seat in range(seats)], TABLE: self.token(game_id, TABLE)}

    @property
    def admin_set(self) -> bool:
        """Whether the server has an admin token (a loopback server may run without one)."""
        return self._admin is not None

    def is_admin(self, token: str | None) -> bool:
        """Whether `token` is the admin token."""
        return token is not None and self._admin is not None and hmac.compare_digest(token, self._admin)

    def grant(self, token: str | None, game_id: int, seats: int) -> Grant:
        """What `token` allows on game `game_id` of `seats` seats."""
        if token is None:
            return NOBODY
        if self.is_admin(token):
            return EVERYTHING
        # A dict lookup compares the token only with a key of the same (randomly keyed) hash: its time tells
        # nothing about how near a guess came, as compare_digest's promises.
        return self._roles_of(game_id, seats).get(token, NOBODY)

    def _roles_of(self, game_id: int, seats: int) -> dict[str, Grant]:
        """Each token of the game and what it opens: worked out (seats + 1 HMACs) once, then kept."""
        roles = self._roles.get((game_id, seats))
        if roles is None:
            roles = {self.token(game_id, seat): Grant(seat=seat) for seat in range(seats)}
            roles[self.token(game_id, TABLE)] = EVERYTHING
            if len(self._roles) >= ROLES_KEPT:
                self._roles.clear()  # simpler than least-recently-used, and working a game's out again is cheap
            self._roles[(game_id, seats)] = roles
        return roles


def require_admin(keys: Keys, token: str | None, what: str) -> None:
    """Refuse `what` unless the request holds the admin token; with no admin token set, anyone may."""
    if not keys.admin_set:  # a loopback server without an admin token: local use, so creating is open
        return
    if token is None:
        raise Unauthorized(f"{what} needs the admin token (Authorization: Bearer ...)")
    if not keys.is_admin(token):
        raise Forbidden(f"{what} needs the admin token; this token is not it")


def viewer_for(grant: Grant, asked: str | None, token_given: bool, seats: int, game_id: int) -> Viewer:
    """The view a request gets: `?as=` a seat, `public` or `all`, checked against its grant; by default the most
    its token allows (a seat's token: that seat; the table or admin: everything; none: the public view)."""
    if asked is None:
        return OMNISCIENT if grant.everything else grant.seat if grant.seat is not None else PUBLIC
    if asked == PUBLIC:
        return PUBLIC
    if asked == OMNISCIENT:
        if not grant.everything:
            _refuse(token_given, "the whole game (as=all) needs the game's table token or the admin token")
        return OMNISCIENT
    seat = _seat_number(asked, seats, game_id)
    if not grant.everything and grant.seat != seat:
        _refuse(token_given, f"the view of seat {seat} needs seat {seat}'s token")
    return seat


def _seat_number(asked: str, seats: int, game_id: int) -> int:
    try:
        seat = int(asked)
    except ValueError:
        raise SeatNotFound(f"as={asked!r}: give a seat number, 'public' or 'all'") from None
    if not 0 <= seat < seats:
        raise SeatNotFound(f"seat {seat} is out of range: game {game_id} has seats 0 to {seats - 1}")
    return seat


def _refuse(token_given: bool, reason: str) -> None:
    raise (Forbidden if token_given else Unauthorized)(reason)


def may_act(grant: Grant, seat: int, token_given: bool) -> None:
    """Refuse an action for `seat` unless the token is that seat's, the table's or the admin's."""
    if not grant.everything and grant.seat != seat:
        _refuse(token_given, f"an action for seat {seat} needs seat {seat}'s token")
