"""pandas DataFrames in and out of the engine, in the column conventions of the field's tools.

In (:func:`qrels_from_frame`, :func:`run_from_frame`; :func:`~evaluation.measures.evaluate`
calls them for any DataFrame it is given):

============  ==========================  =====================================
convention    qrels columns               run columns
============  ==========================  =====================================
ir_measures   query_id, doc_id, relevance query_id, doc_id, score
PyTerrier     qid, docno, label           qid, docno, score
ranx          q_id, doc_id, score         q_id, doc_id, score
============  ==========================  =====================================

A sampled qrels frame (sample_eval.pl's 5-column form) adds a ``stratum`` column. Other
columns (PyTerrier's ``rank``, ``query``, ``docid``; ir_measures' ``iteration``) are ignored;
the rank is recomputed from the scores by trec_eval's rule, as for files.

Out (:func:`evaluation_frame`, as ``Evaluation.to_dataframe()``): a long table with
ir_measures' column names (``query_id, measure, value``, as its ``Metric``) and ``run``.

pandas is an optional dependency of the engine: this module never imports it to read a
frame (it only calls the frame's methods) and imports it to build one, with a clear error
when it is missing. ``docs/evaluation.md#dataframes``.
"""

from __future__ import annotations

import numpy as np

from .trec_files import QrelsFile, RunFile

__all__ = ["is_frame", "qrels_from_frame", "run_from_frame", "evaluation_frame", "import_pandas"]

TOPIC_COLUMNS = ("query_id", "qid", "q_id")
DOCNO_COLUMNS = ("doc_id", "docno")
GRADE_COLUMNS = ("relevance", "label", "score")


def import_pandas():
    """The pandas module, or ImportError saying it is an optional dependency to install."""
    try:
        import pandas
    except ImportError:
        raise ImportError("this needs pandas, an optional dependency of the engine: pip install pandas") from None
    return pandas


def is_frame(obj) -> bool:
    """True for a pandas DataFrame (checked without importing pandas)."""
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns") and hasattr(obj, "iloc")


def qrels_from_frame(df, *, name: str = "<qrels DataFrame>") -> QrelsFile:
    """Qrels from a DataFrame in ir_measures', PyTerrier's or ranx's columns (table above).

    Grades must be integers (an integer column, or floats with integral values); a
    ``stratum`` column makes them sampled qrels. A (topic, document) pair given twice is an
    error, as in a file. Raises ValueError naming the column or the row (0-based position).
    """
    topic_col = _column(df, TOPIC_COLUMNS, name, "topic")
    docno_col = _column(df, DOCNO_COLUMNS, name, "document")
    grade_col = _column(df, GRADE_COLUMNS, name, "relevance")
    if len(df) == 0:
        raise ValueError(f"{name}: qrels are empty")
    topic = _labels(df, topic_col, name)
    docno = _labels(df, docno_col, name)
    rel = _grades(df[grade_col].to_numpy(), grade_col, name)
    stratum = _labels(df, "stratum", name) if "stratum" in df.columns else None
    _reject_duplicates(df, topic_col, docno_col, name)
    return QrelsFile(path=name, topic=topic, docno=docno, rel=rel, stratum=stratum,
                     line=np.arange(1, len(df) + 1, dtype=np.int64))  # fmt: skip


def run_from_frame(df, *, name: str = "run") -> RunFile:
    """A run from a DataFrame in ir_measures', PyTerrier's or ranx's columns (table above).

    Scores must be finite numbers; a (topic, document) pair given twice is an error.
    Raises ValueError naming the column or the row (0-based position).
    """
    topic_col = _column(df, TOPIC_COLUMNS, f"run {name!r}", "topic")
    docno_col = _column(df, DOCNO_COLUMNS, f"run {name!r}", "document")
    if "score" not in df.columns:
        raise ValueError(f"run {name!r}: no 'score' column (columns: {list(map(str, df.columns))})")
    try:
        score = df["score"].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"run {name!r}: column 'score' is not numeric") from None
    bad = np.flatnonzero(~np.isfinite(score))
    if bad.size:
        raise ValueError(f"run {name!r}, row {bad[0]}: score is not a finite number: {df['score'].iloc[bad[0]]!r}")
    topic = _labels(df, topic_col, f"run {name!r}")
    docno = _labels(df, docno_col, f"run {name!r}")
    _reject_duplicates(df, topic_col, docno_col, f"run {name!r}")
    return RunFile(path=name, tag=name, topic=topic, docno=docno, score=score,
                   line=np.arange(1, len(df) + 1, dtype=np.int64))  # fmt: skip


def evaluation_frame(ev):
    """An :class:`~evaluation.measures.Evaluation` as a long DataFrame.

    Columns ``run, query_id, measure, value``: one row per run, topic and measure (the topics
    :meth:`~evaluation.measures.Evaluation.to_records` gives: every qrels topic under the
    complete convention, else those the run retrieved) and one per run and measure with
    ``query_id = "all"`` holding the run's mean. Evaluated with ``intervals=True``, also
    ``low, high``: the 95 % posterior interval of a topic's fully judged value and the
    sampling interval of the mean (the defaults of ``Evaluation.interval``), NaN where no
    interval is computed (measures that are not sampling estimators).
    """
    pd = import_pandas()
    frame = pd.DataFrame(ev.to_records(), columns=["run", "topic", "measure", "value"])
    frame = frame.rename(columns={"topic": "query_id"})
    if ev.replicates or ev.posterior:
        bounds = [_bounds(ev, row.run, row.query_id, row.measure) for row in frame.itertuples(index=False)]
        frame["low"] = [b[0] for b in bounds]
        frame["high"] = [b[1] for b in bounds]
    return frame


def _bounds(ev, run: str, topic: str, measure: str) -> tuple[float, float]:
    try:
        ci = ev.interval(measure, run) if topic == "all" else ev.interval(measure, run, topic=topic)
    except ValueError:  # not a sampling estimator: no interval
        return np.nan, np.nan
    return float(ci.low), float(ci.high)


def _column(df, names: tuple[str, ...], what: str, kind: str) -> str:
    found = [c for c in names if c in df.columns]
    if not found:
        raise ValueError(
            f"{what}: no {kind} column; expected one of {', '.join(names)} (columns: {list(map(str, df.columns))})"
        )
    if len(found) > 1:
        raise ValueError(f"{what}: several {kind} columns ({', '.join(found)}); keep one")
    return found[0]


def _labels(df, column: str, what: str) -> np.ndarray:
    values = df[column].to_numpy(dtype=object)
    missing = np.flatnonzero([v is None or (isinstance(v, float) and v != v) for v in values])
    if missing.size:
        raise ValueError(f"{what}, row {missing[0]}: column {column!r} is empty")
    text = values.astype(str)
    blank = np.flatnonzero(np.char.str_len(text) == 0) if text.size else np.zeros(0, dtype=np.int64)
    if blank.size:
        raise ValueError(f"{what}, row {blank[0]}: column {column!r} is empty")
    return text


def _grades(values: np.ndarray, column: str, what: str) -> np.ndarray:
    if values.dtype.kind in "iu":
        return values.astype(np.int64)
    try:
        grades = values.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: column {column!r} is not numeric") from None
    bad = np.flatnonzero(~np.isfinite(grades) | (grades != np.round(grades)))
    if bad.size:
        raise ValueError(f"{what}, row {bad[0]}: relevance is not an integer: {values[bad[0]]!r}")
    return grades.astype(np.int64)


def _reject_duplicates(df, topic_col: str, docno_col: str, what: str) -> None:
    twice = np.flatnonzero(df.duplicated([topic_col, docno_col]).to_numpy())
    if twice.size:
        row = twice[0]
        raise ValueError(
            f"{what}, row {row}: document {df[docno_col].iloc[row]!r} appears twice for topic {df[topic_col].iloc[row]!r}"
        )
