"""The words that name nothing on their own, each written once, and which reader skips which.

English: the articles, prepositions and pronouns every reader skips (`CORE_EN`); the spoken
function words that BM25 query terms and the bridges' phrase edges both skip; speech fillers only
the query terms skip (a gloss never holds "um"); and the common words a CEDICT phrase may not start
or end with (a bridge of "new" or "people" would match half the lists), which BM25 keeps ("new
iPhone"). Chinese: the function-word bigrams of spoken Chinese that carry no topic, and the
characters of grammar a bigram of an everyday phrase may not hold.
"""

from __future__ import annotations

__all__ = ["BRIDGE_EDGE_EN", "CORE_EN", "QUERY_EN", "ZH_FUNCTION_CHARS", "ZH_SEAMS", "ZH_STOP_BIGRAMS"]

#: Skipped by every reader, the everyday-phrase match too (everyday.py).
CORE_EN = frozenset("a an the of to and or in on at for is are it you we i".split())

_SPOKEN_EN = frozenset("""
all any be been by can could did do does from get go going got had has have he her here him his how its just
know like me more most my no not now oh ok okay only other our own really right same she should so some such
than that their them then there these they thing things think this those too very was well were what when
where which who whom why will with would yeah yes your
""".split())

_FILLERS_EN = frozenset("""
about after am as before being both but don down each few gonna guess hmm if into it's kinda lol lot mean
off once out over s stuff t uh um up wanna whose
""".split())

_COMMON_EN = frozenset("""
again also back bad big came come done even ever first gone good guy guys hey knew last little many may
might much must never new next old one people said saw say see seen still tell thought told two us way went
wow
""".split())

#: English words that are not query terms (lexical.py).
QUERY_EN = CORE_EN | _SPOKEN_EN | _FILLERS_EN
#: English words a bridged phrase may not be, start or end with (bridges.py).
BRIDGE_EDGE_EN = CORE_EN | _SPOKEN_EN | _COMMON_EN

#: Function-word bigrams of spoken Chinese: they carry no topic, and in a small corpus a single
#: title containing one (e.g. 还是) would otherwise get a high IDF and match every chat.
ZH_STOP_BIGRAMS = frozenset(
    """
还是 到底 什么 怎么 这个 那个 一个 我们 你们 他们 她们 就是 不是 没有 可以 因为 所以 然后 但是 如果 已经
还有 自己 知道 觉得 现在 真的 时候 这么 那么 为什么 是不 有没 一下 一样 这样 那样 一点 有点 好像 听说 据说
感觉 其实 反正 而且 还在 也是 都是 就是 不过 起来 出来 一直 这次 那次 这些 那些 哪个 哪些 多少 怎样 咱们
我的 你的 他的 她的 的人 了吗 了吧 了啊 是的 的时 好多 太多 特别 非常 真是 看到 看了 你看 我看 说是 说的
""".split()
)

#: Characters of grammar, not of content: a bigram holding one (的压 of "你的压岁钱") names nothing.
ZH_FUNCTION_CHARS = frozenset("的了是在我你他她它们这那个和与也就都还吗呢啊吧把被给让")

#: The particle that joins a modifier to its noun: a bigram holding it (的春 of "今年的春联") is a seam between two
#: words, not a word of the text. 了 and the sentence-final particles follow the verb they end, a one-character
#: word that only its bigram carries (瘦了 of "他瘦了"): they stay.
ZH_SEAMS = frozenset("的")
