"""The bodies the service accepts, as pydantic models: they are checked on arrival and described at /docs."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from loom.replay.branches import MAX_SEED

MAX_SEATS = 10
MAX_EVENTS = 1000


class Body(BaseModel):
    """Unknown keys are refused: a misspelt one would otherwise be silently ignored."""

    model_config = ConfigDict(extra="forbid")


class NewGameBody(Body):
    """A new game: the server deals from `players` (and `seed`), or a real table supplies its opening `events`."""

    game: str = Field(description="motto, moirai, moorea or stones-of-fate", examples=["motto"])
    players: list[str] | None = Field(
        default=None, max_length=MAX_SEATS, description="names in turn order (seat 0 starts): the server deals"
    )
    seed: int | None = Field(default=None, ge=0, lt=2**63, description="the server's deal from this seed")
    events: list[dict[str, Any]] | None = Field(
        default=None,
        max_length=MAX_EVENTS,
        description="a real table's opening events as log lines (docs/log-format.md), its chance included",
    )
    bots: list[str | None] | None = Field(
        default=None, max_length=MAX_SEATS, description="a label per seat: the bot playing it, or null for a person"
    )


class ActionBody(Body):
    """An action of the seat to move, at the game's current sequence number."""

    expected_seq: int = Field(ge=0, description="the game's last event, as the client last saw it")
    action: dict[str, Any] = Field(description='the action as JSON, e.g. {"type": "draw"}', examples=[{"type": "draw"}])
    seat: int | None = Field(default=None, ge=0, description="the seat acting (default: the seat to move)")


class EventsBody(Body):
    """Events a client writes itself (a real table's draws and deals), at the game's current sequence number."""

    expected_seq: int = Field(ge=0, description="the game's last event, as the client last saw it")
    events: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_EVENTS, description="log lines, in order")


class BranchBody(Body):
    """A branch: a new game sharing the prefix before `turn` (or up to event `seq`), with other actions played there."""

    turn: int | None = Field(default=None, ge=1, description="fork at the start of this turn")
    seq: int | None = Field(
        default=None,
        ge=1,
        validate_default=True,
        description="or fork just after this event, in the middle of a turn too (the board's position)",
    )
    actions: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_EVENTS)
    bot: str | None = Field(default=None, description="play the rest of the game with this bot")
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        strict=True,
        description="a seat's what-if: the seed its unseen cards are dealt from (default: a fresh one); the same "
        "seed deals the same cards again",
    )

    @field_validator("seq")
    @classmethod
    def _one_fork(cls, seq: int | None, info: ValidationInfo) -> int | None:
        if "turn" in info.data and (seq is None) == (info.data["turn"] is None):
            raise ValueError("give turn (fork at its start) or seq (fork just after that event), one of them")
        return seq
