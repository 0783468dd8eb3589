"""Topics, qrels and documents by ir_datasets id, offline: a dataset registered from local files."""

from __future__ import annotations

import io
import sys
import uuid

import ir_datasets
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaigns.models import Document, Topic
from judging.models import Judgment, PoolEntry

pytestmark = pytest.mark.django_db

DOCS = "a\tText of a.\nb\tText of b.\nc\tText of c.\nd\tText of d.\n"
QUERIES = "1\tfirst query\n2\tsecond query\n"
QRELS = "1 0 a 1\n1 0 c 0\n2 0 b 2\n"


@pytest.fixture
def local_dataset(tmp_path, monkeypatch):
    """A dataset id served from files under tmp_path; ir_datasets' home is a temp dir too."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    files = {}
    for name, text in (("docs.tsv", DOCS), ("queries.tsv", QUERIES), ("qrels.txt", QRELS)):
        files[name] = tmp_path / name
        files[name].write_text(text)
    dataset_id = f"eco-test/{uuid.uuid4().hex}"
    ir_datasets.registry.register(dataset_id, ir_datasets.create_dataset(
        docs_tsv=str(files["docs.tsv"]), queries_tsv=str(files["queries.tsv"]), qrels_trec=str(files["qrels.txt"])))  # fmt: skip
    return dataset_id


def run_command(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def write(tmp_path, name: str, content: str) -> str:
    path = tmp_path / name
    path.write_text(content)
    return str(path)


def test_topics_qrels_and_needed_documents_import_by_dataset_id(campaign, local_dataset, tmp_path):
    out, _ = run_command("import_topics", "--campaign", "cds15", "--irds", local_dataset)
    assert "2 topics created" in out
    assert dict(Topic.objects.values_list("identifier", "title")) == {"1": "first query", "2": "second query"}
    out, _ = run_command("import_qrels", "--campaign", "cds15", "--irds", local_dataset)
    assert "3 judgments created" in out
    assert set(Judgment.objects.values_list("topic__identifier", "document__docno", "grade")) == {
        ("1", "a", 1), ("1", "c", 0), ("2", "b", 2)}  # fmt: skip
    assert PoolEntry.objects.count() == 3
    run_command("import_runs", "--campaign", "cds15", write(tmp_path, "r", "1 Q0 x 1 2 r\n1 Q0 a 2 1 r\n"))
    out, err = run_command("import_documents", "--campaign", "cds15", "--only-needed", "--irds", local_dataset)
    texts = dict(Document.objects.values_list("docno", "body"))
    assert texts == {"a": "Text of a.", "b": "Text of b.", "c": "Text of c.", "x": ""}  # d: neither pooled nor retrieved
    assert "0 documents created, 3 updated" in out  # their rows came with the qrels and the run
    assert "1 of the campaign's 4 document numbers are not in the dataset" in err


def test_dataset_qrels_import_like_the_same_file(campaign, local_dataset, tmp_path):
    run_command("import_qrels", "--campaign", "cds15", "--irds", local_dataset, "--create-topics")
    from_dataset = set(Judgment.objects.values_list("topic__identifier", "document__docno", "grade"))
    Judgment.objects.all().delete()
    run_command("import_qrels", "--campaign", "cds15", write(tmp_path, "q.txt", QRELS), "--create-topics")
    assert set(Judgment.objects.values_list("topic__identifier", "document__docno", "grade")) == from_dataset


def test_a_bad_dataset_qrels_row_names_the_dataset_and_line_and_stores_nothing(campaign, local_dataset, tmp_path):
    run_command("import_topics", "--campaign", "cds15", "--irds", local_dataset)
    bad_id = f"{local_dataset}-bad"  # its qrels name topic 3, which the campaign lacks
    qrels = write(tmp_path, "bad-qrels.txt", "1 0 a 1\n3 0 b 1\n")
    ir_datasets.registry.register(bad_id, ir_datasets.create_dataset(qrels_trec=qrels))
    with pytest.raises(CommandError, match=rf"ir_datasets:{bad_id} qrels, line 2: topic '3' is not in campaign .*nothing was stored"):
        run_command("import_qrels", "--campaign", "cds15", "--irds", bad_id)
    assert Judgment.objects.count() == 0 and PoolEntry.objects.count() == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("import_topics", "--campaign", "cds15", "--irds", "no-such/dataset"), "ir_datasets has no dataset 'no-such/dataset'"),
        (("import_qrels", "--campaign", "cds15"), r"give a file, or --irds DATASET_ID"),
        (("import_topics", "--campaign", "cds15", "t.tsv", "--irds", "x"), "not both"),
        (("import_documents", "--campaign", "cds15", "--irds", "x"), "add --only-needed"),
    ],
)
def test_bad_source_options_are_clear_errors(campaign, args, message):
    with pytest.raises(CommandError, match=message):
        run_command(*args)


def test_without_ir_datasets_installed_the_commands_say_so(campaign, monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # what `import ir_datasets` meets when it is not installed
    for command in ("import_topics", "import_qrels"):
        with pytest.raises(CommandError, match=r"--irds needs the ir_datasets package.*pip install ir_datasets"):
            run_command(command, "--campaign", "cds15", "--irds", "any/id")
    with pytest.raises(CommandError, match="--irds needs the ir_datasets package"):
        run_command("import_documents", "--campaign", "cds15", "--only-needed", "--irds", "any/id")


def test_documents_before_any_run_or_qrels_are_a_warning_not_an_import(campaign, local_dataset):
    _, err = run_command("import_documents", "--campaign", "cds15", "--only-needed", "--irds", local_dataset)
    assert "the campaign names no documents yet" in err
    assert Document.objects.count() == 0


def test_trec_topic_fields_and_document_titles_keep_their_places(campaign, tmp_path, monkeypatch):
    """A dataset with TREC queries (title, description, narrative) and titled documents."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TitleUrlTextDoc, TrecQrels, TrecQuery, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    queries = write(tmp_path, "q.tsv", "7\tcats\tAbout cats.\tAny cat.\n")
    docs = write(tmp_path, "d.tsv", "a\tA title\thttp://a\tBody of a.\n")
    qrels = write(tmp_path, "r.txt", "7 0 a 1\n")
    dataset_id = f"eco-test/{uuid.uuid4().hex}"
    ir_datasets.registry.register(dataset_id, Dataset(
        TsvQueries(LocalDownload(queries), query_cls=TrecQuery), TsvDocs(LocalDownload(docs), doc_cls=TitleUrlTextDoc),
        TrecQrels(LocalDownload(qrels), {})))  # fmt: skip
    run_command("import_topics", "--campaign", "cds15", "--irds", dataset_id)
    run_command("import_qrels", "--campaign", "cds15", "--irds", dataset_id)
    run_command("import_documents", "--campaign", "cds15", "--only-needed", "--irds", dataset_id)
    topic = Topic.objects.get(identifier="7")
    assert (topic.title, topic.description, topic.narrative) == ("cats", "About cats.", "Any cat.")
    document = Document.objects.get(docno="a")
    assert (document.title, document.body, document.is_html) == ("A title", "Body of a.", False)
