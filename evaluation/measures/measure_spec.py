"""A measure with its parameter, and the order in which trec_eval prints measures.

:class:`Measure` is what :mod:`evaluation.measures.registry` parses names into and what every
kernel dispatcher reads; it lives apart so that the modules parsing families of names
(:mod:`evaluation.measures.trec_eval_names`) and the registry share it without importing each
other.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Measure", "TREC_EVAL_ORDER", "SAMPLE_EVAL_ORDER", "EXTRA_ORDER"]

# trec_eval's print order (measures.c, v10.0), then ours.
TREC_EVAL_ORDER = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P relstring "
    "recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G ndcg ndcg_rel Rndcg ndcg_cut map_cut relative_P "
    "success set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret rbp rbp_resid unj Judged"
).split()
SAMPLE_EVAL_ORDER = "xinfAP infNDCG iIPrec iP inum_rel_ret inum_rel statAP statP".split()
# Measures no tool prints, after trec_eval's in output.
EXTRA_ORDER = "indAP condAP subAP bpref-10 NCP".split()


@dataclass(frozen=True)
class Measure:
    """One measure with its parameter.

    Attributes
    ----------
    name : str
        Canonical name (``P@10``).
    kind : str
        Which kernel computes it (``P``).
    param : int, float or tuple, optional
        Cut-off k, recall level x, or gains ((grade, gain), …).
    family : {"trec_eval", "sample_eval"}
        Which judgments it reads: trec_eval measures read the qrels as trec_eval does
        (negative = pooled but unjudged), sample_eval measures read the strata.
    trec_eval, sample_eval : str or None
        The name each tool prints (``P_10``; ``iP10``), None if the tool lacks it.
    summary : {"mean", "sum", "gmean", "count", "sum_all"}
        How the per-topic values become the ``all`` value (``sum_all``: summed over every
        qrels topic whatever the convention).
    integer : bool
        Printed as an integer.
    per_topic : bool
        Printed per topic (trec_eval prints gm_map and num_q only as ``all``).
    """

    name: str
    kind: str
    param: object = None
    family: str = "trec_eval"
    trec_eval: str | None = None
    sample_eval: str | None = None
    summary: str = "mean"
    integer: bool = False
    per_topic: bool = True

    @property
    def sort_key(self) -> tuple:
        """Output order: trec_eval's measure order, then parameters ascending."""
        base = self.trec_eval.split("_")[0] if self.trec_eval else self.kind
        base = _BASE.get(self.kind, self.kind if self.kind in TREC_EVAL_ORDER else base)
        if self.family == "sample_eval":
            return (1, SAMPLE_EVAL_ORDER.index(self.kind), _param_key(self.param))
        if self.kind in EXTRA_ORDER:
            return (0, len(TREC_EVAL_ORDER) + EXTRA_ORDER.index(self.kind), _param_key(self.param))
        return (0, TREC_EVAL_ORDER.index(base), _param_key(self.param))


_BASE = {
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "AP": "map",
    "GMAP": "gm_map",
    "R-prec": "Rprec",
    "bpref": "bpref",
    "RR": "recip_rank",
    "IPrec": "iprec_at_recall",
    "P": "P",
    "recall": "recall",
    "infAP": "infAP",
    "11pt": "11pt_avg",
    "nDCG": "ndcg",
    "nDCG@": "ndcg_cut",
    "AP@": "map_cut",
    "success": "success",
    "unj": "unj",
    "Judged": "Judged",
    "set_P": "set_P",
    "set_recall": "set_recall",
    "set_F": "set_F",
}


def _param_key(param) -> tuple:
    if param is None:
        return ()
    if isinstance(param, tuple):  # gains ((grade, gain), …), pairs with ("p", 0.8), utility ((c1, …), N)
        return tuple(_key_item(x[0] if isinstance(x, tuple) else x) for x in param)
    return (_key_item(param),)


def _key_item(x) -> tuple:
    """Numbers before names, so parameters of mixed kinds still sort."""
    return (0, float(x), "") if isinstance(x, (int, float)) else (1, 0.0, str(x))
