"""engine/state.py: `evolver` and `maker` are `dataclasses.replace` and the constructor of a frozen, slotted
class, only faster."""

from __future__ import annotations

import dataclasses

import pytest

from loom.engine.state import evolver, maker


@dataclasses.dataclass(frozen=True, slots=True)
class Position:
    seat: int = 0
    hands: tuple[tuple[int, ...], ...] = ()
    over: bool | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Extended(Position):  # a base class with slots of its own: another layout than a plain twin's
    turn: int = 0


@pytest.mark.parametrize("cls", [Position, Extended])
def test_an_evolved_state_equals_the_replaced_one_and_is_of_its_class(cls: type) -> None:
    before = cls(seat=1, hands=((1, 2), ()))
    after = evolver(cls)(before, seat=2, over=False)
    assert after == dataclasses.replace(before, seat=2, over=False)
    assert type(after) is cls and hash(after) == hash(dataclasses.replace(before, seat=2, over=False))


@pytest.mark.parametrize("cls", [Position, Extended])
def test_an_evolved_state_is_frozen_and_leaves_the_state_it_came_from_alone(cls: type) -> None:
    before = cls(seat=1)
    after = evolver(cls)(before, hands=((3,),))
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.seat = 5
    assert before == cls(seat=1) and after.hands == ((3,),) and after.seat == 1


def test_a_field_the_state_does_not_have_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        evolver(Position)(Position(), turns=3)


def test_every_field_may_be_given_none() -> None:
    assert evolver(Position)(Position(over=True), over=None).over is None


@pytest.mark.parametrize("cls", [Position, Extended])
def test_a_made_instance_equals_the_constructed_one_and_is_frozen(cls: type) -> None:
    values = [f"value of {f.name}" for f in dataclasses.fields(cls)]
    made = maker(cls)(*values)
    assert made == cls(*values) and type(made) is cls
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.seat = 5
