"""The topic and document readers on the forms real files take, and on broken ones."""

import re

import pytest

from evaluation.measures.trec_files import TrecFormatError
from campaigns.collection_files import iter_documents, read_topics


def fields(content: bytes):
    return [(t.identifier, t.title, t.description, t.narrative, t.line) for t in read_topics(content, name="t.txt")]


def test_microblog_topics_with_closing_tags_and_extra_elements_read_their_four_fields():
    # The form of the TREC 2011-2012 Microblog topic files.
    content = b"""<top>
<num> Number: MB001 </num>
<title> BBC World Service staff cuts </title>
<querytime> Tue Feb 08 12:30:27 +0000 2011 </querytime>
<querytweettime> 34952194402811904 </querytweettime>
</top>

<top>
<num> Number: MB002 </num>
<title> 2022 FIFA soccer </title>
<querytime> Tue Feb 08 18:51:44 +0000 2011 </querytime>
</top>
"""
    assert fields(content) == [("MB001", "BBC World Service staff cuts", "", "", 1),
                               ("MB002", "2022 FIFA soccer", "", "", 8)]


def test_clef_topics_with_language_prefixes_attributes_and_a_topics_root_read_their_four_fields():
    content = b"""<?xml version="1.0" encoding="UTF-8"?>
<!-- CLEF ad hoc -->
<topics>
<top lang="en">
<num>10.2452/41-AH</num>
<EN-title>Pesticides in Baby Food</EN-title>
<EN-desc>Find reports on pesticides in baby food.</EN-desc>
<EN-narr>Relevant documents give information on the discovery of pesticides in baby food.</EN-narr>
</top>
</topics>
"""
    assert fields(content) == [("10.2452/41-AH", "Pesticides in Baby Food", "Find reports on pesticides in baby food.",
                                "Relevant documents give information on the discovery of pesticides in baby food.", 4)]


def test_markup_within_a_line_of_an_ad_hoc_topic_stays_text():
    content = (b"<top>\n<num> Number: 7\n<title> heart attack <risk>\n\n<desc> Description:\n<risk> scores\n"
               b"<narr> Narrative:\n<i>E. coli</i> outbreaks count.\n</top>\n")
    assert fields(content) == [("7", "heart attack <risk>", "<risk> scores", "<i>E. coli</i> outbreaks count.", 1)]


def test_a_closed_element_inside_a_field_stays_in_the_field():
    content = b"<top><num>1</num><title> a <b>bold</b> move </title></top>"
    assert fields(content) == [("1", "a <b>bold</b> move", "", "", 1)]


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"<topics>\n<top>\n<num>1\n</top>\n\nstray words\n</topics>\n", "line 6: text outside <top>"),
        (b"junk\n<top>\n<num>1\n</top>\n", "line 1: text outside <top>"),
        (b"<top>\n<num> </num>\n<title> no number </title>\n</top>\n", "line 1: a topic has an empty identifier"),
        (b"<top>\n<num>1\n<top>\n<num>2\n</top>\n", "line 1: <top> is not closed by </top>"),
    ],
)
def test_broken_sgml_topic_files_name_the_line_and_the_problem(content, problem):
    with pytest.raises(TrecFormatError, match=problem):
        read_topics(content, name="t.txt")


@pytest.mark.parametrize(
    "read",
    [lambda content: read_topics(content, name="t.jsonl"), lambda content: list(iter_documents(content, name="t.jsonl"))],
)
def test_json_nested_too_deeply_is_a_format_error_on_its_line_not_a_crash(read):
    deep = b"[" * 100_000 + b"]" * 100_000
    content = b'{"id": "1", "docno": "a", "text": "x"}\n{"id": ' + deep + b"}\n"
    with pytest.raises(TrecFormatError, match=r"t\.jsonl, line 2: JSON nested too deeply"):
        read(content)


def test_precision_medicine_topics_make_their_title_and_description_from_their_own_fields():
    # The form of the TREC 2017 Precision Medicine topics.xml.
    content = b"""<topics task="2017 TREC Precision Medicine">
<topic number="1">
    <disease>Liposarcoma</disease>
    <gene>CDK4 Amplification</gene>
    <demographic>38-year-old male</demographic>
    <other>GERD</other>
</topic>
</topics>
"""
    assert fields(content) == [("1", "Liposarcoma, CDK4 Amplification, 38-year-old male, GERD",
                                "disease: Liposarcoma; gene: CDK4 Amplification; demographic: 38-year-old male; other: GERD",
                                "", 2)]


def test_xml_topics_decode_entities_and_leave_out_elements_with_attributes():
    # The form of the TREC 2009-2014 Web track topics.
    content = b"""<webtrack2009>
<topic number="1" type="faceted">
  <query>obama family tree</query>
  <description>Find information on President Barack Obama&apos;s family
  history, including genealogy &amp; national origins.
  </description>
  <subtopic number="1" type="nav">
    Find the TIME magazine photo essay "Barack Obama's Family Tree".
  </subtopic>
</topic>
</webtrack2009>
"""
    assert fields(content) == [("1", "obama family tree",
                                "Find information on President Barack Obama's family history, including genealogy & national origins.",
                                "", 2)]


def test_a_cds_2016_note_joins_the_description_and_a_topic_with_a_description_keeps_no_title():
    content = b'<topics><topic number="1" type="diagnosis"><note>78 M w/ pmh of CABG</note>' \
              b"<description>A 78 year old man.</description><summary>Chest pain.</summary></topic></topics>"
    assert fields(content) == [("1", "", "A 78 year old man.; note: 78 M w/ pmh of CABG", "Chest pain.", 1)]


def documents(content: bytes):
    return [(d.docno, d.title, d.body, d.is_html, d.line) for d in iter_documents(content, name="d.txt")]


def test_aquaint2_documents_take_their_number_from_the_doc_id_attribute():
    content = b"""<DOC id="AFP_ENG_20050101.0001" type="story" >
<HEADLINE>
Tsunami toll rises
</HEADLINE>
<TEXT><P>Aid arrives.</P></TEXT>
</DOC>
<DOC id="AFP_ENG_20050101.0002" type="story">
<DOCNO> AFP-2 </DOCNO>
<TEXT>The element wins over the attribute.</TEXT>
</DOC>
"""
    assert documents(content) == [
        ("AFP_ENG_20050101.0001", "Tsunami toll rises", "<HEADLINE>\nTsunami toll rises\n</HEADLINE>\n<TEXT><P>Aid arrives.</P></TEXT>", True, 1),
        ("AFP-2", "", "<TEXT>The element wins over the attribute.</TEXT>", True, 7),
    ]


def test_pyserini_and_ir_datasets_jsonl_documents_read_as_they_are():
    content = b'{"id": "d1", "contents": "Solar panels."}\n{"doc_id": "d2", "title": "T", "text": "Glass."}\n' \
              b'{"docid": 3, "html": "<p>x</p>"}\n'
    assert documents(content) == [("d1", "", "Solar panels.", False, 1), ("d2", "T", "Glass.", False, 2),
                                  ("3", "", "<p>x</p>", True, 3)]


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"0\tThe presence of communication amid scientific minds.\n1\tManhattan Project.\n",  # MS MARCO passages
         [("0", "", "The presence of communication amid scientific minds.", False, 1), ("1", "", "Manhattan Project.", False, 2)]),
        (b"D1\tA title\tThe text.\r\n\r\nD2\t\tNo title.\r\n",
         [("D1", "A title", "The text.", False, 1), ("D2", "", "No title.", False, 3)]),
        (b"D301595\thttp://example.org/a\tThe title\tThe body.\n",  # MS MARCO documents
         [("D301595", "The title", "http://example.org/a\n\nThe body.", False, 1)]),
    ],
)
def test_tab_separated_collections_read_by_their_number_of_columns(content, expected):
    assert documents(content) == expected


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"D1\tone\nD2\ttwo\textra\n", "line 2: expected 2 tab-separated columns like the first line, found 3"),
        (b"just words\n", "line 1: expected 2, 3 or 4 tab-separated columns"),
        (b"D 1\ttext\n", "line 1: document number 'D 1' is empty or contains white space"),
        (b'{"docno": "a", "text": "x", "contents": "y"}\n', 'line 1: a document needs exactly one of "html", "text", "contents", "body"; found 2'),
        (b'{"title": "no number", "text": "x"}\n', "line 1: \"docno\" None is missing"),
        (b'<DOC type="story">\n<TEXT>x</TEXT>\n</DOC>\n', "line 1: document without <DOCNO>"),
        (b'<DOC id="a">\n<DOC id="b">\n</DOC>\n', "line 1: <DOC> is not closed by </DOC>"),
    ],
)
def test_broken_collections_name_the_line_and_the_problem(content, problem):
    with pytest.raises(TrecFormatError, match=re.escape(problem)):
        documents(content)


def test_tsv_topics_give_a_description_and_a_narrative_in_a_third_and_fourth_column():
    assert fields(b"301\tsolar panels\tFind uses of solar panels.\n302\tpoliomyelitis\tPolio cases.\n") == [
        ("301", "solar panels", "Find uses of solar panels.", "", 1), ("302", "poliomyelitis", "Polio cases.", "", 2)]
    assert fields(b"\n7\tglass\tGlass making.\tAny furnace is relevant.\r\n") == [
        ("7", "glass", "Glass making.", "Any furnace is relevant.", 2)]
    for content, problem in [
        (b"1\tone\tOne.\n2\ttwo\n", "line 2: expected 3 tab-separated columns like the first line, found 2"),
        (b"1\ta\tb\tc\td\n", "line 1: expected 2, 3 or 4 tab-separated columns (id, title[, description[, "
                              "narrative]]), found 5"),
    ]:
        with pytest.raises(TrecFormatError, match=re.escape(problem)):
            fields(content)


def test_a_utf8_byte_order_mark_is_dropped_from_topic_and_collection_files(tmp_path):
    marked = b"\xef\xbb\xbf"
    assert fields(marked + b"301\tsolar panels\n") == [("301", "solar panels", "", "", 1)]
    assert fields(marked + b'{"id": "301", "title": "solar panels"}\n') == [("301", "solar panels", "", "", 1)]
    path = tmp_path / "docs.jsonl"
    path.write_bytes(marked + b'{"docno": "FT-1", "text": "Glass."}\n')  # read as a stream, from a path
    assert [(d.docno, d.body) for d in iter_documents(path)] == [("FT-1", "Glass.")]
    assert documents(marked + b"<DOC>\n<DOCNO> FT-2 </DOCNO>\n</DOC>\n") == [("FT-2", "", "", True, 1)]


LATIN1_DOC = "<DOC>\n<DOCNO> FBIS3-1 </DOCNO>\n<TEXT>Caf\u00e9 \u201cna\u00efve\u201d</TEXT>\n</DOC>\n".encode("cp1252")


def test_a_collection_line_that_is_not_utf8_is_refused_by_default_and_read_as_windows_1252_on_request(tmp_path):
    with pytest.raises(TrecFormatError, match=r"d\.txt, line 3: invalid UTF-8 \(byte 0xe9\)"):
        documents(LATIN1_DOC)
    path = tmp_path / "latin1.sgml"
    path.write_bytes(LATIN1_DOC + "<DOC>\n<DOCNO> FBIS3-2 </DOCNO>\nUTF-8 \u00e9\n</DOC>\n".encode())
    for source in (path, path.read_bytes()):
        recoded: list[int] = []
        got = [(d.docno, d.body) for d in iter_documents(source, name="d.txt", recoded=recoded)]
        assert got == [("FBIS3-1", "<TEXT>Caf\u00e9 \u201cna\u00efve\u201d</TEXT>"), ("FBIS3-2", "UTF-8 \u00e9")]
        assert recoded == [3]  # the UTF-8 line 7 is read as UTF-8


def test_sgml_documents_may_sit_on_one_line_each_or_end_on_a_line_of_text():
    content = (b"<DOC><DOCNO>d1</DOCNO><TEXT>first</TEXT></DOC>\n"
               b"<DOC><DOCNO>d2</DOCNO><TEXT>second</TEXT></DOC><DOC><DOCNO>d3</DOCNO></DOC>\n"
               b"<DOC>\n<DOCNO>d4</DOCNO>\n<TEXT>fourth</TEXT></DOC>\n")
    assert documents(content) == [("d1", "", "<TEXT>first</TEXT>", True, 1), ("d2", "", "<TEXT>second</TEXT>", True, 2),
                                  ("d3", "", "", True, 2), ("d4", "", "<TEXT>fourth</TEXT>", True, 3)]


def test_jsonl_topics_read_ir_datasets_keys_and_keep_their_texts_as_they_are():
    content = b'{"query_id": "q1", "text": "solar panels"}\n{"id": 7, "title": " spaced ", "description": null}\n' \
              b'{"topic_id": "200", "query": "q", "question": "d?", "narr": "n"}\n'
    assert fields(content) == [("q1", "solar panels", "", "", 1), ("7", " spaced ", "", "", 2), ("200", "q", "d?", "n", 3)]


def test_a_topic_line_over_its_limit_is_refused_with_file_and_line():
    from campaigns.collection_files import TOPIC_LINE_MAX_BYTES

    data = b'{"id": "1", "title": "t"}\n{"id": "2", "title": "' + b"t" * TOPIC_LINE_MAX_BYTES + b'"}\n'
    with pytest.raises(TrecFormatError, match=r"^long\.jsonl, line 2: the line is longer than the limit of 1,048,576 bytes$"):
        read_topics(data, name="long.jsonl")


def test_a_topic_file_over_its_limit_is_refused_while_it_is_decompressed():
    import gzip

    from campaigns.collection_files import TOPICS_MAX_BYTES

    data = gzip.compress(b"".join(b"%d\ttitle\n" % i for i in range(TOPICS_MAX_BYTES // 8)))
    with pytest.raises(TrecFormatError, match="larger than the limit of 33,554,432 bytes uncompressed"):
        read_topics(data, name="many.tsv.gz")


@pytest.mark.parametrize("data, line", [
    (b"d1\tshort\nd2\t" + b"x" * (16 * 2**20 + 1) + b"\n", 2),
    (b'{"docno": "d1", "text": "' + b"x" * (16 * 2**20) + b'"}\n', 1),
])
def test_a_collection_line_over_its_limit_is_refused_with_file_and_line(data, line):
    with pytest.raises(TrecFormatError, match=rf"^docs, line {line}: the line is longer than the limit of 16,777,216 bytes$"):
        list(iter_documents(data, name="docs"))


def test_a_trec_document_over_its_limit_is_refused_at_its_first_line():
    data = b"<DOC>\n<DOCNO>d1</DOCNO>\n</DOC>\n<DOC>\n<DOCNO>d2</DOCNO>\n" + (b"y" * 99 + b"\n") * (16 * 2**20 // 100 + 1) + b"</DOC>\n"
    with pytest.raises(TrecFormatError, match=r"^docs, line 4: the document is longer than the limit of 16,777,216 characters$"):
        list(iter_documents(data, name="docs"))


def test_a_topic_file_with_too_many_lines_or_topics_is_refused_before_it_is_stored():
    from campaigns.collection_files import TOPIC_LINES_MAX, TOPICS_MAX

    with pytest.raises(TrecFormatError, match=rf"^many, line {TOPICS_MAX + 1}: a topic file may hold at most 50,000 topics$"):
        read_topics(b"".join(b"%d\tt\n" % i for i in range(TOPICS_MAX + 1)), name="many")
    with pytest.raises(TrecFormatError, match=rf"^lines, line {TOPIC_LINES_MAX + 1}: .* at most 250,000 lines$"):
        read_topics(b"1\tt\n" + b"\n" * TOPIC_LINES_MAX, name="lines")
