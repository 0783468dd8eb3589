"""A small, readable demo campaign that a newcomer can click through.

Eight topics with narratives, about 330 short articles written from topic-specific facts and
generic filler, 14 runs from 5 teams that rank the articles by term overlap with different
amounts of noise, a hybrid pool of two runs per team built before the last run arrives (the
pool page offers to add it as a late run), judgments for the first half of each topic's
judging order, and one user per role. The first half of topics 101-105 comes as imported qrels;
that of topics 106-108 was judged in the app by two simulated assessors, ann and bob (no
password: nobody logs in as them), each the second assessor of the other's topics on their
leading documents, where they disagree now and then: the agreement and adjudication pages have
something to show. Everything is generated from fixed seeds, so the demo is the same on every
machine; only the passwords are new each time.
"""

from __future__ import annotations

import io
import json
import secrets
from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import Group, User
from django.db import transaction

from campaigns import people
from campaigns.imports import import_documents, import_topics
from campaigns.models import Campaign, Team
from campaigns.roles import ASSESSOR, ORGANIZER, PARTICIPANT
from campaigns.run_imports import RunSource, import_runs
from judging.assessing import new_id, queue_for, record_judgment
from judging.assigning import assign_topic
from judging.pool_designs import hybrid_design
from judging.pool_specs import PoolSpec
from judging.pools import build_pool
from judging.qrels import import_qrels

SLUG = "demo"

# Ranks 1-10 judged in full, half of ranks 11-30 and a tenth of 31-100, two runs per team.
POOL = PoolSpec(
    design=hybrid_design(10, 100, strata=[(11, 30), (31, 100)], rates=[0.5, 0.1]), seed=2026, runs_per_team=2
)


@dataclass(frozen=True)
class DemoTopic:
    identifier: str
    title: str
    description: str
    narrative: str
    facts: tuple[str, ...]


TOPICS = [
    DemoTopic(
        "101",
        "solar panel recycling",
        "How are end-of-life solar panels recycled, and what materials are recovered?",
        "Relevant documents describe recycling processes for photovoltaic modules, recovery rates of glass, "
        "silicon, silver or aluminium, or regulation of panel waste. Articles about installing solar panels "
        "or about electricity prices are not relevant.",
        (
            "Most recycling plants first remove the aluminium frame and junction box from each solar panel.",
            "The laminated glass of a photovoltaic module can be separated by thermal or chemical delamination.",
            "Recovered silver from old panels is worth more than the glass, although it weighs far less.",
            "The European WEEE directive makes producers responsible for collecting end-of-life solar panels.",
            "Researchers estimate that 78 million tonnes of panel waste will accumulate by 2050.",
            "Crushing whole modules recovers glass but leaves silicon contaminated with plastic.",
        ),
    ),
    DemoTopic(
        "102",
        "antibiotic resistance in farm animals",
        "What is known about antibiotic resistance arising from the use of antibiotics in livestock?",
        "Relevant documents discuss resistant bacteria in pigs, poultry or cattle, antibiotic use as growth "
        "promoters, or transmission of resistance from farms to people. Human hospital infections without a "
        "farm link are not relevant.",
        (
            "Farmers once fed low doses of antibiotics to pigs and chickens as growth promoters.",
            "Resistant E. coli strains were found in poultry meat sold in supermarkets.",
            "The colistin resistance gene mcr-1 was first identified in pigs in China.",
            "Denmark cut antibiotic use in livestock sharply without losing productivity on its farms.",
            "Farm workers carry livestock-associated MRSA more often than the general population.",
            "Veterinary prescriptions are now required for antibiotics in cattle feed in many countries.",
        ),
    ),
    DemoTopic(
        "103",
        "urban heat islands",
        "Why are cities warmer than their surroundings and how can the heat island effect be reduced?",
        "Relevant documents explain causes of urban heat islands (asphalt, lack of vegetation, waste heat) "
        "or evaluate measures such as green roofs, street trees or reflective pavements. General climate "
        "change articles without an urban focus are not relevant.",
        (
            "Dark asphalt and roofs absorb sunlight during the day and release the heat at night.",
            "Street trees cooled neighbourhoods by up to four degrees in summer measurements.",
            "Cool roofs painted white reflect most sunlight and lower indoor temperatures.",
            "The urban heat island effect is strongest on calm, clear nights.",
            "Air conditioners release waste heat that warms the streets of dense city centres.",
            "Green roofs retain rainwater and reduce roof surface temperatures in the city.",
        ),
    ),
    DemoTopic(
        "104",
        "microplastics in drinking water",
        "How much microplastic is found in tap and bottled drinking water, and is it harmful?",
        "Relevant documents report measurements of microplastic particles in drinking water, their sources, "
        "filtration in water treatment, or health risk assessments. Ocean plastic pollution without a "
        "drinking water link is not relevant.",
        (
            "Bottled water samples contained more microplastic particles than tap water on average.",
            "Most microplastic fragments in drinking water are smaller than a tenth of a millimetre.",
            "Conventional water treatment removes a large share of microplastics by coagulation and filtration.",
            "The World Health Organization found no clear evidence of harm from microplastics in drinking water.",
            "Polypropylene from bottle caps was a common polymer found in bottled water.",
            "Measuring nanoplastics in water remains difficult with current laboratory methods.",
        ),
    ),
    DemoTopic(
        "105",
        "remote work productivity",
        "Does working from home make employees more or less productive?",
        "Relevant documents present studies or data on productivity of remote or hybrid workers, including "
        "effects on collaboration and working hours. Articles only about office real estate or commuting "
        "costs are not relevant.",
        (
            "A call centre experiment found that employees working from home completed more calls per shift.",
            "Hybrid work schedules reduced quit rates without lowering measured productivity.",
            "Remote teams reported fewer spontaneous conversations, which may slow innovation.",
            "Employees working from home often worked longer hours but took more breaks.",
            "Managers rated remote worker productivity lower than the employees rated themselves.",
            "Video meetings increased in number while their average length fell during remote work.",
        ),
    ),
    DemoTopic(
        "106",
        "coral reef bleaching",
        "What causes coral bleaching and how do reefs recover?",
        "Relevant documents discuss bleaching events, marine heatwaves, the loss of symbiotic algae, reef "
        "recovery or restoration. Articles about reef tourism without bleaching content are not relevant.",
        (
            "Corals bleach when warm water causes them to expel the symbiotic algae living in their tissue.",
            "The Great Barrier Reef suffered mass bleaching events in 2016, 2017 and 2020.",
            "Bleached coral is not dead, but it starves if the algae do not return within weeks.",
            "Some heat-tolerant coral species recover faster after a marine heatwave.",
            "Reef restoration projects grow coral fragments in nurseries and replant them.",
            "Ocean acidification weakens coral skeletons and slows reef recovery.",
        ),
    ),
    DemoTopic(
        "107",
        "electric bus fleets",
        "What are the experiences of cities that switched their bus fleets to electric buses?",
        "Relevant documents report on electric bus deployments, charging strategies, costs, range in winter "
        "or maintenance. Articles about private electric cars are not relevant.",
        (
            "Shenzhen replaced its entire fleet of more than 16,000 buses with electric buses.",
            "Depot charging overnight suits routes shorter than the bus range.",
            "Electric buses lose range in cold weather because cabin heating draws on the battery.",
            "Operators reported lower maintenance costs for electric buses than for diesel buses.",
            "Pantograph chargers at terminal stops top up bus batteries in a few minutes.",
            "The purchase price of an electric bus is higher, but fuel savings repay it over its life.",
        ),
    ),
    DemoTopic(
        "108",
        "sleep and memory consolidation",
        "How does sleep contribute to the consolidation of memories?",
        "Relevant documents describe research on sleep stages and memory, such as slow-wave sleep, "
        "hippocampal replay or sleep deprivation effects on learning. Articles about insomnia treatments "
        "without a memory link are not relevant.",
        (
            "During slow-wave sleep the hippocampus replays patterns of activity from the day.",
            "Students who slept after learning word pairs remembered more of them the next morning.",
            "Sleep spindles are bursts of brain activity linked to consolidating new memories.",
            "Sleep deprivation before learning reduces the ability to form new memories.",
            "REM sleep appears to help with emotional memories and creative problem solving.",
            "Short naps improved memory for recently learned facts in several experiments.",
        ),
    ),
]

FILLER = (
    "Officials said further reports would be published later in the year.",
    "The study was funded by a national research council and several foundations.",
    "Critics argue that more independent data are needed before drawing conclusions.",
    "Local newspapers covered the story extensively over the following weeks.",
    "The authors called for a larger trial with a longer follow-up period.",
    "Industry representatives welcomed the announcement but warned about costs.",
    "The findings were presented at an international conference in the spring.",
    "A spokesperson declined to comment on the details of the agreement.",
    "Public interest in the subject has grown steadily over the past decade.",
    "The committee will meet again next month to review the progress made.",
    "Several universities contributed measurements to the shared database.",
    "The budget for the programme was increased after a public consultation.",
)

HEADLINES = ("New study on {}", "Report: {}", "What we know about {}", "{} explained", "Debate over {}", "{} in focus")


def build_collection(rng: np.random.Generator) -> tuple[list[dict], dict[tuple[str, str], int]]:
    """Documents as JSONL objects, and the grade each would get for each topic (0 if unrelated)."""
    documents, grades = [], {}
    n = 0
    for topic in TOPICS:
        # 36 documents written about the topic, with a varying share of on-topic facts.
        for i in range(36):
            n += 1
            docno = f"DEMO-{n:04d}"
            focus = [3, 2, 1, 0][i % 4]
            facts = list(rng.choice(topic.facts, size=focus + 1, replace=False)) if focus else []
            mention = f"The article mentions {topic.title} only in passing." if not focus else ""
            sentences = facts + list(rng.choice(FILLER, size=4 - min(focus, 3), replace=False))
            rng.shuffle(sentences)
            if mention:
                sentences.insert(1, mention)
            title = rng.choice(HEADLINES).format(topic.title)
            documents.append({"docno": docno, "title": title, "text": " ".join(sentences)})
            grades[(topic.identifier, docno)] = {3: 2, 2: 1, 1: 1, 0: 0}[focus]
    for _ in range(42):  # off-topic background documents
        n += 1
        sentences = list(rng.choice(FILLER, size=5, replace=False))
        documents.append({"docno": f"DEMO-{n:04d}", "title": "Around the region", "text": " ".join(sentences)})
    # A few documents are HTML, as web collections are (rendered only after sanitizing).
    for doc in documents[5::40]:
        doc["html"] = f"<h2>{doc['title']}</h2><p>{doc.pop('text')}</p>"
    return documents, grades


# Each team's runs: the standard deviation of the noise added to the term-overlap score. Judged
# completely, the runs' mean AP ranges from 0.14 (cobalt3) to 0.92 (birch1), so the leaderboard
# has good and poor runs to tell apart; the teams are not in the order of their runs' quality.
RUN_NOISE = {"Aurora": (12, 15, 21), "Birch": (8, 10, 18), "Cobalt": (21, 27, 36), "Delta": (9, 13, 30), "Ember": (15, 24)}
#: The runs that are not automatic (the leaderboard marks them).
RUN_TYPES = {"delta1": "manual", "aurora2": "feedback"}


def build_runs(rng: np.random.Generator, documents: list[dict]) -> list[tuple[str, str, str]]:
    """(team, tag, run text) for 14 runs that score documents by topic-term overlap plus noise (RUN_NOISE)."""
    texts = [(d["docno"], (d["title"] + " " + d.get("text", d.get("html", ""))).lower()) for d in documents]
    runs = []
    for team, noises in RUN_NOISE.items():
        for r, noise in enumerate(noises):
            tag = f"{team.lower()}{r + 1}"
            lines = []
            for topic in TOPICS:
                words = set((topic.title + " " + " ".join(topic.facts)).lower().split())
                overlap = np.array([sum(w in text for w in words) for _, text in texts], dtype=float)
                score = overlap + rng.normal(0, noise, size=len(texts))
                order = np.argsort(-score)[:100]
                lines += [
                    f"{topic.identifier} Q0 {texts[i][0]} {k} {score[i]:.4f} {tag}" for k, i in enumerate(order, 1)
                ]
            runs.append((team, tag, "\n".join(lines) + "\n"))
    return runs


def topics_jsonl() -> str:
    return "\n".join(
        json.dumps({"id": t.identifier, "title": t.title, "description": t.description, "narrative": t.narrative})
        for t in TOPICS
    )


# One line per paragraph: the pages show the text with Django's linebreaks (a blank line starts a
# paragraph, a single line break is kept as a line break).
GUIDELINES = "\n\n".join((
    "Read the topic's description and narrative first: the narrative says what counts. Judge each document on "
    "its own, as if it were the only one you had seen, and judge what the document says, not whether you believe it.",
    "Highly relevant (2): the document is about the topic and answers it directly. Relevant (1): it says something "
    "useful about the topic, in passing or in part. Not relevant (0): a mention of the topic's words without "
    "anything useful about it counts as not relevant.",
    "Unsure? Press L to judge it later, and N to leave a note for the organizers.",
))


@transaction.atomic
def load_demo() -> dict[str, str]:
    """(Re)create the demo campaign and its users; returns username → new password."""
    rng = np.random.default_rng(20261122)
    Campaign.objects.filter(slug=SLUG).delete()
    campaign = Campaign.objects.create(
        name="Demo track: science and society news",
        slug=SLUG,
        description="A generated campaign to try every feature.",
        guidelines=GUIDELINES,
        scale=[
            {"grade": 0, "label": "Not relevant"},
            {"grade": 1, "label": "Relevant"},
            {"grade": 2, "label": "Highly relevant"},
        ],
        relevant_from=1,
        depth=100,
        state=Campaign.State.JUDGING,
    )
    import_topics(campaign, topics_jsonl().encode(), name="demo-topics.jsonl")
    documents, grades = build_collection(rng)
    import_documents(campaign, "\n".join(json.dumps(d) for d in documents).encode(), name="demo-docs.jsonl")
    runs = build_runs(rng, documents)
    for team, tag, text in runs[:-1]:
        import_runs(campaign, [RunSource(text.encode(), name=f"{tag}.run")], team_name=team, priority=int(tag[-1]),
                    run_type=RUN_TYPES.get(tag, "automatic"))
    build_pool(campaign, POOL)
    # The last run arrives after the build: the pool page offers to add it as a late run.
    team, tag, text = runs[-1]
    import_runs(campaign, [RunSource(text.encode(), name=f"{tag}.run")], team_name=team, priority=int(tag[-1]))
    # A first batch of assessor work: the first half of each topic's judging order. Every prefix
    # of that order is a stratified random sample, so the campaign can be evaluated already.
    rows, judged_in_app = [], {}
    for topic in campaign.topics.order_by("position"):
        queue = topic.pool_entries.filter(sampled=True).order_by("order").values_list("document__docno", flat=True)
        first_half = [(d, grades.get((topic.identifier, d), 0)) for d in list(queue)[: len(queue) // 2]]
        if topic.identifier in SIMULATED_TOPICS:
            judged_in_app[topic] = first_half
        else:
            rows += [f"{topic.identifier} 0 {d} {grade}" for d, grade in first_half]
    import_qrels(campaign, ("\n".join(rows) + "\n").encode(), name="demo-qrels.txt")
    credentials = _demo_users(campaign)
    _demo_assignments(campaign)
    _simulated_judging(campaign, judged_in_app, rng)
    return credentials


def _demo_assignments(campaign: Campaign) -> None:
    """The demo assessor judges topics 101-104 in full and the first 10 documents of 105 (overlap)."""
    assessor = User.objects.get(username="assessor")
    topics = list(campaign.topics.order_by("position"))
    for topic in topics[:4]:
        assign_topic(topic, assessor, [])
    assign_topic(topics[4], None, [assessor], overlap="10")


# Topic → (primary, second) of the simulated assessors, and how many leading documents the second judges.
SIMULATED_TOPICS = {"106": ("ann", "bob"), "107": ("ann", "bob"), "108": ("bob", "ann")}
SIMULATED_OVERLAP = 12
SIMULATED_SLIP = 0.25  # the second assessor's chance of giving a neighbouring grade
SIMULATED_NOTE = "Borderline: it touches the topic, but I was unsure between two grades."  # on a topic's first slip


def _simulated_judging(campaign: Campaign, first_half: dict, rng: np.random.Generator) -> None:
    """ann and bob judge topics 106-108 through the assessors' own path (:func:`record_judgment`).

    The primary gives every document of the first half its generated grade; the second judges the
    leading ``SIMULATED_OVERLAP`` and slips to a neighbouring grade a quarter of the time. Active
    seconds per judgment are drawn from a log-normal around 20 s.
    """
    users = {}
    for name in ("ann", "bob"):
        users[name], _ = User.objects.get_or_create(username=name)
        users[name].set_unusable_password()
        users[name].save()
        users[name].groups.set([Group.objects.get(name=ASSESSOR)])
        people.make_member(campaign, users[name], ASSESSOR)
    top = max(campaign.grades)
    for topic, judged in first_half.items():
        primary, second = SIMULATED_TOPICS[topic.identifier]
        assign_topic(topic, users[primary], [users[second]], overlap=str(SIMULATED_OVERLAP))
        ids = dict(topic.pool_entries.values_list("document__docno", "document_id"))
        for name, documents in ((primary, judged), (second, judged[:SIMULATED_OVERLAP])):
            queue, _ = queue_for(users[name], campaign.slug, topic.identifier)
            noted = False
            for docno, grade in documents:
                note = None
                if name == second and rng.random() < SIMULATED_SLIP:
                    grade = grade + 1 if grade == 0 else grade - 1 if grade == top else grade + rng.choice((-1, 1))
                    note, noted = (None, True) if noted else (SIMULATED_NOTE, True)  # the first slip of a topic
                seconds = float(rng.lognormal(np.log(20), 0.5))
                record_judgment(queue, ids[docno], int(grade), submission=new_id(), seconds=seconds, note=note)


def _demo_users(campaign: Campaign) -> dict[str, str]:
    credentials = {}
    for username, role in (("organizer", ORGANIZER), ("assessor", ASSESSOR), ("participant", PARTICIPANT)):
        user, _ = User.objects.get_or_create(username=username)
        password = secrets.token_urlsafe(9)
        user.set_password(password)
        user.save()
        user.groups.set([Group.objects.get(name=role)])
        credentials[username] = password
    people.make_member(campaign, User.objects.get(username="organizer"), ORGANIZER)
    people.make_member(campaign, User.objects.get(username="assessor"), ASSESSOR)
    people.make_member(campaign, User.objects.get(username="participant"), PARTICIPANT,
                       team=Team.objects.get(campaign=campaign, name="Aurora"))
    return credentials


def demo_summary(credentials: dict[str, str], url: str) -> str:
    out = io.StringIO()
    out.write(f"\nDemo campaign loaded. Open {url} and log in as:\n")
    for username, password in credentials.items():
        out.write(f"  {username:<12} password {password}\n")
    out.write("(The participant is a member of team Aurora. Passwords change each time the demo is loaded.)\n")
    return out.getvalue()
