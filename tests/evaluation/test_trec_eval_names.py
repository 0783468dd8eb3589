"""trec_eval's -m syntax for the measures of evaluation.measures.trec_eval_names."""

from __future__ import annotations

import pytest

from evaluation.measures.registry import ALL_TREC, parse_measure, parse_measures


def names(text):
    return [(m.name, m.trec_eval) for m in parse_measure(text)]


def test_defaults_are_trec_eval_defaults():
    assert [m.param for m in parse_measure("Rprec_mult")] == [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]
    assert names("relative_P")[1] == ("relative_P@10", "relative_P_10")
    assert names("utility") == [("utility", "utility")]
    assert names("rbp") == [("rbp", "rbp")]
    assert names("relstring") == [("relstring@10", "relstring")]


def test_parameters_print_as_trec_eval_prints_them():
    assert names("Rprec_mult.5.0,0.2,0.35") == [("Rprec_mult(0.2)", "Rprec_mult_0.20"), ("Rprec_mult(0.35)", "Rprec_mult_0.35"),
                                                ("Rprec_mult(5)", "Rprec_mult_5.00")]  # fmt: skip
    assert names("utility.2,-1,0,0") == [("utility(2,-1,0,0)", "utility_2,-1,0,0")]
    assert names("G.1=3,2=9") == [("G(1=3,2=9)", "G_1=3,2=9")]
    assert names("rbp.p=0.8") == [("rbp(p=0.8)", "rbp_p=0.8")]
    assert names("relstring.20") == [("relstring@20", "relstring_20")]
    assert names("relative_P.23.4") == [("relative_P@23", "relative_P_23")]  # trec_eval's atol


def test_printed_and_canonical_names_parse_back():
    for m in ALL_TREC:
        assert parse_measure(m.name)[0].name == m.name
        if m.kind != "relstring":
            assert parse_measure(m.trec_eval)[0].name == m.name


def test_a_relstring_length_given_replaces_the_default_and_the_first_given_wins():
    assert [m.name for m in parse_measures(["all_trec", "relstring.20"]) if m.kind == "relstring"] == ["relstring@20"]
    assert [m.name for m in parse_measures(["relstring.20", "relstring.5", "relstring"])] == ["relstring@20"]


@pytest.mark.parametrize("text", ["utility.1,2,3", "Rprec_mult.1,1", "G.1=x", "G.p=0.8", "rbp.p=2", "rbp_resid.1=2", "relative_P.0"])
def test_bad_parameters_are_refused_by_name(text):
    with pytest.raises(ValueError, match=text.split(".")[0]):
        parse_measure(text)


def test_parameters_of_mixed_kinds_still_sort_into_output_order():
    measures = parse_measures(["rbp.p=0.8", "rbp.1=2", "rbp", "utility.2,1,1,1", "utility"])
    assert [m.name for m in sorted(measures, key=lambda m: m.sort_key)] == [
        "utility", "utility(2,1,1,1)", "rbp", "rbp(1=2)", "rbp(p=0.8)"]  # fmt: skip
