"""The shared TREC readers: what they return, and the message each bad file gets."""

import gzip
import io
from pathlib import Path

import numpy as np
import pytest

from evaluation.measures.ranking import ranked_order
from evaluation.measures.trec_files import TrecFormatError, read_qrels, read_run, write_qrels, write_run

DATA = Path(__file__).resolve().parents[1] / "data" / "reference" / "trec_cds_2015"


def test_a_real_run_reads_every_line_in_file_order():
    run = read_run(DATA / "runs" / "TUW1")
    assert run.tag == "TUWien"
    assert len(run) == 30000
    assert (run.topic[0], run.docno[0], run.score[0]) == ("1", "1065094", 22.459467974864875)
    assert run.line[:3].tolist() == [1, 2, 3]


def test_sampled_qrels_keep_strata_and_unjudged_rows():
    qrels = read_qrels(DATA / "qrels-sampleval-2015.txt")
    assert qrels.sampled and len(qrels) == 95487  # SOURCES.md: 95,487 rows
    assert int((qrels.stratum == "1").sum()) == 23291
    assert int((qrels.rel == -1).sum()) == 57680
    assert set(np.unique(qrels.rel).tolist()) == {-1, 0, 1, 2}


def test_four_column_qrels_have_no_strata():
    qrels = read_qrels(b"1 0 a 1\n1 0 b 0\n2 0 a -1\n", name="q.txt")
    assert not qrels.sampled
    assert qrels.rel.tolist() == [1, 0, -1]


def test_comments_and_blank_lines_are_skipped_but_counted_in_line_numbers():
    with pytest.raises(TrecFormatError) as error:
        read_run(b"# produced by bm25\n\n1 Q0 d1 1 2.5 r\n1 Q0 d2 2 x r\n", name="r.txt")
    assert str(error.value) == "r.txt, line 4: score 'x' is not a number"
    run = read_run(b"# produced by bm25\n\n1 Q0 d1 1 2.5 r\n", name="r.txt")
    assert run.line.tolist() == [3]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "r.txt: the file is empty"),
        (b" \n\n", "r.txt: the file is empty"),
        (b"1 Q0 d1 1 2 r\n1 Q0 d2 2 r\n", "r.txt, line 2: expected 6 columns (topic Q0 docno rank score tag) in a run file, found 5"),
        (b"1 Q0 d1 1 2 r x\n", "r.txt, line 1: expected 6 columns (topic Q0 docno rank score tag) in a run file, found 7"),
        (b"1 Q0 d1 1 2 r\n1 Q0 d2 2 high r\n", "r.txt, line 2: score 'high' is not a number"),
        (b"1 Q0 d1 1 inf r\n", "r.txt, line 1: score 'inf' is not a finite number"),
        (b"1 Q0 d1 1 2 r\n1 Q0 d2 2 1_000 r\n", "r.txt, line 2: score '1_000' is not written as a plain decimal "
                                                 "(ASCII digits, sign, point and exponent; no '_')"),
        ("1 Q0 d1 1 \u0661 r\n".encode(), "r.txt, line 1: score '\u0661' is not written as a plain decimal "
                                            "(ASCII digits, sign, point and exponent; no '_')"),  # Arabic-Indic one
        (b"1 Q0 d1 1 0x1p3 r\n", "r.txt, line 1: score '0x1p3' is not a number"),
        (b"1 Q0 d1 1 2 r\n1 Q0 " + b"d" * 201 + b" 2 1 r\n", "r.txt, line 2: document number is 201 characters long; at most 200 are allowed"),
        ("1 Q0 ".encode() + "é".encode() * 200 + b" 1 2 r\n1 Q0 " + "é".encode() * 201 + b" 2 1 r\n",
         "r.txt, line 2: document number is 201 characters long; at most 200 are allowed"),  # characters, not bytes
        (b"1" * 65 + b" Q0 d1 1 2 r\n", "r.txt, line 1: topic is 65 characters long; at most 64 are allowed"),
        (b"1 Q0 d1 1 2 " + b"r" * 101 + b"\n", "r.txt, line 1: run tag is 101 characters long; at most 100 are allowed"),
        (b"1 Q0 d1 1 2 r\n2 Q0 d1 1 2 r\n1 Q0 d1 2 1 r\n", "r.txt, line 3: document 'd1' appears twice for topic '1' (first on line 1)"),
        (b"1 Q0 d1 1 2 r\n1 Q0 d2 2 1 s\n", "r.txt, line 2: run tag 's' differs from 'r' on line 1; one run per file"),
        (b"1 Q0 d1 1 2 r\n1 Q0 d\xe9 2 1 r\n", "r.txt, line 2: invalid UTF-8 (byte 0xe9)"),
        (b"1 Q0 d1 1 2 r\n\x89PNG\x00\x00", "r.txt, line 2: binary data (a NUL byte); expected a text file"),
    ],
)
def test_a_bad_run_file_is_refused_with_its_line_and_problem(content, message):
    with pytest.raises(TrecFormatError) as error:
        read_run(content, name="r.txt")
    assert str(error.value) == message


@pytest.mark.parametrize(
    "content, message",
    [
        (b"1 0 d1 1\n1 0 d2 yes\n", "q.txt, line 2: relevance 'yes' is not an integer"),
        (b"1 0 d1 1\n1 0 d2 1.5\n", "q.txt, line 2: relevance '1.5' is not an integer"),
        (b"1 0 d1 1\n1 0 d2 1_0\n", "q.txt, line 2: relevance '1_0' is not written as a plain integer (ASCII digits, sign; no '_')"),
        (b"1 0 d1 4294967297\n", "q.txt, line 1: relevance 4294967297 is out of the range -2,147,483,648 to 2,147,483,647"),
        (b"1 0 d1 1\n1 0 d2 2147483648\n", "q.txt, line 2: relevance 2147483648 is out of the range -2,147,483,648 to 2,147,483,647"),
        (b"1 0 d1 1\n1 0 d2 99999999999999999999\n",
         "q.txt, line 2: relevance 99999999999999999999 is out of the range -2,147,483,648 to 2,147,483,647"),
        (b"1 0 d1 " + b"0" * 65 + b"\n", "q.txt, line 1: relevance is 65 characters long; at most 64 are allowed"),
        (b"1 0 d1 " + b"s" * 65 + b" 1\n", "q.txt, line 1: stratum is 65 characters long; at most 64 are allowed"),
        (b"1 0 d1 1\n1 0 d2 2 1\n", "q.txt, line 2: expected 4 columns (topic iter docno rel) in a qrels file, found 5"),
        (b"1 0 d1\n", "q.txt, line 1: expected 4 columns (topic iter docno rel) or 5 columns (topic iter docno stratum rel) in a qrels file, found 3"),
        (b"1 0 d1 1\n2 0 d1 1\n1 0 d1 0\n", "q.txt, line 3: topic '1' judges document 'd1' twice (first on line 1)"),
    ],
)
def test_a_bad_qrels_file_is_refused_with_its_line_and_problem(content, message):
    with pytest.raises(TrecFormatError) as error:
        read_qrels(content, name="q.txt")
    assert str(error.value) == message


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.run"
    path.write_bytes(b"1 Q0 d1 1 2 r\n" * 100)
    with pytest.raises(TrecFormatError) as error:
        read_run(path, max_bytes=1000)
    assert str(error.value) == f"{path}: the file is larger than the limit of 1,000 bytes"


def test_ties_are_broken_by_docno_descending_and_the_rank_column_is_ignored():
    # MEASURES.md §2: docs a, b, c with equal scores are ranked c, b, a.
    run = read_run(b"1 Q0 a 1 5 r\n1 Q0 b 2 5 r\n1 Q0 c 3 5 r\n1 Q0 z 9 6 r\n", name="r")
    assert run.docno[ranked_order(run.docno, run.score)].tolist() == ["z", "c", "b", "a"]


def test_ranking_many_topics_at_once_groups_by_topic():
    topic = np.array(["2", "1", "2", "1"])
    docno = np.array(["a", "b", "c", "d"])
    score = np.array([1.0, 1.0, 3.0, 2.0])
    order = ranked_order(docno, score, topic=topic)
    assert list(zip(topic[order], docno[order])) == [("1", "d"), ("1", "b"), ("2", "c"), ("2", "a")]


def test_written_files_read_back_to_the_same_rows():
    out = io.StringIO()
    write_qrels(out, ["1", "1"], ["a", "b"], [2, -1], stratum=["s1", "s2"])
    qrels = read_qrels(out.getvalue().encode(), name="q")
    assert qrels.stratum.tolist() == ["s1", "s2"] and qrels.rel.tolist() == [2, -1]
    out = io.StringIO()
    write_run(out, "tag", ["1", "1", "2"], ["a", "b", "a"], [0.1 + 0.2, 1e-300, -3.0])
    run = read_run(out.getvalue().encode(), name="r")
    assert run.score.tolist() == [0.1 + 0.2, 1e-300, -3.0]
    assert out.getvalue().splitlines()[2] == "2 Q0 a 1 -3.0 tag"


def same_file(a, b) -> bool:
    """Two read files hold the same rows (every field, in file order)."""
    fields = [f for f in ("topic", "docno", "score", "rel", "stratum", "line") if hasattr(a, f)]
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields if getattr(a, f) is not None)


def test_gzip_compressed_runs_and_qrels_read_as_their_content(tmp_path):
    for name, reader in (("runs/TUW1", read_run), ("qrels-sampleval-2015.txt", read_qrels)):
        plain = (DATA / name).read_bytes()
        path = tmp_path / (Path(name).name + ".gz")
        path.write_bytes(gzip.compress(plain))
        expected = reader(DATA / name)
        assert same_file(reader(path), expected) and same_file(reader(gzip.compress(plain), name="x.gz"), expected)
        # A file of several gzip members (concatenated, as `cat a.gz b.gz` makes) reads as one.
        half = plain.index(b"\n", len(plain) // 2) + 1
        assert same_file(reader(gzip.compress(plain[:half]) + gzip.compress(plain[half:]), name="x.gz"), expected)


@pytest.mark.parametrize("damage, message", [
    (lambda data: data[: len(data) // 2], "x.gz: the gzip data ends early (was the file cut short?)"),
    (lambda data: data[:10] + bytes(b ^ 0xFF for b in data[10:40]) + data[40:], "x.gz: damaged gzip data"),
])
def test_damaged_gzip_data_is_refused_by_name(damage, message):
    data = gzip.compress(b"1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n" * 50)
    with pytest.raises(TrecFormatError) as error:
        read_run(damage(data), name="x.gz")
    assert str(error.value).startswith(message)


def test_the_size_limit_holds_for_the_content_of_a_gzip_file(tmp_path):
    data = gzip.compress(b"1 Q0 d1 1 2 r\n" * 1000)  # 14,000 bytes of content in about 100
    assert len(data) < 1000
    with pytest.raises(TrecFormatError) as error:
        read_run(data, name="x.gz", max_bytes=1000)
    assert str(error.value) == "x.gz: the file is larger than the limit of 1,000 bytes uncompressed"


def test_a_utf8_byte_order_mark_is_dropped_before_the_first_topic(tmp_path):
    # Windows editors and spreadsheets start UTF-8 files with EF BB BF; kept, it would make the
    # first line's topic "\ufeff20", a topic of its own, and move its document out of topic 20.
    for name, reader in (("runs/TUW1", read_run), ("qrels-sampleval-2015.txt", read_qrels)):
        plain = (DATA / name).read_bytes()
        expected = reader(DATA / name)
        marked = b"\xef\xbb\xbf" + plain
        path = tmp_path / "marked"
        path.write_bytes(marked)
        for read in (lambda: reader(marked, name="x"), lambda: reader(path), lambda: reader(gzip.compress(marked), name="x.gz")):
            got = read()
            assert got.topic[0] == expected.topic[0] and same_file(got, expected)


GENERAL = (b"# a comment\n1 Q0 d\xc3\xa9 1 2.5 r\r\n\n1\tQ0  d2 2 1.5 r\n  2 Q0 d3 1 -0.5 r\n# another\n2 Q0 d4 2 -1 r")


@pytest.mark.parametrize("block", [1, 3, 7, 16, 64])
def test_the_general_reader_reads_the_same_whatever_block_it_splits_tokens_in(monkeypatch, block):
    """Tokens are found a block at a time, blocks ending at line ends (trec_columns._tokens)."""
    from evaluation.measures import trec_columns

    whole = read_run(GENERAL, name="r")
    monkeypatch.setattr(trec_columns, "TOKEN_BLOCK", block)
    parts = read_run(GENERAL, name="r")
    assert parts.topic.tolist() == whole.topic.tolist() == ["1", "1", "2", "2"]
    assert parts.docno.tolist() == whole.docno.tolist() == ["dé", "d2", "d3", "d4"]
    assert parts.score.tolist() == whole.score.tolist() == [2.5, 1.5, -0.5, -1.0]
    assert parts.line.tolist() == whole.line.tolist() == [2, 4, 5, 7]
    with pytest.raises(TrecFormatError, match="r, line 3: expected 6 columns"):
        read_run(GENERAL.replace(b"\n\n", b"\n1 Q0 d9 3\n"), name="r")


def test_imports_refuse_more_lines_than_the_limit_before_reading_them_also_inside_gzip():
    from evaluation.measures.trec_files import read_run_packed

    lines = b"1 Q0 d1 1 1 r\n1 Q0 d2 2 1 r\n1 Q0 d3 3 1 r\n"
    assert len(read_run_packed(lines, name="r", max_lines=3)) == 3
    for data in (lines + b"1 Q0 d4 4 1 r\n", gzip.compress(lines + b"1 Q0 d4 4 1 r\n")):
        with pytest.raises(TrecFormatError, match="r, line 4: the file has more than 3 lines, the most an import reads"):
            read_run_packed(data, name="r", max_lines=3)


def test_a_file_object_over_the_size_limit_is_refused_by_its_stored_size_before_it_is_read(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"1 Q0 d1 1 1 r\n" * 100)
    with open(path, "rb") as handle:
        with pytest.raises(TrecFormatError, match="larger than the limit of 1,000 bytes"):
            read_run(handle, name="big.txt", max_bytes=1000)
        assert handle.tell() == 0  # not a byte read


def test_the_evaluation_reads_a_relevance_with_more_after_its_integer_as_trec_eval_does():
    from evaluation.measures.trec_files import read_qrels_packed
    from evaluation.measures.packed_text import unpack_text

    # trec_eval's strtol: the integer the value starts with (its qrels.test.with-floats file)
    data = b"1 0 a 1.5\n1 0 b 0.3\n1 0 c 1e+8\n1 0 d 1.1.11\n1 0 e 0x37\n1 0 f -1.9\n1 0 g 2\n"
    q = read_qrels_packed(data, name="q.txt", like_trec_eval=True)
    assert dict(zip(unpack_text(q.docno).tolist(), q.rel.tolist())) == {"a": 1, "b": 0, "c": 1, "d": 1, "e": 0, "f": -1, "g": 2}
    for bad in (b".5", b"x1", b"+"):  # no integer to start with: trec_eval's silent 0 is refused
        with pytest.raises(TrecFormatError, match="is not an integer"):
            read_qrels_packed(b"1 0 a " + bad + b"\n", name="q.txt", like_trec_eval=True)


def test_the_evaluation_reads_latin1_document_numbers_as_bytes_and_imports_refuse_them():
    from evaluation.measures.trec_files import read_qrels_packed, read_run_packed
    from evaluation.measures.packed_text import unpack_text

    data = b"1 Q0 caf\xe9 1 2.0 t\n1 Q0 cafe 2 2.0 t\n"
    with pytest.raises(TrecFormatError, match="line 1: invalid UTF-8"):
        read_run(data, name="r.txt")  # the imports keep refusing what they could not store as text
    run = read_run_packed(data, name="r.txt", like_trec_eval=True)
    assert unpack_text(run.docno).tolist() == ["caf\udce9", "cafe"]  # surrogateescape: the bytes round-trip
    assert read_qrels_packed(b"1 0 caf\xe9 1\n", name="q.txt", like_trec_eval=True).rel.tolist() == [1]
    with pytest.raises(TrecFormatError, match="line 2: topic is not UTF-8 text \\(byte 0xe9\\)"):
        read_run_packed(b"1 Q0 a 1 2.0 t\n\xe9 Q0 b 1 2.0 t\n", name="r.txt", like_trec_eval=True)
    with pytest.raises(TrecFormatError, match="line 1: run tag is not UTF-8 text"):
        read_run_packed(b"1 Q0 a 1 2.0 t\xe9\n", name="r.txt", like_trec_eval=True)
