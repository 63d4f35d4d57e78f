from agent.ranking.lexical import tokenize
from agent.ranking.stopwords import BRIDGE_EDGE_EN, CORE_EN, QUERY_EN


def test_query_terms_skip_fillers_but_keep_the_words_a_headline_may_hinge_on():
    terms = tokenize("um so the new iPhone is out")
    assert "um" not in terms and "the" not in terms
    assert "new" in terms and "iphone" in terms


def test_every_reader_skips_the_core_words():
    assert CORE_EN <= QUERY_EN and CORE_EN <= BRIDGE_EDGE_EN
    assert "new" in BRIDGE_EDGE_EN and "new" not in QUERY_EN  # a bridged "new" would match half the lists
    assert "um" in QUERY_EN and "um" not in BRIDGE_EDGE_EN
