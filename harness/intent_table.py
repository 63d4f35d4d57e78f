"""The synthetic question tables the chat is judged on: questions as people type or say them, in
both languages, each with the intent it asks for.

Written by us (synthetic), so they test the reading of questions, not how often people ask them;
`tests/answers/chat/test_intents.py` asserts each row and `scripts/eval/intents.py` counts the misreads.
"""

from __future__ import annotations

from agent.answers.chat.intents import FollowUp, Fresh, Hottest, Intent, PlatformList, Search, SmallTalk, Story, StoryAt

__all__ = ["FOLLOW_UPS", "TABLE"]

TABLE: list[tuple[str, Intent]] = [
    # a platform's list, or its #1
    ("微博热搜第一", PlatformList(source="weibo", top_only=True)),
    ("微博热搜第一是啥", PlatformList(source="weibo", top_only=True)),
    ("what's on Hacker News", PlatformList(source="hackernews")),
    ("anything hot on HN?", PlatformList(source="hackernews")),
    ("知乎上现在什么最火？", PlatformList(source="zhihu")),
    ("What is trending on V2EX today?", PlatformList(source="v2ex")),
    ("What is trending on Zhihu right now?", PlatformList(source="zhihu")),
    ("百度热搜第一是什么？", PlatformList(source="baidu", top_only=True)),
    ("百度贴吧第一", PlatformList(source="tieba", top_only=True)),
    ("B站热门", PlatformList(source="bilibili")),
    ("哔哩哔哩上在看什么", PlatformList(source="bilibili")),
    ("今日头条热榜", PlatformList(source="toutiao")),
    ("What's number one on Douyin?", PlatformList(source="douyin", top_only=True)),
    ("top story on reddit", PlatformList(source="reddit", top_only=True)),
    ("GitHub trending today", PlatformList(source="github_trending")),
    # hottest across platforms
    ("今天最火的是什么？", Hottest()),
    ("现在有什么热点", Hottest()),
    ("what's trending?", Hottest()),
    ("What's the hottest thing right now?", Hottest()),
    ("what are the biggest stories today", Hottest()),
    # a story
    ("哈尔滨公安悬赏通缉3名美国特工是怎么回事", Story(subject="哈尔滨公安悬赏通缉3名美国特工")),
    ("流浪地球3为什么上热搜", Story(subject="流浪地球3")),
    ("雷军回应是什么情况？", Story(subject="雷军回应")),
    ("why is 雷军回应 trending?", Story(subject="雷军回应")),
    ("why is the Dropbox launch trending on Hacker News", Story(subject="Dropbox launch")),
    ("what's going on with Xiaomi?", Story(subject="Xiaomi")),
    ("tell me about the DeepSeek story", Story(subject="DeepSeek")),
    # new or rising
    ("最近几个小时有什么新上榜的？", Fresh()),
    ("what's new in the last 3 hours?", Fresh(hours=3)),
    ("what's rising on Weibo?", Fresh(source="weibo")),
    ("微博上什么在涨", Fresh(source="weibo")),
    # a topic search (the ranker's job)
    ("最近有什么关于春晚的热梗?", Search(query="最近有什么关于春晚的热梗?", subject="春晚")),
    # one region's lists, asked in the other language
    ("What's the biggest story in China today?", Hottest(region="zh")),
    ("What's trending in China?", Hottest(region="zh")),
    ("what are Chinese people talking about?", Hottest(region="zh")),
    ("现在全网最热的是什么？", Hottest()),
    ("国外最火的是什么", Hottest(region="en")),
    ("美国现在最火的是什么？", Hottest(region="en")),
    ("What's new in China in the last few hours?", Fresh(region="zh")),
    ("国外最近几个小时有什么新上榜的？", Fresh(region="en")),
    ("为什么中国男篮上热搜", Story(subject="中国男篮")),  # a region word inside a title stays in the title
    # the story at a place on a list
    ("知乎第一是怎么回事", StoryAt(source="zhihu", rank=1)),
    ("百度热搜第三条是什么情况", StoryAt(source="baidu", rank=3)),
    ("What's the story with Zhihu's number one?", StoryAt(source="zhihu", rank=1)),
    ("Why is Baidu's #2 trending?", StoryAt(source="baidu", rank=2)),
    ("Reddit 第一是怎么回事？", StoryAt(source="reddit", rank=1)),
    ("tell me about the top story on Weibo", StoryAt(source="weibo", rank=1)),
    # small talk, in both languages
    ("你好", SmallTalk(kind="greeting")),
    ("您好！", SmallTalk(kind="greeting")),
    ("ping", SmallTalk(kind="greeting")),
    ("hi there", SmallTalk(kind="greeting")),
    ("在吗？", SmallTalk(kind="greeting")),
    ("你是谁", SmallTalk(kind="greeting")),
    ("你能做什么？", SmallTalk(kind="help")),
    ("你会什么呀", SmallTalk(kind="help")),
    ("What can you do?", SmallTalk(kind="help")),
    ("help", SmallTalk(kind="help")),
    ("你好，你能做什么", SmallTalk(kind="help")),
    ("谢谢", SmallTalk(kind="thanks")),
    ("thanks a lot!", SmallTalk(kind="thanks")),
    ("Thank you", SmallTalk(kind="thanks")),
    # a question inside courtesy is still the question
    ("你好，微博热搜第一是什么", PlatformList(source="weibo", top_only=True)),
    ("hi, what's trending?", Hottest()),
    ("hi what's trending", Hottest()),
    ("微博热搜第一是什么，谢谢", PlatformList(source="weibo", top_only=True)),
    ("thanks, and what's new on Zhihu?", Fresh(source="zhihu")),
    ("hello kitty 为什么上热搜", Story(subject="hello kitty")),
    ("谢谢老师是什么梗", Story(subject="谢谢老师")),
]


#: Questions that point back at an earlier answer: they ask for something only with a history.
FOLLOW_UPS: list[tuple[str, Intent]] = [
    ("第二个是怎么回事？", FollowUp(position=2)),
    ("第2条呢", FollowUp(position=2)),
    ("最后一个呢", FollowUp(position=-1)),
    ("the second one", FollowUp(position=2)),
    ("tell me more about the first one", FollowUp(position=1)),
    ("and the last one?", FollowUp(position=-1)),
    ("那个火灾", FollowUp(words="火灾")),
    ("那个火灾是怎么回事", FollowUp(words="火灾")),
    ("what about that fire?", FollowUp(words="fire")),
]
