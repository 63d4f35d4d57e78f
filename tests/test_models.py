from agent.models import detect_lang, zh_or_en


def test_detect_lang_reads_the_one_han_range_with_compatibility_ideographs():
    assert detect_lang("\uf900\uf901") == "zh"  # U+F900–FAFF: CJK compatibility ideographs
    assert detect_lang("刘涛") == "zh"
    assert detect_lang("すごい") == "ja"
    assert detect_lang("hello") == "en"
    assert detect_lang("123 !") == "other"


def test_ranking_and_captions_read_one_language_rule():
    assert [zh_or_en(t) for t in ("春晚", "ラーメン", "Spring Gala", "")] == ["zh", "zh", "en", "en"]
