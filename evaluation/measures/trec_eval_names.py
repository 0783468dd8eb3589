"""Names of the trec_eval v10 measures added to ``all_trec`` parity, in trec_eval's ``-m`` syntax.

:func:`parse` reads one name for :func:`evaluation.measures.registry.parse_measure` (which
tries it before reporting an unknown name):

=========================  ==========================  ========================================
trec_eval ``-m``           canonical                   trec_eval prints
=========================  ==========================  ========================================
``gm_bpref``               ``gm_bpref``                ``gm_bpref`` (``all`` only)
``Rprec_mult.0.2,2``       ``Rprec_mult(0.2)`` …       ``Rprec_mult_0.20`` (``%3.2f``)
``utility.2,-1,0,0``       ``utility(2,-1,0,0)``       ``utility_2,-1,0,0``
``binG``                   ``binG``                    ``binG``
``G.1=3,2=9``              ``G(1=3,2=9)``              ``G_1=3,2=9``
``ndcg_rel``, ``Rndcg``    same (gains as ``G``)       same
``relative_P.5,10``        ``relative_P@5`` …          ``relative_P_5``
``set_relative_P``         ``set_relative_P``          ``set_relative_P``
``set_map``                ``set_map``                 ``set_map``
``rbp.p=0.8``              ``rbp(p=0.8)``              ``rbp_p=0.8``
``rbp_resid.p=0.8``        ``rbp_resid(p=0.8)``        ``rbp_resid_p=0.8``
``relstring.20``           ``relstring@20``            ``relstring_20`` (per topic only)
=========================  ==========================  ========================================

Without parameters each takes trec_eval's defaults (Rprec_mult 0.2, 0.4, …, 2.0; utility
1, −1, 0, 0; relative_P the P cut-offs; rbp p = 0.9; relstring 10). Parameters with a
measure's trec_eval name and ``.`` are read as trec_eval reads them (cut-offs sorted,
duplicates refused).
"""

from __future__ import annotations

import re

from .measure_spec import Measure

__all__ = ["parse", "all_trec", "RPREC_MULTIPLES", "UTILITY_DEFAULT", "RELSTRING_LENGTH"]

RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)  # m_Rprec_mult.c
UTILITY_DEFAULT = (1.0, -1.0, 0.0, 0.0)  # m_utility.c
RELATIVE_P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # m_rel_P.c
RELSTRING_LENGTH = 10  # m_relstring.c

_PLAIN = {
    "gm_bpref": Measure("gm_bpref", "gm_bpref", trec_eval="gm_bpref", summary="gmean", per_topic=False),
    "binG": Measure("binG", "binG", trec_eval="binG"),
    "set_relative_P": Measure("set_relative_P", "set_relative_P", trec_eval="set_relative_P"),
    "set_map": Measure("set_map", "set_map", trec_eval="set_map"),
}
_GAIN_KINDS = ("G", "ndcg_rel", "Rndcg", "rbp", "rbp_resid")
_CANON_CALL = re.compile(r"^(Rprec_mult|utility|G|ndcg_rel|Rndcg|rbp|rbp_resid)\((.+)\)$")
_CANON_CUT = re.compile(r"^(relative_P|relstring)@(\d+)$")
_PRINTED_CUT = re.compile(r"^(relative_P|Rprec_mult)_([0-9.]+)$")


def parse(text: str) -> list[Measure] | None:
    """The measures ``text`` names, or None if it is none of this module's names.

    Raises ValueError for a bad parameter, naming it.
    """
    if text in _PLAIN:
        return [_PLAIN[text]]
    base, dot, params = text.partition(".")
    if base in ("Rprec_mult", "utility", "relative_P", "relstring") or base in _GAIN_KINDS:
        if not dot:
            return _defaults(base)
        return _with_params(base, params)
    m = _CANON_CALL.match(text)
    if m:
        return _with_params(m.group(1), m.group(2))
    m = _CANON_CUT.match(text)
    if m:
        return _with_params(m.group(1), m.group(2))
    m = _PRINTED_CUT.match(text)
    if m:
        return _with_params(m.group(1), m.group(2))
    for kind in ("utility", "G", "ndcg_rel", "Rndcg", "rbp_resid", "rbp", "relstring"):  # printed forms utility_2,-1,0,0
        if text.startswith(kind + "_") and text[len(kind) + 1 :]:
            return _with_params(kind, text[len(kind) + 1 :])
    return None


def all_trec() -> list[Measure]:
    """This module's measures in trec_eval's ``-m all_trec``."""
    out = _defaults("relstring") + [_PLAIN["gm_bpref"]]
    out += _defaults("Rprec_mult") + _defaults("utility") + [_PLAIN["binG"]]
    out += _defaults("G") + _defaults("ndcg_rel") + _defaults("Rndcg") + _defaults("relative_P")
    out += [_PLAIN["set_relative_P"], _PLAIN["set_map"]] + _defaults("rbp") + _defaults("rbp_resid")
    return out


def _defaults(kind: str) -> list[Measure]:
    if kind == "Rprec_mult":
        return [_rprec_mult(x) for x in RPREC_MULTIPLES]
    if kind == "relative_P":
        return [_relative_p(k) for k in RELATIVE_P_CUTOFFS]
    if kind == "utility":
        return [Measure("utility", "utility", (UTILITY_DEFAULT, 0), trec_eval="utility")]
    if kind == "relstring":
        return [Measure(f"relstring@{RELSTRING_LENGTH}", "relstring", RELSTRING_LENGTH, trec_eval="relstring", summary="none")]
    return [Measure(kind, kind, (), trec_eval=kind)]


def _with_params(kind: str, text: str) -> list[Measure]:
    if not text:
        raise ValueError(f"{kind}: empty parameter list")
    if kind == "Rprec_mult":
        return [_rprec_mult(x) for x in _sorted_unique(kind, [_number(kind, item) for item in text.split(",")])]
    if kind == "relative_P":
        cutoffs = [int(_number(kind, item)) for item in text.split(",")]  # trec_eval's atol: 23.4 -> 23
        if min(cutoffs) < 1:
            raise ValueError(f"{kind}: cut-offs must be positive, got {text!r}")
        return [_relative_p(k) for k in _sorted_unique(kind, cutoffs)]
    if kind == "relstring":
        length = int(_number(kind, text))
        if length < 0:
            raise ValueError(f"relstring: length must be ≥ 0, got {text!r}")
        return [Measure(f"relstring@{length}", "relstring", length, trec_eval=f"relstring_{text}", summary="none")]
    if kind == "utility":
        values = tuple(_number(kind, item) for item in text.split(","))
        if len(values) != 4:
            raise ValueError(f"utility takes 4 coefficients (relevant retrieved, non-relevant retrieved, relevant missed, "
                             f"non-relevant missed), got {text!r}")
        return [Measure(f"utility({text})", "utility", (values, 0), trec_eval=f"utility_{text}")]
    pairs = _pairs(kind, text)
    if kind in ("G", "ndcg_rel", "Rndcg") and any(not isinstance(k, int) for k, _ in pairs):
        raise ValueError(f"{kind}: gains must look like 1=3,2=9.5; got {text!r}")
    if kind == "rbp_resid" and any(k != "p" for k, _ in pairs):
        raise ValueError(f"rbp_resid takes only the persistence p=…; got {text!r}")
    return [Measure(f"{kind}({text})", kind, tuple(pairs), trec_eval=f"{kind}_{text}")]


def _rprec_mult(x: float) -> Measure:
    if x < 0:
        raise ValueError(f"Rprec_mult: multiple of R must be ≥ 0, got {x!r}")
    return Measure(f"Rprec_mult({x:g})", "Rprec_mult", x, trec_eval=f"Rprec_mult_{x:3.2f}")


def _relative_p(k: int) -> Measure:
    return Measure(f"relative_P@{k}", "relative_P", k, trec_eval=f"relative_P_{k}")


def _number(kind: str, item: str) -> float:
    try:
        return float(item)
    except ValueError:
        raise ValueError(f"{kind}: parameter {item!r} is not a number") from None


def _sorted_unique(kind: str, values: list) -> list:
    if len(set(values)) != len(values):
        raise ValueError(f"{kind}: duplicate cut-offs in {values!r}")
    return sorted(values)


def _pairs(kind: str, text: str) -> list[tuple]:
    """``1=3,2=9,p=0.8`` → [(1, 3.0), (2, 9.0), ("p", 0.8)]: integer names are grades."""
    out = []
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"{kind}: parameters must look like 1=3,2=9 or p=0.8; got {text!r}")
        number = _number(kind, value)
        if re.fullmatch(r"[+-]?\d+", name):
            out.append((int(name), number))
        elif name == "p":
            if not 0 < number < 1:
                raise ValueError(f"{kind}: persistence p must be in (0, 1), got {value!r}")
            out.append(("p", number))
        else:
            raise ValueError(f"{kind}: unknown parameter {name!r} in {text!r} (grades or p)")
    return out
