"""Reddit r/popular via app-only OAuth (unauthenticated `.json` answers 403 since mid-2026).

POST https://www.reddit.com/api/v1/access_token (grant_type=client_credentials,
basic auth with the app id/secret) gives a bearer token, cached until it expires;
then GET https://oauth.reddit.com/r/popular/hot. Items are the Listing's
`data.children[].data` of kind t3; stickied, promoted and over_18 posts are dropped.
Offline replay needs no credentials (the token request is answered from the synthetic demo snapshot).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from importlib import metadata
from typing import TYPE_CHECKING, Self

from pydantic import SecretStr

from ..errors import ParseError, SourceDisabled, UpstreamError
from ..models import Topic
from ..settings import DEFAULT_CONTACT
from .base import Endpoint, Source, SourceOptions, check_envelope, load_json

if TYPE_CHECKING:
    import httpx

    from ..settings import Settings
    from .fetcher import Fetcher

TOKEN_URL = "https://www.reddit.com/api/v1/access_token"
LISTING_URL = "https://oauth.reddit.com/r/popular/hot?raw_json=1&limit=50"


@dataclass(frozen=True, kw_only=True)
class RedditOptions(SourceOptions):
    client_id: str | None = None  # TRENDLENS_REDDIT_CLIENT_ID and _SECRET: an app's, for app-only OAuth
    client_secret: SecretStr | None = None
    contact: str = DEFAULT_CONTACT  # TRENDLENS_CONTACT, in the User-Agent Reddit's API rules ask for

    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        platforms = settings.platforms
        return replace(super().from_settings(settings, name), client_id=platforms.reddit_client_id,
                       client_secret=platforms.reddit_client_secret, contact=settings.fetch.contact)


class Reddit(Source):
    name = "reddit"
    title = "Reddit r/popular"
    lang = "en"
    interval_s = 600
    domains = ("reddit.com",)
    replay = "popular-hot.json"
    options_type = RedditOptions
    options: RedditOptions

    def __init__(self, options: RedditOptions | None = None) -> None:
        super().__init__(options)
        self._token: tuple[str, float] | None = None  # (token, monotonic expiry)

    @property
    def user_agent(self) -> str:
        # Reddit's API rules ask for "<platform>:<app id>:<version> (by ...)"
        try:
            version = metadata.version("trendlens")
        except metadata.PackageNotFoundError:
            version = "dev"
        return f"python:trendlens:{version} (+{self.options.contact})"

    def disabled_reason(self, *, replaying: bool = False) -> str | None:
        if replaying:  # the snapshot answers the token request too
            return None
        if not self.options.client_id or not self.options.client_secret:
            return ("set TRENDLENS_REDDIT_CLIENT_ID and TRENDLENS_REDDIT_CLIENT_SECRET (an app id and secret "
                    "from https://www.reddit.com/prefs/apps); Reddit answers 403 without OAuth")
        return None

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint(LISTING_URL, "oauth", {"User-Agent": self.user_agent})]

    async def fetch(self, http: Fetcher) -> list[Topic]:
        reason = self.disabled_reason(replaying=http.replaying)
        if reason:
            raise SourceDisabled(self.name, reason)
        token = await self._access_token(http)
        endpoint = self.endpoints()[0]
        body = await http.get(self.name, endpoint.url,
                              headers={**endpoint.headers, "Authorization": f"bearer {token}"})
        try:
            return self.parse_body(body, url=endpoint.url)
        except UpstreamError:
            self._token = None  # e.g. {"error": 401}: the token was revoked early; get a new one next time
            raise

    async def _access_token(self, http: Fetcher) -> str:
        if self._token and time.monotonic() < self._token[1]:
            return self._token[0]
        secret = self.options.client_secret
        auth = (self.options.client_id or "", secret.get_secret_value() if secret else "")
        body = await http.get(self.name, TOKEN_URL, method="POST", data={"grant_type": "client_credentials"},
                              auth=auth, headers={"User-Agent": self.user_agent})
        data = load_json(self.name, body, TOKEN_URL)
        if isinstance(data, dict) and "error" in data:
            check_envelope(self.name, data, TOKEN_URL, code_key="error", ok=(),
                           message_keys=("message", "error_description"))
        if not isinstance(data, dict) or not data.get("access_token"):
            raise ParseError(self.name, "token answer has no 'access_token'", url=TOKEN_URL)
        expires_in = float(data.get("expires_in") or 3600)
        self._token = (str(data["access_token"]), time.monotonic() + max(0.0, expires_in - 60))
        return self._token[0]

    def replay_case(self, request: httpx.Request) -> str | None:
        return "token.json" if request.url.path.endswith("/access_token") else self.replay

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if not isinstance(data, dict):
            raise ParseError(self.name, "expected a JSON object (a Listing)", url=url)
        if "error" in data:
            check_envelope(self.name, data, url, code_key="error", ok=(),
                           message_keys=("message", "reason", "error_description"))
        if "access_token" in data:
            raise ParseError(self.name, "got an access-token answer, not a Listing", url=url)
        if data.get("kind") != "Listing" or not isinstance((data.get("data") or {}).get("children"), list):
            raise ParseError(self.name, "missing 'data.children' of a Listing in the response", url=url)
        topics: list[Topic] = []
        for child in data["data"]["children"]:
            post = child.get("data") if isinstance(child, dict) and child.get("kind") == "t3" else None
            if not isinstance(post, dict) or not post.get("title"):
                continue
            if not str(post.get("permalink") or "").startswith("/"):
                continue
            if post.get("stickied") or post.get("over_18") or post.get("promoted"):
                continue
            score = post.get("score")
            selftext = str(post.get("selftext") or "").strip() if post.get("is_self") else ""
            permalink = "https://www.reddit.com" + str(post["permalink"])
            topics.append(self.topic(
                item_id=post.get("id"),
                title=str(post["title"]),
                summary=" ".join(selftext.split())[:280] or None,
                rank=len(topics) + 1,
                heat=score,
                heat_text=f"{score} points" if score is not None else None,
                url=permalink,
                extra={"subreddit": post.get("subreddit"), "comments": post.get("num_comments"),
                       "link": post.get("url") or permalink, "created": post.get("created_utc")},
            ))
        return topics
