import pytest

from agent.errors import DuplicateNameError, UnknownNameError
from agent.registry import Registry
from agent.sources import source_class


def test_a_registry_refuses_a_taken_name_and_lists_the_valid_ones_for_an_unknown_one():
    colours = Registry("colour", [("red", 1), ("green", 2)])
    with pytest.raises(DuplicateNameError, match="colour 'red' is registered already"):
        colours.register("red", 3)
    with pytest.raises(DuplicateNameError):
        colours["green"] = 4
    assert dict(colours) == {"red": 1, "green": 2}
    with pytest.raises(UnknownNameError, match="unknown colour 'blue'; valid: green, red"):
        colours["blue"]
    assert colours.get("blue") is None and "blue" not in colours and colours.get("red") == 1


def test_an_unknown_source_lists_the_registered_ones():
    with pytest.raises(UnknownNameError, match="unknown source 'myspace'; valid: baidu, bilibili, dailyhot"):
        source_class("myspace")
