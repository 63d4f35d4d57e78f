"""The digest and the topic page tell the same occasion: both read the one story view the index published."""

from __future__ import annotations

from fastapi.testclient import TestClient

from harness.apps import AUTH


def test_the_digest_folds_a_story_under_the_occasion_its_topic_page_names(client: TestClient) -> None:
    digest = client.get("/v1/digest?format=json&limit=50", headers=AUTH).json()
    folded = [item for item in digest["items"] if item.get("occasion")]
    assert folded, "the synthetic snapshot's gala night is folded into one entry"
    listed = client.get("/v1/topics?limit=500", headers=AUTH).json()["items"]
    topic_id = {(t["source"], t["title"]): t["id"] for t in listed}
    for entry in folded:
        for story in entry["stories"]:
            first = story["platforms"][0]
            page = client.get(f"/v1/topics/{topic_id[first['source'], first['title']]}", headers=AUTH).json()
            assert page["cluster"]["id"] == story["cluster_id"], story
            assert page["occasion"] is not None and page["occasion"]["id"] == entry["occasion"]["id"], story
