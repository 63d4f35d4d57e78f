"""The push channel registry: every registered scheme is one apprise reads, set by the roles it names
and refused to the others with what they may set, its URL's secrets read as its kind says."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from agent.errors import ConfigError, DuplicateNameError, UnknownNameError
from agent.notify.channel import (
    ADMIN_KEY,
    CHANNELS,
    CLIENT_KEY,
    OPERATOR,
    ROLES,
    Channel,
    ChannelKind,
    ChannelPolicy,
    Role,
    secrets_of,
)

POLICY: dict[Role, ChannelPolicy] = {"client": CLIENT_KEY, "admin": ADMIN_KEY, "operator": OPERATOR}
# One URL of each registered scheme, as a user would write it (the tokens are made up).
EXAMPLES = {
    "tgram": "tgram://123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ/12345678",
    "discord": "discord://123456789012345678/abcdefghijklmnopqrstuvwxyz0123456789",
    "slack": "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ",
    "pover": "pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@azGDORePK8gMaC0QOYAMyEEuzJnyUi",
    "pbul": "pbul://o.gn5kj6nfhv736I7jC3cj3QLRiyhgl98b",
    "ntfy": "ntfy://ntfy.example.com/my-topic",
    "ntfys": "ntfys://ntfy.example.com/my-topic",
    "json": "json://hooks.example.com/path",
    "jsons": "jsons://hooks.example.com/path",
    "gotify": "gotify://gotify.example.com/AbCdEfGhIjKlMnO",
    "gotifys": "gotifys://gotify.example.com/AbCdEfGhIjKlMnO",
    "bark": "bark://bark.example.com/device_key_123",
    "barks": "barks://bark.example.com/device_key_123",
    "dingtalk": "dingtalk://abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789/",
    "wecombot": "wecombot://0123456789abcdef0123456789abcdef",
    "feishu": "feishu://0123456789abcdef0123456789abcdef",
    "lark": "lark://0123456789abcdef0123456789abcdef",
    "schan": "schan://SCT0123456789abcdef",
    "pushplus": "pushplus://0123456789abcdef0123456789abcdef",
    "pushdeer": "pushdeer://PDU0123456789abcdef",
    "wxpusher": "wxpusher://AT_0123456789abcdef0123456789abcdef/UID_0123456789abcdef0123456789",
    "matrix": "matrix://user:password@matrix.example.com/#room",
    "matrixs": "matrixs://user:password@matrix.example.com/#room",
    "form": "form://hooks.example.com/path",
    "forms": "forms://hooks.example.com/path",
    "xml": "xml://hooks.example.com/path",
    "xmls": "xmls://hooks.example.com/path",
    "mailto": "mailto://user:password@example.com",
    "mailtos": "mailtos://user:password@example.com",
}


def _schemes(plugin: object) -> set[str]:
    """The schemes apprise's plugin answers to (each attribute is one name or several)."""
    names: set[str] = set()
    for attr in ("protocol", "secure_protocol"):
        value = getattr(plugin, attr, None)
        names |= {value} if isinstance(value, str) else set(value or ())
    return names


def test_every_registered_channel_has_an_example_url() -> None:
    assert set(CHANNELS) - set(EXAMPLES) == set(), "channels without an example URL"
    assert set(EXAMPLES) - set(CHANNELS) == set(), "examples of channels no longer registered"


@pytest.mark.parametrize("scheme", list(CHANNELS))
def test_every_registered_channel_is_set_by_its_roles_and_refused_to_the_others(scheme: str) -> None:
    kind, url = CHANNELS[scheme], EXAMPLES[scheme]
    for role in ROLES:
        if kind.settable_by(role):
            channel = Channel.parse(url, 1, POLICY[role])
            assert channel.name == f"{scheme}#1" and scheme in _schemes(channel.plugin)  # apprise's own plugin
        else:
            with pytest.raises(ConfigError, match=rf"^channel #1 \({scheme}://…\): a {role} key may not use "
                                                  rf"{scheme} channels; it may use bark, barks, ") as refused:
                Channel.parse(url, 1, POLICY[role])
            assert url not in str(refused.value)
    # a server's address is no secret; a host that is a token is
    host = urlsplit(url).hostname
    assert (host in secrets_of(url)) is not kind.host_is_address


def test_a_scheme_no_key_may_set_is_refused_with_the_ones_it_may() -> None:
    with pytest.raises(ConfigError, match=r"a client key may not use rsyslog channels; it may use bark, barks, "
                                          r"dingtalk, discord, feishu, gotify, gotifys, json, jsons, lark, "):
        Channel.parse("rsyslog://127.0.0.1:6379", 1, CLIENT_KEY)
    # the operator's own may be any scheme apprise speaks, registered or not
    assert Channel.parse("rsyslog://127.0.0.1:6379", 1, OPERATOR).name == "rsyslog#1"


def test_an_unknown_channel_lists_the_registered_ones() -> None:
    with pytest.raises(UnknownNameError, match="unknown push channel 'pigeon'; valid: bark, barks, dingtalk"):
        CHANNELS["pigeon"]


def test_a_second_channel_of_one_scheme_is_refused() -> None:
    with pytest.raises(DuplicateNameError, match="push channel 'tgram' is registered already"):
        CHANNELS.register("tgram", ChannelKind(least_role="operator"))
    assert CHANNELS["tgram"].least_role == "client"
