"""The answers every surface gives, computed once: chat and Lingzhu, the MCP tools, the REST routes.

Each function reads the running service and returns typed values (`Fact`s, a `Glance`,
a `Digest`, `SourceStatus` rows); each surface only words or serialises them. A second
copy of one of these in a route or a tool is a bug: the two would drift apart.
"""

from __future__ import annotations

from agent.answers.queries.digest import digest_window
from agent.answers.queries.glance import Glance, GlanceDeps, glance, utterance_rank_params
from agent.answers.queries.lists import fresh_ids, fresh_stories, hottest_stories, platform_list, region_sources
from agent.answers.queries.sources import SourceStatus, source_statuses, statuses_of
from agent.answers.queries.story import story_about, story_at, story_by_id, told

__all__ = ["Glance", "GlanceDeps", "SourceStatus", "digest_window", "fresh_ids", "fresh_stories", "glance",
           "hottest_stories", "platform_list", "region_sources", "source_statuses", "statuses_of", "story_about",
           "story_at", "story_by_id", "told", "utterance_rank_params"]
