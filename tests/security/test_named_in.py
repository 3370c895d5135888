"""The leak checks' search for a hidden name in a text: whole words only, found the same whether the name is a run of
word characters and hyphens (looked up among the text's runs) or not (searched for)."""

from __future__ import annotations

from tests.security.common import named_in

TEXT = "Ann kept hut-1 and a hut, then the-sunrise; clay. x_y 12 blue-1-love (the sun)"


def test_a_name_is_found_only_as_a_whole_word() -> None:
    names = ["hut", "hut-1", "the-sun", "the-sunrise", "clay", "x", "x_y", "12", "1", "blue-1-love", "blue", "Ann"]
    assert named_in(TEXT, names) == {"hut", "hut-1", "the-sunrise", "clay", "x_y", "12", "blue-1-love", "Ann"}


def test_a_name_with_other_characters_is_searched_for_as_a_whole() -> None:
    assert named_in(TEXT, ["the sun", "a hut", "hut, then", "sun)"]) == {"the sun", "a hut", "hut, then", "sun)"}
    assert named_in(TEXT, ["he sun", "a hu", "then the"]) == set()  # "then the" goes on: "-sunrise"
