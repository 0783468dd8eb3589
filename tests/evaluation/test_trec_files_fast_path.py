"""The fast path of the TREC readers (the scanner, packed strings) against the general reader.

The fast path may only ever give what the general reader gives: the same values, bit for bit,
and for a bad file the same error. Files it does not take fall back to the general reader.
The scanner has two versions, the compiled library the install builds and its numpy version
(``numpy_scan``, used without the library): every test of the fast path runs on both (the
``scanner`` fixture), the numpy one by forcing it, whatever this host has.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluation.measures import evaluate, numpy_scan, trec_scan
from evaluation.measures import trec_files as tf
from evaluation.measures.trec_sources import read_source
from evaluation.measures.qrels_index import load_qrels
from evaluation.measures.ranked_runs import RankedRuns
from evaluation.measures.ranking import ranked_order
from evaluation.measures.trec_files import (
    TrecFormatError,
    read_qrels,
    read_run,
    read_run_packed,
)
from evaluation.measures.packed_text import pack_text, text_equal, text_greater, text_hash, text_rank, unpack_text

DATA = Path(__file__).resolve().parents[1] / "data" / "reference"
CDS = DATA / "trec_cds_2015"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["compiled", "numpy"])
def scanner(request, monkeypatch):
    """The scanner's module (``trec_scan`` with its library, or ``numpy_scan``), and the readers
    set to use it. Without the library the compiled cases are skipped: then
    test_the_compiled_scanner_is_installed_unless_asked_not_to_be fails, unless
    ASSESS_NO_C_SCANNER says there is none."""
    if request.param == "numpy":
        monkeypatch.setattr(trec_scan, "library", lambda: None)
        return numpy_scan
    if trec_scan.library() is None:
        pytest.skip(f"no compiled scanner: {trec_scan.problem()}")
    return trec_scan


def general_run(content: bytes):
    """What the general reader alone makes of a run: its RunFile or its error message."""
    try:
        return tf._read_run_general(*read_source(content, "r.txt", None)).unpacked()
    except TrecFormatError as error:
        return str(error)


def general_qrels(content: bytes, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(tf, "_scan_regular_qrels", lambda label, data: None)
        try:
            return read_qrels(content, name="q.txt")
        except TrecFormatError as error:
            return str(error)


def outcome(read, content: bytes, name: str = "r.txt"):
    try:
        return read(content, name=name)
    except TrecFormatError as error:
        return str(error)


def same_rows(a, b, fields) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if x is None or y is None:
            if x is not y:
                return False
        elif x.dtype != y.dtype or x.tobytes() != y.tobytes():  # bit for bit, scores included
            return False
    return True


@pytest.mark.parametrize("name", ["TUW1", "TUW4"])  # tab-separated and space-separated
def test_real_runs_take_the_fast_path_and_read_exactly_as_the_general_reader(name, scanner):
    content = (CDS / "runs" / name).read_bytes()
    assert tf._scan_regular_run("r.txt", content) is not None
    fast = read_run(content, name="r.txt")
    assert same_rows(fast, general_run(content), ["topic", "docno", "score", "line"])
    assert fast.tag == general_run(content).tag


def test_real_qrels_take_the_fast_path_and_read_exactly_as_the_general_reader(monkeypatch, scanner):
    for name in ["qrels-sampleval-2015.txt", "qrels-treceval-2015.txt"]:
        content = (CDS / name).read_bytes()
        assert tf._scan_regular_qrels("q.txt", content) is not None
        fast = read_qrels(content, name="q.txt")
        assert same_rows(fast, general_qrels(content, monkeypatch), ["topic", "docno", "rel", "stratum", "line"])


SCORES = ["2.5", "-1", "+1", "1.", ".5", "-.5", "1e5", "1E-5", "7", "0", "-0", "1e400", "1e-400", "inf", "-inf",
          "nan", "NaN", "1_0", "0x10", "x", "1.2.3", "4.9e-324", "9007199254740993", "0.1000000000000000055511151231257827"]
TOKENS = ["d1", "d2", "D-3", "é", "a#b", "Q0", "0", "1", "10", "2"]


def random_run(rng) -> bytes:
    """A small run, mostly regular, with one of the irregularities readers must agree on."""
    sep = rng.choice([" ", "\t"])
    eol = rng.choice(["\n", "\r\n"])
    lines = []
    for i in range(int(rng.integers(1, 6))):
        cols = [rng.choice(["1", "2", "10"]), "Q0", rng.choice(TOKENS), str(i + 1), rng.choice(SCORES[:10]), "run"]
        lines.append(cols)
    line = lines[int(rng.integers(len(lines)))]
    fault = int(rng.integers(16))
    if fault == 0:
        line[4] = rng.choice(SCORES)
    elif fault == 1:
        line[5] = "other"
    elif fault == 2:
        line.insert(int(rng.integers(7)), "")  # an empty field: two separators in a row
        if rng.random() < 0.5:
            line.pop(int(rng.integers(7)))  # ... on a line of 5 real columns
    elif fault == 3:
        line.pop(int(rng.integers(6)))
    elif fault == 4:
        line.append("extra")
    elif fault == 5:
        comment = [["#", "a", "comment"], ["#1", "Q0", "d9", "1", "2", "run"]][int(rng.integers(2))]
        lines.insert(int(rng.integers(len(lines) + 1)), comment)
    elif fault == 6:
        lines.insert(int(rng.integers(len(lines) + 1)), [])
    elif fault == 7:
        line[2] = line[2] + "\r" + "x"  # a lone carriage return
    elif fault == 8:
        line[0] = " " + line[0]
    elif fault == 9:
        line[int(rng.integers(6))] += rng.choice(["\x0b", "\x0c", "\t", " "])
    elif fault == 10:
        lines.append(list(line))  # a duplicate (or not, if the topic differs after other faults)
    text = eol.join(sep.join(cols) for cols in lines)
    if rng.random() < 0.8:
        text += eol
    return text.encode()


def test_runs_with_random_bytes_changed_read_the_same_or_fail_the_same_on_both_paths(scanner):
    # Near-regular files reach every branch of the compiled scanner, which must never read or
    # write outside its buffers, whatever the bytes.
    rng = np.random.default_rng(21)
    base = b"".join(b"%d Q0 D-%d %d %.4f tag\n" % (1 + i // 4, i, i % 4, 9 - i / 3) for i in range(12))
    alphabet = np.frombuffer(b" \t\n\r#0.e-+Q\x00\x0b\x7f\xc3\xa9", dtype=np.uint8)
    taken = 0
    for _ in range(3000):
        content = bytearray(base)
        for _ in range(int(rng.integers(1, 4))):
            at, kind = int(rng.integers(len(content) + 1)), int(rng.integers(3))
            if kind == 0 and at < len(content):
                content[at] = int(rng.choice(alphabet))
            elif kind == 1:
                content.insert(at, int(rng.choice(alphabet)))
            else:
                del content[at : at + int(rng.integers(1, 12))]
        content = bytes(content)
        assert same_rows(outcome(read_run, content), general_run(content), ["topic", "docno", "score", "line"]), content
        taken += tf._scan_regular_run("r.txt", content) is not None if content.isascii() else 0
    assert 100 < taken < 3000  # both paths were exercised


@pytest.mark.parametrize(
    "content",
    [
        b"1 Q0 d1 1 2 r\r1 Q0 d2 2 1 r\n",  # a lone CR: one line of 12 columns, not two lines
        b"1 Q0 d1 1 2 r\n1\tQ0 d2 2 1 r\n",  # a tab in a space-separated file
        b"1  d1 1 2 r\n",  # five columns and an empty field
        b"#1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n",  # a comment line of six columns
        b"1 Q0 d1 1 2 r\n\n1 Q0 d2 2 1 r\n",  # a blank line
        b"1 Q0 d1 1 0x10 r\n",
        b"1 Q0 d1 1 1_0 r\n",
        b"1 Q0 d1 1 2 r\x0c\n",
        b"1 Q0 d1 1 2 r\r\n1 Q0 d2 2 1 r\r\n",  # CRLF: regular
        b"1\tQ0\td1\t1\t2\tr",  # tabs, no final line end: regular
        b"1  Q0\td1 1  2\t\tr\n1 Q0 d2 2 1 r\n",  # runs of spaces and tabs between columns
        b"1   Q0   d1   1   2.5   r\n10  Q0   d2   1  -1     r\n",  # columns aligned with spaces
    ],
)
def test_irregular_runs_read_the_same_or_fail_the_same_on_both_paths(content, scanner):
    fast = outcome(read_run, content)
    assert same_rows(fast, general_run(content), ["topic", "docno", "score", "line"])


def test_random_runs_read_the_same_or_fail_the_same_on_both_paths(scanner):
    rng = np.random.default_rng(8)
    taken = 0
    for _ in range(600):
        content = random_run(rng)
        fast = outcome(read_run, content)
        assert same_rows(fast, general_run(content), ["topic", "docno", "score", "line"]), content
        if not isinstance(fast, str):
            assert fast.tag == general_run(content).tag
        taken += tf._scan_regular_run("r.txt", content) is not None
    assert 100 < taken < 600  # both paths were exercised


def test_random_qrels_read_the_same_or_fail_the_same_on_both_paths(monkeypatch, scanner):
    rng = np.random.default_rng(9)
    rels = ["0", "1", "2", "-1", "+1", "0x1", "1_0", "1.0", "01", "9223372036854775808", "x",
            "10", "99", "-0", "-", "-10", "100", "07", "1-", "--"]  # fmt: skip
    for _ in range(300):
        width = int(rng.integers(4, 6))
        rows = []
        for i in range(int(rng.integers(1, 5))):
            row = [rng.choice(["1", "2"]), "0", rng.choice(TOKENS)] + (["s1"] if width == 5 else []) + [rng.choice(rels[:4])]
            rows.append(row)
        if rng.random() < 0.5:
            rows[0][-1] = rng.choice(rels)
        if rng.random() < 0.2:
            rows[-1].insert(1, "")
        content = "\n".join(" ".join(r) for r in rows).encode() + b"\n"
        fast = outcome(read_qrels, content, "q.txt")
        assert same_rows(fast, general_qrels(content, monkeypatch), ["topic", "docno", "rel", "stratum", "line"]), content


def test_scores_parse_bit_for_bit_as_float_does(scanner):
    rng = np.random.default_rng(3)
    mantissa = rng.integers(0, 10**17, size=2000)
    exponent = rng.integers(-330, 310, size=2000)
    scores = [f"{m}e{e}" for m, e in zip(mantissa, exponent)] + [f"0.{m:017d}" for m in mantissa]
    scores = [s for s in scores if np.isfinite(float(s))]
    content = "".join(f"1 Q0 d{i} {i} {s} r\n" for i, s in enumerate(scores)).encode()
    run = read_run_packed(content, name="r.txt")
    assert tf._scan_regular_run("r.txt", content) is not None
    assert run.score.tobytes() == np.array([float(s) for s in scores]).tobytes()


def test_scores_at_the_edges_of_the_fast_decimal_parse_read_as_float_does(scanner):
    edges = ["9007199254740992", "9007199254740993", "9007199254740991e22", "9007199254740991e23",
             "1e22", "1e23", "1e-22", "1e-23", "1234567890123456789", "12345678901234567890",
             "0.1234567890123456789", "0.12345678901234567891", "-0", "-0.0", "+0", "0e999999",
             "0.000000000000000000000000000123", "123456789012345678901234567890e-30", "1" * 64,
             "2.2250738585072011e-308", "2.2250738585072012e-308", "1.7976931348623157e308", "5e-324"]  # fmt: skip
    content = "".join(f"1 Q0 d{i} {i} {s} r\n" for i, s in enumerate(edges)).encode()
    assert tf._scan_regular_run("r.txt", content) is not None
    run = read_run_packed(content, name="r.txt")
    assert run.score.tobytes() == np.array([float(s) for s in edges]).tobytes()
    longer = "0." + "1" * 63  # past NUMBER_LIMIT (64): refused on both paths, with its line
    assert tf.NUMBER_LIMIT == 64  # the scanner's NUMBER_LIMIT (trec_scan.c) is the same
    assert tf._scan_regular_run("r.txt", f"1 Q0 d1 1 {longer} r\n".encode()) is None
    with pytest.raises(TrecFormatError, match=r"r.txt, line 1: score is 65 characters long; at most 64 are allowed"):
        read_run_packed(f"1 Q0 d1 1 {longer} r\n".encode(), name="r.txt")


def test_plain_scores_and_longer_ones_beside_them_read_bit_for_bit_as_float_does(scanner):
    # up to 15 digits without an exponent the numpy scanner divides two exact doubles; 16 and
    # 17 digits (where that division could be off by one unit), exponents: numpy's parse
    rng = np.random.default_rng(12)
    scores = []
    for _ in range(3000):
        digits = "".join(rng.choice(list("0123456789"), size=int(rng.integers(1, 18))))
        point = int(rng.integers(0, len(digits) + 1))
        scores.append(rng.choice(["", "", "-", "+"]) + (digits[:point] + "." + digits[point:] if rng.random() < 0.8 else digits))
    scores += ["0", "-0", "+0.", ".5", "-.5", "5.", "999999999999999", "9999999999999999", "0.000000000000001",
               "123456789012345.", ".123456789012345", "0.1000000000000000055511151231257827", "1e5", "-1.5E-3"]
    content = "".join(f"1 Q0 d{i} {i} {s} r\n" for i, s in enumerate(scores)).encode()
    assert tf._scan_regular_run("r.txt", content) is not None
    run = read_run_packed(content, name="r.txt")
    assert run.score.tobytes() == np.array([float(s) for s in scores]).tobytes()


def test_the_scanner_packs_and_hashes_as_pack_text_and_text_hash_do(scanner):
    # a string's last word is read with the bytes after it (masked off), except at the very end
    words = ["b", "", "abcdefgh", "abcdefghi", "x" * 70, "y" * 71 + "z", "é", "0123456789abcdef", "0123456789a"]
    data = " ".join(words).encode()
    raw = [w.encode() for w in words]
    offsets = np.cumsum([0] + [len(r) + 1 for r in raw[:-1]])
    packed, keys = scanner.pack(data, offsets, np.array([len(r) for r in raw]))
    assert np.array_equal(packed, pack_text(words))
    assert np.array_equal(keys, text_hash(pack_text(words)))


def test_the_compiled_scanner_is_installed_unless_asked_not_to_be():
    if os.environ.get(trec_scan.WITHOUT):
        assert trec_scan.library() is None and trec_scan.problem() == f"{trec_scan.WITHOUT} is set: TREC files are read by the numpy scanner"
    else:
        assert trec_scan.library() is not None, trec_scan.problem()


def read_in_a_fresh_process(tmp_path, **env) -> list[str]:
    """Read a run in a new interpreter with no C compiler to be found (``CC`` and ``PATH`` lead
    nowhere) and ``VAR_DIR`` empty: what it read, which scanner, the warnings."""
    program = (
        "import warnings, numpy as np\n"
        "from evaluation.measures import trec_scan\n"
        "from evaluation.measures.trec_files import read_run\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    run = read_run({str(CDS / 'runs' / 'TUW1')!r})\n"
        "print(trec_scan.library() is None, len(run), run.tag, float(np.sum(run.score)))\n"
        "print(trec_scan.problem(), [str(w.message) for w in caught])\n"
    )
    env = {**os.environ, "CC": "no-such-compiler", "PATH": str(tmp_path / "bin"), "VAR_DIR": str(tmp_path / "var"), **env}
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, cwd=ROOT, check=True)
    return done.stdout.splitlines()


def test_nothing_is_compiled_at_run_time_and_the_installed_scanner_reads_without_a_compiler(tmp_path):
    if os.environ.get(trec_scan.WITHOUT):
        pytest.skip(f"{trec_scan.WITHOUT} is set: no compiled scanner")
    run = read_run(CDS / "runs" / "TUW1")
    old_build = ROOT / "var" / "build"  # where the scanner used to be compiled at run time
    before = sorted(old_build.iterdir()) if old_build.exists() else None
    assert read_in_a_fresh_process(tmp_path, **{trec_scan.WITHOUT: ""}) == [f"False {len(run)} {run.tag} {float(np.sum(run.score))}", "None []"]
    assert not (tmp_path / "var").exists()
    assert (sorted(old_build.iterdir()) if old_build.exists() else None) == before


def test_asked_for_no_compiled_scanner_files_are_read_by_the_numpy_scanner_with_the_same_values_and_no_warning(tmp_path):
    run = read_run(CDS / "runs" / "TUW1")
    first, second = read_in_a_fresh_process(tmp_path, **{trec_scan.WITHOUT: "1"})
    assert first == f"True {len(run)} {run.tag} {float(np.sum(run.score))}"
    assert second == f"{trec_scan.WITHOUT} is set: TREC files are read by the numpy scanner []"
    assert not (tmp_path / "var").exists()


def test_a_scanner_that_was_not_installed_is_named_in_a_warning_and_files_are_read_by_numpy(monkeypatch):
    monkeypatch.delenv(trec_scan.WITHOUT, raising=False)
    monkeypatch.setattr(trec_scan, "built", lambda: None)
    trec_scan.library.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match=r"the compiled scanner is not installed: .* \(`pip install --no-deps -e \.` builds it"):
            assert trec_scan.library() is None
        content = (CDS / "runs" / "TUW1").read_bytes()
        assert tf._scan_regular_run("r.txt", content) is not None
        assert same_rows(read_run(content, name="r.txt"), general_run(content), ["topic", "docno", "score", "line"])
    finally:
        trec_scan.library.cache_clear()  # the next call loads the library again


def test_a_scanner_built_from_another_version_of_the_source_is_not_called(monkeypatch, tmp_path):
    if os.environ.get(trec_scan.WITHOUT):
        pytest.skip(f"{trec_scan.WITHOUT} is set: no compiled scanner")
    edited = tmp_path / "trec_scan.c"
    edited.write_bytes(trec_scan.SOURCE.read_bytes() + b"/* edited since the install */\n")
    monkeypatch.setattr(trec_scan, "SOURCE", edited)
    trec_scan.library.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match=r"was built from another version of trec_scan.c: .* builds it again"):
            assert trec_scan.library() is None
    finally:
        trec_scan.library.cache_clear()


def test_the_index_finds_each_topics_documents_and_no_other_even_when_hashes_collide(scanner):
    rng = np.random.default_rng(5)
    sizes = [0, 1, 7, 300, 1000]  # rows of each topic
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    names = [f"D{rng.integers(10**12)}-{i}" for i in range(bounds[-1])]  # distinct
    judged = pack_text(names)
    truth = {(t, names[i]): i - bounds[t] for t in range(len(sizes)) for i in range(bounds[t], bounds[t + 1])}
    asked = [(int(t), names[rng.integers(len(names))]) for t in rng.integers(0, len(sizes), 3000)]
    asked += [(3, "ABSENT"), (-1, names[0]), (4, names[-1] + "-longer-than-any-judged-docno")]
    topic = np.array([t for t, _ in asked])
    docs = pack_text([d for _, d in asked])  # wider than the judged ones: padded with zero words
    want = [truth.get(pair, -1) for pair in asked]
    index = scanner.Index(bounds, judged, text_hash(judged))
    assert index.locate(topic, docs, text_hash(docs)).tolist() == want
    assert 0 < sum(w >= 0 for w in want) < len(want)
    for equal in (0, 2**64 - 1):  # every hash equal: only the words tell documents apart
        # (all ones: every string's first slot is the last of its topic's table, so they run on
        # into the next topic's table, the last topic's past the end of them all)
        collided = scanner.Index(bounds, judged, np.full(len(names), equal, dtype=np.uint64))
        assert collided.locate(topic, docs, np.full(len(asked), equal, dtype=np.uint64)).tolist() == want


def test_the_index_does_not_take_a_document_of_the_next_topic_for_the_same_document_of_this_one(scanner):
    # In the numpy index the topics' tables lie end to end: topic 0 (32 strings, 64 slots) hashes
    # all its strings to slot 48 and runs on into topic 1's table (16 slots), whose one string,
    # "S", sits in its first slot, in the middle of that run: looking up "S" in topic 0 meets
    # topic 1's "S", which only the topic tells apart.
    names = [f"zero-{i}" for i in range(32)] + ["S"]
    index = scanner.Index(np.array([0, 32, 33]), pack_text(names), np.full(33, 48, dtype=np.uint64))
    found = index.locate(np.array([0, 1, 0, 1]), pack_text(["S", "S", "zero-5", "zero-5"]), np.full(4, 48, dtype=np.uint64))
    assert found.tolist() == [-1, 0, 5, -1]


def test_packed_strings_keep_equality_and_byte_order():
    words = ["b", "abc", "ab", "é", "z", "abcdefghij", "abcdefgh", "abcdefghi", "ä", "a"]
    packed = pack_text(words)
    assert unpack_text(packed).tolist() == words
    assert text_rank(packed).tolist() == np.unique(words, return_inverse=True)[1].tolist()
    wide = np.pad(packed, ((0, 0), (0, 3)))
    assert text_equal(packed, wide).all() and (text_hash(packed) == text_hash(wide)).all()
    assert text_greater(packed[:-1], packed[1:]).tolist() == [a > b for a, b in zip(words[:-1], words[1:])]


def test_a_repeated_topic_and_docno_is_found_among_many_rows_and_a_hash_collision_is_not_one(scanner):
    rng = np.random.default_rng(11)
    n = 50_000
    topic = rng.integers(0, 50, n)
    docno = pack_text([f"DOC-{i}" for i in rng.permutation(n)])
    keys = text_hash(docno)
    assert not scanner.has_duplicates(topic, docno, keys)
    for i, j in [(0, 1), (17, n - 1), (n - 2, n - 1)]:
        t, d = topic.copy(), docno.copy()
        d[i] = d[j]
        t[i] = (t[j] + 1) % 50
        assert not scanner.has_duplicates(t, d, text_hash(d))  # the docno again, under another topic
        t[i] = t[j]
        assert scanner.has_duplicates(t, d, text_hash(d))
    collided = keys.copy()
    collided[5], topic[5] = collided[9], topic[9]  # equal hashes of two different docnos
    assert not scanner.has_duplicates(topic, docno, collided)
    # small alphabets, so that many rows share slots: the answer is a set's
    for _ in range(200):
        m = int(rng.integers(0, 40))
        t = rng.integers(0, 3, m)
        words = rng.choice(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"], size=m)
        d = pack_text(words) if m else np.zeros((0, 1), dtype=np.uint64)
        assert scanner.has_duplicates(t, d, text_hash(d)) == (len(set(zip(t.tolist(), words.tolist()))) < m)


def test_the_duplicate_check_block_by_block_finds_what_the_whole_check_finds(scanner):
    rng = np.random.default_rng(3)
    for _ in range(300):
        sizes = rng.integers(1, 30, int(rng.integers(1, 6)))
        t = np.repeat(np.arange(sizes.size), sizes)  # each topic one block
        words = rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=t.size, p=None)
        d = pack_text(words)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        whole = scanner.has_duplicates(t, d, text_hash(d))
        assert scanner.has_duplicates(t, d, text_hash(d), starts) == whole
        assert whole == (len(set(zip(t.tolist(), words.tolist()))) < t.size)


def test_a_run_that_comes_back_to_a_topic_is_checked_for_duplicates_across_its_blocks(scanner):
    rows = ["1 Q0 A 1 3.0 r", "1 Q0 B 2 2.0 r", "2 Q0 A 1 3.0 r", "1 Q0 C 3 1.0 r"]
    fine = ("\n".join(rows) + "\n").encode()
    assert tf._scan_regular_run("r.txt", fine) is not None
    assert same_rows(read_run(fine, name="r.txt"), general_run(fine), ["topic", "docno", "score", "line"])
    again = ("\n".join(rows + ["1 Q0 B 4 0.5 r"]) + "\n").encode()  # B of topic 1 once more, two blocks on
    assert tf._scan_regular_run("r.txt", again) is None
    assert outcome(read_run, again) == general_run(again)
    assert "appears twice" in outcome(read_run, again)


def test_a_run_written_topic_by_topic_best_first_is_put_in_order_without_a_sort(scanner):
    rng = np.random.default_rng(8)
    outcomes = set()
    for _ in range(300):
        topics = int(rng.integers(1, 6))
        sizes = rng.integers(1, 80, topics)
        block_topics = rng.permutation(topics)  # blocks in any order of the topics
        topic = np.repeat(block_topics, sizes[block_topics])
        score = np.concatenate([np.sort(rng.integers(0, int(rng.integers(1, 40)), sizes[t]))[::-1] / 4.0 for t in block_topics])
        names = np.array([f"d{rng.integers(0, 10**6)}-{i}" for i in range(topic.size)])
        longest_tie = np.unique(np.column_stack([topic, score]), axis=0, return_counts=True)[1].max()
        order = scanner.block_order(topic, score, pack_text(names), topics)
        if longest_tie > 65 and scanner is trec_scan:
            assert order is None  # too long for the compiled insertion sort: the caller sorts
        else:
            assert order.tolist() == ranked_order(names, score, topic=topic).tolist()
        outcomes.add(order is None)
    assert outcomes == ({True, False} if scanner is trec_scan else {False})
    topic, score, words = np.array([0, 0, 1, 0]), np.array([3.0, 2.0, 5.0, 1.0]), pack_text(["a", "b", "c", "d"])
    assert scanner.block_order(topic, score, words, 2) is None  # topic 0 in two blocks
    assert scanner.block_order(np.array([0, 0]), np.array([1.0, 2.0]), words[:2], 1) is None  # a score rises
    tie = scanner.block_order(np.zeros(66, dtype=int), np.ones(66), pack_text([f"d{i:02d}" for i in range(66)]), 1)
    assert tie is None if scanner is trec_scan else tie.tolist() == list(range(65, -1, -1))
    assert scanner.block_order(np.zeros(65, dtype=int), np.ones(65), pack_text([f"d{i:02d}" for i in range(65)]), 1).tolist() == list(range(64, -1, -1))


def test_ranking_packed_document_numbers_gives_the_order_of_the_strings():
    rng = np.random.default_rng(5)
    docno = rng.choice(["a", "b", "ab", "ba", "c10", "c9", "zz"], size=7, replace=False)
    score = rng.choice([1.0, 2.0], size=7)
    topic = rng.choice([0, 1], size=7)
    assert ranked_order(pack_text(docno), score, topic=topic).tolist() == ranked_order(docno, score, topic=topic).tolist()


def test_runs_read_on_threads_give_what_one_thread_gives_and_the_first_bad_file_raises(tmp_path, scanner):
    qrels = load_qrels(CDS / "qrels-sampleval-2015.txt")
    runs = [CDS / "runs" / f"TUW{i}" for i in range(1, 7)]
    threaded = RankedRuns.build(qrels, (path for path in runs), depth=100, workers=3)  # taken lazily
    alone = RankedRuns.build(qrels, runs, depth=100, workers=1)
    assert threaded.names == alone.names and np.array_equal(threaded.flat, alone.flat)
    bad1, bad2 = tmp_path / "bad1", tmp_path / "bad2"
    bad1.write_bytes(b"1 Q0 d1 1 x r\n")
    bad2.write_bytes(b"1 Q0 d1 1\n")
    with pytest.raises(TrecFormatError) as error:
        RankedRuns.build(qrels, [runs[0], bad1, runs[1], bad2], workers=2)
    assert str(error.value) == f"{bad1}, line 1: score 'x' is not a number"


def test_evaluating_from_files_equals_evaluating_the_general_readers_output(scanner):
    names = ["AP", "P@10", "xinfAP", "infNDCG"]
    runs = [CDS / "runs" / "TUW1", CDS / "runs" / "TUW4"]
    fast = evaluate(CDS / "qrels-sampleval-2015.txt", runs, names)
    general = [general_run(p.read_bytes()) for p in runs]
    slow = evaluate(CDS / "qrels-sampleval-2015.txt", general, names)
    for n in names:
        assert fast.values[n].tobytes() == slow.values[n].tobytes()
