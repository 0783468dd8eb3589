"""campaigns/document_bodies.py: TREC SGML, HTML and plain-text bodies readable and inert."""

from __future__ import annotations

import io

import pytest

from campaigns.document_bodies import is_unreadable, plain_text, readable_html
from campaigns.imports import import_documents
from campaigns.models import Document
from evaluation.measures.trec_files import TrecFormatError
from tests.judging.test_assess_documents import PAYLOADS, assert_inert

#: One document of each TREC newswire and government collection, with the fields each uses
#: inside <DOC> (AP, WSJ, FT, LA Times, FBIS, Federal Register, Ziff, AQUAINT, a web page).
TREC_BODIES = {
    "AP": "<FILEID>AP-NR-01-01-88</FILEID><FIRST>r a PM-Fire</FIRST><SECOND>PM-Fire,0180</SECOND>"
          "<HEAD>Warehouse fire</HEAD><BYLINE>By JOHN DOE</BYLINE><DATELINE>DALLAS (AP)</DATELINE>"
          "<TEXT>\n   A warehouse burned.\n\n   Nobody was hurt.\n</TEXT><NOTE>end</NOTE><UNK>x</UNK>",
    "WSJ": "<DOCID>870320-0062.</DOCID><HL>Steel Output Rises</HL><DD>03/20/87</DD><SO>WALL STREET JOURNAL (J)</SO>"
           "<IN>STEEL</IN><CO>X</CO><G>US</G><DATELINE>PITTSBURGH</DATELINE><LP>Steel output rose.</LP>"
           "<TEXT>Mills ran at capacity.</TEXT>",
    "FT": "<PROFILE>_AN-BDJA</PROFILE><DATE>910409</DATE><HEADLINE>FT 09 APR 91 / Ferries</HEADLINE>"
          "<BYLINE>By A Writer</BYLINE><TEXT>Ferry traffic grew.</TEXT><PUB>The Financial Times</PUB><PAGE>5</PAGE>",
    "LA Times": "<DOCID>1</DOCID><DATE><P>January 1, 1989</P></DATE><SECTION><P>Metro</P></SECTION>"
                "<LENGTH><P>90 words</P></LENGTH><HEADLINE><P>Rain expected</P></HEADLINE><BYLINE><P>By X</P></BYLINE>"
                "<TEXT><P>Rain is expected.</P></TEXT><GRAPHIC><P>Photo</P></GRAPHIC><TYPE><P>Brief</P></TYPE>"
                "<CORRECTION><P>none</P></CORRECTION><SUBJECT><P>WEATHER</P></SUBJECT>",
    "FBIS": "<HT>  \"cr00000011094001\" </HT><HEADER><H2>March</H2><DATE1>7 March 1994</DATE1><H3><TI>Talks resume</TI></H3>"
            "<F P=101>Moscow</F></HEADER><TEXT>Language: <F P=105>Russian</F> [Text] Talks resumed.</TEXT>",
    "FR": "<PARENT>FR940104-0-00001</PARENT><TEXT><!-- PJG FTAG 4700 --><USDEPT>DEPARTMENT OF AGRICULTURE</USDEPT>"
          "<AGENCY>Forest Service</AGENCY><ACTION>Notice.</ACTION><SUMMARY>Rules for logging.</SUMMARY>"
          "<SUPPLEM>Details follow.</SUPPLEM><SIGNER>J. Smith</SIGNER><SIGNJOB>Chief</SIGNJOB>"
          "<FRFILING>FR Doc. 94-1</FRFILING><BILLING>3410-11-M</BILLING><CFRNO>7 CFR</CFRNO><RINDOCK>0581</RINDOCK>"
          "<FOOTNOTE>1 note</FOOTNOTE><ADDRESS>Washington</ADDRESS><FURTHER>Call us.</FURTHER><IMPORT>x</IMPORT></TEXT>",
    "Ziff": "<DOCID>ZF1</DOCID><JOURNAL>PC Week</JOURNAL><TITLE>Disk drives</TITLE><AUTHOR>Smith</AUTHOR>"
            "<SUMMARY>Drives are faster.</SUMMARY><DESCRIPT>Hardware</DESCRIPT><TEXT>Drive speeds doubled.</TEXT>",
    "AQUAINT": "<DATE_TIME>2005-01-01</DATE_TIME><HEADER>x</HEADER><BODY><SLUG>floods</SLUG><HEADLINE>Floods</HEADLINE>"
               "<TEXT><P>Rivers rose.</P><P>Towns were flooded.</P></TEXT></BODY><TRAILER>end</TRAILER><KEYWORD>k</KEYWORD>",
    "web (WT10g, GOV2)": "<DOCHDR>http://example.gov/ HTTP/1.1 200 OK\nServer: Apache</DOCHDR>"
                         "<html><head><title>Parks</title><script>alert(1)</script></head><body><p>Parks open.</p></body></html>",
}
#: A word of every field's text that a reader must see, per collection.
VISIBLE = {
    "AP": ["Warehouse fire", "JOHN DOE", "DALLAS", "A warehouse burned.", "Nobody was hurt.", "end", "PM-Fire"],
    "WSJ": ["Steel Output Rises", "03/20/87", "WALL STREET", "STEEL", "US", "PITTSBURGH", "Steel output rose.", "Mills ran"],
    "FT": ["910409", "Ferries", "A Writer", "Ferry traffic grew.", "Financial Times"],
    "LA Times": ["January 1, 1989", "Metro", "Rain expected", "Rain is expected.", "Photo", "WEATHER"],
    "FBIS": ["7 March 1994", "Talks resume", "Moscow", "Russian", "Talks resumed."],
    "FR": ["DEPARTMENT OF AGRICULTURE", "Forest Service", "Rules for logging.", "Details follow.", "J. Smith", "Call us."],
    "Ziff": ["PC Week", "Disk drives", "Smith", "Drives are faster.", "Drive speeds doubled."],
    "AQUAINT": ["2005-01-01", "floods", "Floods", "Rivers rose.", "Towns were flooded."],
    "web (WT10g, GOV2)": ["Parks open."],
}


def test_the_sgml_text_of_a_trec_document_is_shown():
    assert readable_html("<TEXT>hello</TEXT>", is_html=True) == "<div>hello</div>"


@pytest.mark.parametrize("collection", TREC_BODIES)
def test_every_field_of_each_trec_collection_keeps_its_text(collection):
    html = readable_html(TREC_BODIES[collection], is_html=True)
    assert_inert(html)
    text = " ".join(plain_text(TREC_BODIES[collection], is_html=True).split())
    for words in VISIBLE[collection]:
        assert words in text, (words, html)


def test_headlines_become_headings_and_plain_text_blocks_paragraphs():
    html = readable_html(TREC_BODIES["AP"], is_html=True)
    assert "<h2>Warehouse fire</h2>" in html
    assert "<div><p>A warehouse burned.</p><p>Nobody was hurt.</p></div>" in html


def test_a_web_page_loses_its_http_header_and_script():
    text = plain_text(TREC_BODIES["web (WT10g, GOV2)"], is_html=True)
    assert "HTTP/1.1" not in text and "Apache" not in text and "alert" not in text


@pytest.mark.parametrize("name", PAYLOADS)
def test_hostile_html_inside_trec_fields_stays_inert(name):
    assert_inert(readable_html(f"<HEADLINE>x</HEADLINE><TEXT>{PAYLOADS[name]}</TEXT><IN>{PAYLOADS[name]}</IN>", is_html=True))


def test_hostile_attributes_on_trec_tags_are_dropped():
    html = readable_html('<TEXT onmouseover="alert(1)" style="position:fixed">x</TEXT><HL id="assess-panel">y</HL>',
                         is_html=True)
    assert html == "<div>x</div><h2>y</h2>"


def test_a_body_of_script_or_markup_only_is_unreadable_and_text_is_not():
    assert is_unreadable("<script>alert(1)</script><TEXT> </TEXT>", is_html=True)
    assert is_unreadable("", is_html=False)
    assert not is_unreadable("<TEXT>hello</TEXT>", is_html=True) and not is_unreadable("hello", is_html=False)


def sgml(*bodies: str) -> io.BytesIO:
    return io.BytesIO("".join(f"<DOC>\n<DOCNO> D{i:03} </DOCNO>\n{b}\n</DOC>\n" for i, b in enumerate(bodies)).encode())


@pytest.mark.django_db
def test_an_import_warns_with_the_count_of_documents_that_show_no_text(campaign):
    report = import_documents(campaign, sgml("<TEXT>one</TEXT>", "<TEXT>two</TEXT>", "<script>x</script>"), name="c.sgml")
    assert report.created == 3
    assert report.warnings == ["c.sgml: 1 of 3 document(s) have no readable text (the first on line 9): "
                               "their body is empty or only markup or script"]


@pytest.mark.django_db
def test_an_import_most_of_whose_documents_show_no_text_is_refused_and_stores_nothing(campaign):
    with pytest.raises(TrecFormatError) as refused:
        import_documents(campaign, sgml("<TEXT>one</TEXT>", "<script>x</script>", "<style>y</style>"), name="c.sgml")
    assert str(refused.value) == ("c.sgml, line 5: 2 of 3 document(s) have no readable text (the first on line 5): "
                                  "their body is empty or only markup or script; nothing was imported")
    assert not Document.objects.filter(campaign=campaign).exists()
