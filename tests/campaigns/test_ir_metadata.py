"""ir_metadata (campaigns/ir_metadata.py): the run header as repro_eval writes it, an ir-metadata.yml
as tirex-tracker writes it, and the run readers reading past the header."""

from __future__ import annotations

import gzip

import pytest

from campaigns import ir_metadata
from evaluation.measures.trec_files import TrecFormatError, read_run

RUN = b"101 Q0 d1 1 2.5 bm25\n101 Q0 d2 2 1.5 bm25\n"


def test_a_header_as_repro_eval_writes_it_is_read_every_value_a_string():
    # repro_eval writes '# ' + line + ' ' (a space at the end), and 4096-wide lines.
    header = (b"# ir_metadata.start\n# tag: bm25 \n# platform: \n#   hardware: \n#     ram: '64 GB' \n"
              b"#     cores: 16 \n# method: \n#   automatic: true \n#   version: 1.10 \n# ir_metadata.end\n")
    assert ir_metadata.header_metadata("run", header + RUN) == {
        "tag": "bm25", "platform": {"hardware": {"ram": "64 GB", "cores": "16"}},
        "method": {"automatic": "true", "version": "1.10"},
    }


def test_a_run_without_a_header_or_with_it_below_the_first_run_line_has_none():
    assert ir_metadata.header_metadata("run", RUN) is None
    assert ir_metadata.header_metadata("run", b"# a comment\n\n" + RUN) is None
    assert ir_metadata.header_metadata("run", RUN + b"# ir_metadata.start\n# tag: x\n# ir_metadata.end\n") is None


def test_crlf_line_ends_and_other_comments_before_the_header_are_allowed():
    data = b"# made by hand\r\n# ir_metadata.start\r\n# tag: x\r\n# ir_metadata.end\r\n" + RUN.replace(b"\n", b"\r\n")
    assert ir_metadata.header_metadata("run", data) == {"tag": "x"}


def test_the_run_reader_reads_a_run_with_a_header_as_the_run_without_it():
    header = b"# ir_metadata.start\n# tag: bm25\n# actor:\n#   team: Aurora\n# ir_metadata.end\n"
    with_header, without = read_run(header + RUN, name="run"), read_run(RUN, name="run")
    assert with_header.tag == without.tag == "bm25"
    assert list(with_header.docno) == list(without.docno) == ["d1", "d2"]
    assert list(with_header.score) == list(without.score)


def test_an_ir_metadata_file_is_read_with_or_without_its_marker_lines():
    plain = b"tag: bm25\nactor:\n  team: Aurora\n"
    expected = {"tag": "bm25", "actor": {"team": "Aurora"}}
    assert ir_metadata.file_metadata(plain, "ir-metadata.yml") == expected
    assert ir_metadata.file_metadata(b"ir_metadata.start\n" + plain + b"ir_metadata.end\n", "m.yml") == expected
    assert ir_metadata.file_metadata(gzip.compress(plain), "m.yml.gz") == expected


@pytest.mark.parametrize("text, line, problem", [
    (b"tag: bm25\nactor: [a\n", 2, "not valid YAML"),
    (b"base: &b {x: 1}\nother: *b\n", 1, "anchors and aliases"),
    (b"- a\n- b\n", 1, "expected a mapping"),
    (b"\xff\xfe", 1, "invalid UTF-8"),
])
def test_an_ir_metadata_file_that_cannot_be_read_is_refused_naming_the_line(text, line, problem):
    with pytest.raises(TrecFormatError) as caught:
        ir_metadata.file_metadata(text, "m.yml")
    assert caught.value.path == "m.yml" and caught.value.line == line and problem in caught.value.problem


def test_a_header_over_the_size_limit_is_refused():
    lines = b"".join(b"# k%d: %s\n" % (i, b"x" * 100) for i in range(ir_metadata.MAX_BYTES // 100 + 1))
    with pytest.raises(TrecFormatError, match="longer than 65,536 bytes"):
        ir_metadata.header_metadata("run", b"# ir_metadata.start\n" + lines + b"# ir_metadata.end\n" + RUN)
    with pytest.raises(TrecFormatError, match="larger than the limit of 65,536 bytes"):
        ir_metadata.file_metadata(lines.replace(b"# ", b""), "m.yml")
