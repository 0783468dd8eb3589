"""The one registry of measure names: canonical names, trec_eval's and sample_eval.pl's.

Canonical names are what the web app, the database and the tests use (house style):
``AP``, ``AP@100``, ``P@10``, ``R-prec``, ``RR``, ``bpref``, ``nDCG``, ``nDCG@10``,
``infAP`` (trec_eval's), ``xinfAP`` (sample_eval.pl's), ``infNDCG``, ``iP@10``,
``Judged@10``, ``statAP``, ``statP@10``, ``recall@1000``, ``success@10``, ``unj@10``, ``GMAP``, ``IPrec@0.1``,
``iIPrec@0.1``, ``11pt_avg``, ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``,
``num_nonrel_judged_ret``, ``inum_rel``, ``inum_rel_ret``, ``nDCG(1=3,2=9)`` (custom gains).

The other estimators of incomplete judgments
(``docs/evaluation.md#estimators-for-incomplete-judgments``) have canonical names only (no
tool prints them): ``indAP`` (induced AP, Yilmaz & Aslam 2008), ``condAP`` (trec_eval ``-J``
AP), ``subAP`` (subcollection AP, p = the topic's judged fraction), ``bpref-10``, ``NCP`` /
``NCP(first)`` / ``NCP(geometric=0.8)`` (normalised cumulative precision), and the smoothed
estimators ``infAP(c=1.5)`` and ``xinfAP(c=1.5)``. The set measures ``set_P``, ``set_recall``,
``set_F`` (β = 1) are trec_eval's.

:func:`parse_measures` also reads trec_eval's ``-m`` syntax — ``map``, ``P.5,10``,
``ndcg_cut.10``, ``iprec_at_recall..1,.2``, ``ndcg.1=3,2=9``, the printed forms ``P_10``,
``map_cut_100`` and the nicknames ``official`` and ``all_trec`` — and sample_eval.pl's
printed names (``infNDCG``, ``iP10``, ``inum_rel``, ``iprec@rec0.10``) and the nickname
``sample_eval``. One ambiguity, resolved on purpose: ``infAP`` always means trec_eval's
infAP (ε/2ε smoothing, judged R); sample_eval.pl prints its different estimator xinfAP
under the label ``infAP``, which :attr:`Measure.sample_eval` reproduces on output only.

``all_trec`` expands to every measure of trec_eval v10's ``-m all_trec``; the ones beyond
the common set (relstring, gm_bpref, Rprec_mult, utility, binG, G, ndcg_rel, Rndcg,
relative_P, set_relative_P, set_map, rbp, rbp_resid) are named by
:mod:`evaluation.measures.trec_eval_names`. Not implemented (rejected by name): trec_eval's
prefs and qrels_jg families, which read other input formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import trec_eval_names
from .measure_spec import TREC_EVAL_ORDER, Measure
from .sample_eval import RECALL_LEVELS  # trec_eval's and sample_eval.pl's 11 levels, 0.0 to 1.0

__all__ = ["Measure", "parse_measures", "parse_measure", "per_topic_means", "OFFICIAL", "ALL_TREC", "SAMPLE_EVAL", "TREC_EVAL_ORDER"]

P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)
SAMPLE_EVAL_RANKS = (10, 50, 100)  # @precisionranks of the NIST TREC sample_eval.pl
# trec_eval v10 measures not computed here (rejected by name): its preference-file and
# qrels_jg families, which read other input formats.
NOT_IMPLEMENTED = set("prefs qrels_jg all_prefs".split())


# ---------------------------------------------------------------------------------------------
# constructors


def _simple(name: str) -> Measure:
    table = {
        "num_q": Measure("num_q", "num_q", trec_eval="num_q", summary="count", integer=True, per_topic=False),
        "num_ret": Measure("num_ret", "num_ret", trec_eval="num_ret", sample_eval="num_ret", summary="sum", integer=True),
        "num_rel": Measure("num_rel", "num_rel", trec_eval="num_rel", summary="sum", integer=True),
        "num_rel_ret": Measure("num_rel_ret", "num_rel_ret", trec_eval="num_rel_ret", summary="sum", integer=True),
        "num_nonrel_judged_ret": Measure(
            "num_nonrel_judged_ret", "num_nonrel_judged_ret", trec_eval="num_nonrel_judged_ret", summary="sum", integer=True
        ),
        "AP": Measure("AP", "AP", trec_eval="map"),
        "GMAP": Measure("GMAP", "GMAP", trec_eval="gm_map", summary="gmean", per_topic=False),
        "R-prec": Measure("R-prec", "R-prec", trec_eval="Rprec"),
        "bpref": Measure("bpref", "bpref", trec_eval="bpref"),
        "RR": Measure("RR", "RR", trec_eval="recip_rank"),
        "infAP": Measure("infAP", "infAP", trec_eval="infAP"),
        "nDCG": Measure("nDCG", "nDCG", trec_eval="ndcg"),
        "11pt_avg": Measure("11pt_avg", "11pt", param=RECALL_LEVELS, trec_eval="11pt_avg"),
        "xinfAP": Measure("xinfAP", "xinfAP", family="sample_eval", sample_eval="infAP"),
        "indAP": Measure("indAP", "indAP"),
        "condAP": Measure("condAP", "condAP"),
        "subAP": Measure("subAP", "subAP"),
        "bpref-10": Measure("bpref-10", "bpref-10"),
        "NCP": Measure("NCP", "NCP"),
        "set_P": Measure("set_P", "set_P", trec_eval="set_P"),
        "set_recall": Measure("set_recall", "set_recall", trec_eval="set_recall"),
        "set_F": Measure("set_F", "set_F", trec_eval="set_F"),
        "infNDCG": Measure("infNDCG", "infNDCG", family="sample_eval", sample_eval="infNDCG"),
        # Horvitz–Thompson estimates of the same targets (no tool prints them): docs/intervals.md §3
        "statAP": Measure("statAP", "statAP", family="sample_eval"),
        # R̂ depends on the qrels only; sample_eval.pl sums it over every qrels topic.
        "inum_rel": Measure("inum_rel", "inum_rel", family="sample_eval", sample_eval="inum_rel", summary="sum_all"),
        "inum_rel_ret": Measure(
            "inum_rel_ret", "inum_rel_ret", family="sample_eval", sample_eval="inum_rel_ret", summary="sum"
        ),
    }
    return table[name]


# Cut-off measures: kind -> (canonical prefix, trec_eval name prefix or None).
_CUT_NAMES = {
    "P": ("P@", "P_"),
    "recall": ("recall@", "recall_"),
    "AP@": ("AP@", "map_cut_"),
    "nDCG@": ("nDCG@", "ndcg_cut_"),
    "success": ("success@", "success_"),
    "unj": ("unj@", "unj_"),
    "Judged": ("Judged@", None),
}


def _cut(kind: str, k: int) -> Measure:
    if k < 1:
        raise ValueError(f"cut-off must be a positive integer, got {k} for {kind}")
    if kind == "iP":
        return Measure(f"iP@{k}", "iP", k, family="sample_eval", sample_eval=f"iP{k}")
    if kind == "statP":
        return Measure(f"statP@{k}", "statP", k, family="sample_eval")
    if kind not in _CUT_NAMES:
        raise ValueError(f"unknown cut-off measure {kind!r}")
    canonical, trec_eval = _CUT_NAMES[kind]
    if trec_eval is None:
        return Measure(f"{canonical}{k}", kind, k)
    return Measure(f"{canonical}{k}", kind, k, trec_eval=f"{trec_eval}{k}")


def _iprec(x: float, *, sampled: bool) -> Measure:
    if not 0 <= x <= 1:
        raise ValueError(f"recall level must be in [0, 1], got {x}")
    label = f"{x:.2f}"
    canon = f"{x:g}"
    if sampled:
        # sample_eval.pl prints these for the mean only.
        return Measure(
            f"iIPrec@{canon}", "iIPrec", x, family="sample_eval", sample_eval=f"iprec@rec{label}", per_topic=False
        )
    return Measure(f"IPrec@{canon}", "IPrec", x, trec_eval=f"iprec_at_recall_{label}")


def _ndcg_gains(text: str) -> Measure:
    gains = []
    for item in text.split(","):
        grade, sep, gain = item.partition("=")
        try:
            gains.append((int(grade), float(gain)))
        except ValueError:
            raise ValueError(f"nDCG gains must look like 1=3,2=9.5; got {text!r}") from None
        if not sep:
            raise ValueError(f"nDCG gains must look like 1=3,2=9.5; got {text!r}")
    return Measure(f"nDCG({text})", "nDCG", tuple(gains), trec_eval=f"ndcg_{text}")


def _smoothed(kind: str, text: str) -> Measure:
    """``infAP(c=1.5)`` / ``xinfAP(c=1.5)``: the estimator with smoothing constant c (≥ 1)."""
    c = float(text)
    if c < 1:
        raise ValueError(f"{kind} smoothing constant c must be ≥ 1, got {text!r}")
    if kind == "xinfAP":
        return Measure(f"xinfAP(c={c:g})", "xinfAP", c, family="sample_eval")
    return Measure(f"infAP(c={c:g})", "infAP", c)


def _ncp(text: str) -> Measure:
    """``NCP(first)`` (θ = 0) or ``NCP(geometric=θ)``, θ in [0, 1); plain ``NCP`` is uniform (= AP)."""
    if text == "uniform":
        return _simple("NCP")
    theta = 0.0 if text == "first" else float(text.partition("=")[2])
    if not 0 <= theta < 1:
        raise ValueError(f"NCP geometric parameter θ must be in [0, 1), got {text!r}")
    return Measure("NCP(first)" if theta == 0 else f"NCP(geometric={theta:g})", "NCP", theta)


def _eleven(text: str) -> Measure:
    levels = tuple(sorted(_floats(text, "11pt_avg")))
    return Measure(f"11pt_avg({text})", "11pt", levels, trec_eval=f"11pt_avg_{text}")


def _ints(text: str, what: str) -> list[int]:
    out = []
    for item in text.split(","):
        try:
            value = int(float(item))  # trec_eval reads long parameters with atol-like truncation: 23.4 -> 23
        except ValueError:
            raise ValueError(f"{what}: cut-off {item!r} is not a number") from None
        if value < 1:
            raise ValueError(f"{what}: cut-off {item!r} must be positive")
        out.append(value)
    return sorted(set(out))


def _floats(text: str, what: str) -> list[float]:
    out = []
    for item in text.split(","):
        try:
            value = float(item)
        except ValueError:
            raise ValueError(f"{what}: recall level {item!r} is not a number") from None
        if not 0 <= value <= 1:
            raise ValueError(f"{what}: recall level {item!r} must be in [0, 1]")
        out.append(value)
    return sorted(set(out))


# ---------------------------------------------------------------------------------------------
# parsing

_CANON_CUT = re.compile(r"^(AP|nDCG|P|recall|R|success|unj|Judged|iP|statP)@(\d+)$")
_CANON_IPREC = re.compile(r"^(i?)IPrec@([0-9]*\.?[0-9]+)$")
_TE_UNDERSCORE = re.compile(r"^(P|recall|map_cut|ndcg_cut|success|unj)_(\d+)$")
_TE_IPREC = re.compile(r"^iprec_at_recall_([0-9]*\.?[0-9]+)$")
_SE_IP = re.compile(r"^iP(\d+)$")
_SE_IPREC = re.compile(r"^iprec@rec([0-9]*\.?[0-9]+)$")
_SMOOTHED = re.compile(r"^(x?infAP)\(c=([0-9]*\.?[0-9]+)\)$")
_NCP = re.compile(r"^NCP\((uniform|first|geometric=[0-9]*\.?[0-9]+)\)$")
_TE_CUT_KIND = {"P": "P", "recall": "recall", "map_cut": "AP@", "ndcg_cut": "nDCG@", "success": "success", "unj": "unj"}
_TE_DEFAULTS = {
    "P": P_CUTOFFS,
    "recall": P_CUTOFFS,
    "map_cut": P_CUTOFFS,
    "ndcg_cut": P_CUTOFFS,
    "success": SUCCESS_CUTOFFS,
    "unj": UNJ_CUTOFFS,
}
_TE_PLAIN = {
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "map": "AP",
    "gm_map": "GMAP",
    "Rprec": "R-prec",
    "recip_rank": "RR",
    "bpref": "bpref",
    "infAP": "infAP",
    "ndcg": "nDCG",
    "11pt_avg": "11pt_avg",
}
_CANON_PLAIN = {
    "AP",
    "GMAP",
    "R-prec",
    "RR",
    "bpref",
    "nDCG",
    "infAP",
    "xinfAP",
    "infNDCG",
    "statAP",
    "inum_rel",
    "inum_rel_ret",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "11pt_avg",
    "indAP",
    "condAP",
    "subAP",
    "bpref-10",
    "NCP",
    "set_P",
    "set_recall",
    "set_F",
}


def parse_measure(text: str) -> list[Measure]:
    """Parse one name (canonical, trec_eval ``-m`` syntax, or sample_eval's) into measures.

    Returns a list because trec_eval names expand (``P`` → P@5 … P@1000, ``official`` → its
    set). ``runid`` parses to an empty list (it is an output line, not a measure).

    Raises
    ------
    ValueError
        Unknown or unimplemented name, or a bad parameter; the message names it.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"measure name must be a non-empty string, got {text!r}")
    text = text.strip()
    if text == "runid":
        return []
    if text == "official":
        return _official()
    if text == "all_trec":
        return _all_trec()
    if text == "sample_eval":
        return _sample_eval()
    if text in _CANON_PLAIN:
        return [_simple(text)]
    if text in _TE_PLAIN:
        return [_simple(_TE_PLAIN[text])]
    found = trec_eval_names.parse(text)
    if found is not None:
        return found
    m = _SMOOTHED.match(text)
    if m:
        return [_smoothed(m.group(1), m.group(2))]
    m = _NCP.match(text)
    if m:
        return [_ncp(m.group(1))]
    m = _CANON_CUT.match(text)
    if m:
        kind = {"AP": "AP@", "nDCG": "nDCG@", "R": "recall"}.get(m.group(1), m.group(1))
        return [_cut(kind, int(m.group(2)))]
    m = _CANON_IPREC.match(text)
    if m:
        return [_iprec(float(m.group(2)), sampled=bool(m.group(1)))]
    m = _TE_UNDERSCORE.match(text)
    if m:
        return [_cut(_TE_CUT_KIND[m.group(1)], int(m.group(2)))]
    m = _TE_IPREC.match(text)
    if m:
        return [_iprec(float(m.group(1)), sampled=False)]
    m = _SE_IP.match(text)
    if m:
        return [_cut("iP", int(m.group(1)))]
    m = _SE_IPREC.match(text)
    if m:
        return [_iprec(float(m.group(1)), sampled=True)]
    if text.startswith("ndcg_") and "=" in text:  # trec_eval's printed form of ndcg.1=3,2=9
        return [_ndcg_gains(text[5:])]
    if text.startswith("11pt_avg_"):  # printed form of 11pt_avg..25,.5
        return [_eleven(text[9:])]
    if text.startswith("nDCG(") and text.endswith(")"):
        return [_ndcg_gains(text[5:-1])]
    if text.startswith("11pt_avg(") and text.endswith(")"):
        return [_eleven(text[9:-1])]
    base, dot, params = text.partition(".")
    if base in _TE_DEFAULTS:
        cutoffs = _ints(params, base) if dot else list(_TE_DEFAULTS[base])
        return [_cut(_TE_CUT_KIND[base], k) for k in cutoffs]
    if base == "iprec_at_recall":
        levels = _floats(params, base) if dot else list(RECALL_LEVELS)
        return [_iprec(x, sampled=False) for x in levels]
    if base == "ndcg" and dot:
        return [_ndcg_gains(params)]
    if base == "11pt_avg" and dot:
        return [_eleven(params)]
    if base in NOT_IMPLEMENTED or base.startswith(("prefs_", "qrels_jg")):
        raise ValueError(f"measure {text!r} (trec_eval {base}) is not implemented here")
    raise ValueError(
        f"unknown measure {text!r}; use a canonical name (AP, P@10, nDCG@10, xinfAP, iP@10, …), "
        "trec_eval's syntax (map, P.5,10, ndcg_cut.10) or sample_eval's (infNDCG, iP10)"
    )


def parse_measures(names: Iterable[str]) -> list[Measure]:
    """Parse and de-duplicate (by canonical name, first occurrence kept; relstring once, the first length given) a list of names."""
    if isinstance(names, str):
        names = [names]
    seen: dict[str, Measure] = {}
    for text in names:
        for measure in parse_measure(text):
            if measure.kind == "relstring":  # one string per topic: a length asked for replaces the default, as in trec_eval
                if any(m.kind == "relstring" and m.trec_eval != "relstring" for m in seen.values()):
                    continue  # trec_eval takes the first length given
                seen = {name: m for name, m in seen.items() if m.kind != "relstring"}
            seen.setdefault(measure.name, measure)
    return list(seen.values())


def per_topic_means(measures, *, why: str = "") -> list[Measure]:
    """Measures given as names or :class:`Measure` objects, de-duplicated (first kept), each a
    per-topic value averaged over topics: what experiments that re-evaluate every topic compare.

    Raises ValueError for none, an unknown name, or a measure that is not such a mean (``num_ret``,
    ``GMAP``, …); ``why`` is appended to that last message.
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    seen: dict[str, Measure] = {}
    for m in measures:
        for spec in [m] if isinstance(m, Measure) else parse_measure(m):
            seen.setdefault(spec.name, spec)
    if not seen:
        raise ValueError("choose at least one measure")
    for spec in seen.values():
        if spec.summary != "mean" or not spec.per_topic:
            raise ValueError(f"measure {spec.name!r} is not a per-topic value averaged over topics{why}")
    return list(seen.values())


def _official() -> list[Measure]:
    out = [_simple(n) for n in ("num_q", "num_ret", "num_rel", "num_rel_ret", "AP", "GMAP", "R-prec", "bpref", "RR")]
    out += [_iprec(x, sampled=False) for x in RECALL_LEVELS]
    out += [_cut("P", k) for k in P_CUTOFFS]
    return out


def _all_trec() -> list[Measure]:
    out = _official()
    out += [_cut("recall", k) for k in P_CUTOFFS]
    out += [_simple("infAP"), _simple("11pt_avg"), _simple("nDCG")]
    out += [_cut("nDCG@", k) for k in P_CUTOFFS]
    out += [_cut("AP@", k) for k in P_CUTOFFS]
    out += [_cut("success", k) for k in SUCCESS_CUTOFFS]
    out += [_simple("set_P"), _simple("set_recall"), _simple("set_F")]
    out += [_simple("num_nonrel_judged_ret")]
    out += [_cut("unj", k) for k in UNJ_CUTOFFS]
    return out + trec_eval_names.all_trec()


def _sample_eval() -> list[Measure]:
    out = [_simple("xinfAP"), _simple("infNDCG")]
    out += [_iprec(x, sampled=True) for x in RECALL_LEVELS]
    out += [_cut("iP", k) for k in SAMPLE_EVAL_RANKS]
    out += [_simple("inum_rel_ret"), _simple("inum_rel"), _simple("num_ret")]
    return out


OFFICIAL = tuple(_official())
ALL_TREC = tuple(_all_trec())
SAMPLE_EVAL = tuple(_sample_eval())
