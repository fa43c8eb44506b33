"""Implicit updates (atma/implicit.py) and the rule's readings built on them.

Every pair here was written for this test (own people, places, jobs and phrasings), not taken
from the audit generator's templates; the negatives are the near misses the write path meets:
someone else's state, the past, a wish, a visit, the same value again.
"""

from __future__ import annotations

import pytest

from atma.implicit import first_person, implied_change
from atma.judge import fallback_verdict, moves_from_old_value
from atma.protocols import GateScore
from atma.records import Record

IMPLIED = [
    ("Ana", "I work as a nurse at St Mary's.", "Third night shift in a row as a paramedic, I'm wiped out.", "role"),
    ("Ana", "Ana works as a barista.", "Clocked out early from my shift as a receptionist today.", "role"),
    ("Ben", "I'm working as a sous chef these days.", "My first paycheck as a bus driver finally came through!", "role"),
    ("Cai", "I live in Leeds.", "Cycling home through the rain in Manchester tonight was grim.", "home"),
    ("Cai", "Cai lives in Porto.", "The view from my balcony in Lisbon never gets old.", "home"),
    ("Dee", "I'm married to Tom.", "My husband Raj made pancakes this morning.", "partner"),
    ("Dee", "I'm dating Sam.", "Priya and I are celebrating our first anniversary tonight.", "partner"),
    ("Dee", "I'm single.", "My boyfriend Luis is taking me to the coast this weekend.", "partner"),
    ("Dee", "Dee is dating Sam.", "Oh, and I'm single again.", "partner"),
    ("Eli", "I read about 4 books a month.", "Hit my usual 9 books a month again, love it.", "number"),
    ("Eli", "Eli sleeps around 6 hours a night.", "Got my regular 8 hours of sleep, feeling great.", "number"),
    ("Eli", "My commute takes 20 minutes.", "Same old routine, a 45-minute commute each way.", "number"),
    ("Fay", "My cat is called Biscuit.", "We buried Biscuit under the apple tree this morning.", "pet lost"),
    ("Fay", "I have a beagle named Rolo.", "Rolo passed away peacefully last night.", "pet lost"),
    ("Gus", "My main hobby is rock climbing.", "My rock climbing gear has been sold, the garage is finally tidy.", "gear gone"),
    ("Hal", "I love sushi.", "Even the smell of sushi makes me feel sick these days.", "taste"),
    ("Hal", "I can't stand jazz.", "That jazz gig turned out to be the highlight of my month.", "taste"),
]

NOT_IMPLIED = [
    ("Ana", "I work as a nurse.", "My sister just started her first shift as a paramedic."),
    ("Ana", "I work as a nurse.", "Back when I worked as a waiter I hated weekends."),
    ("Ana", "I work as a nurse.", "Another long shift as a nurse today, my back aches."),
    ("Ana", "I work as a nurse.", "I'd love to work as a pilot one day."),
    ("Cai", "I live in Leeds.", "My landlord in Leeds finally fixed the boiler."),
    ("Cai", "I live in Leeds.", "Spending the week at a hotel in Paris for a conference."),
    ("Cai", "I live in Leeds.", "Back home in York for Christmas with my parents!"),
    ("Dee", "I'm married to Tom.", "My husband Tom made pancakes this morning."),
    ("Dee", "I'm married to Tom.", "My sister's boyfriend Luis is visiting."),
    ("Eli", "I sleep around 6 hours a night.", "Got my regular 6 hours of sleep, feeling great."),
    ("Eli", "I read about 4 books a month.", "My usual bookshop had 20 books on sale."),
    ("Eli", "I drink 3 cups of coffee a day.", "My brother drinks his usual 6 cups of coffee a day."),
    ("Fay", "I have a beagle named Rolo.", "Rolo chewed my slippers again."),
    ("Gus", "My main hobby is rock climbing.", "Bought new rock climbing gear today!"),
    ("Hal", "I love sushi.", "Had sushi again, it was amazing."),
    ("Hal", "I love sushi.", "My friend can't stand sushi, gross he says."),
    ("Hal", "I love sushi.", "Would you ever try sushi? I think you'd hate it?"),
]


@pytest.mark.parametrize("speaker,old,new,kind", IMPLIED)
def test_implied_change_reads_a_presupposed_new_value(speaker: str, old: str, new: str, kind: str) -> None:
    assert implied_change(old, new, speaker) == kind


@pytest.mark.parametrize("speaker,old,new", NOT_IMPLIED)
def test_implied_change_ignores_others_the_past_wishes_visits_and_the_same_value(speaker: str, old: str, new: str) -> None:
    assert implied_change(old, new, speaker) == ""


def test_first_person_rewrites_a_named_fact() -> None:
    assert first_person("Orla has a whippet named Tapioca.", "Orla") == "I have a whippet named Tapioca."
    assert first_person("I live in Leeds.", "Orla") == "I live in Leeds."


def _verdict(speaker: str, old: str, new: str, a: float) -> str:
    o = Record(id="o", namespace="t", text=old, speaker=speaker)
    n = Record(id="n", namespace="t", text=new, speaker=speaker)
    return fallback_verdict(o, n, GateScore(a=a, b=None, d=None, escalate=True), why="test").action


def test_rule_commits_an_implicit_update_even_at_a_low_topic_score() -> None:
    # MiniLM scores such pairs low (~0.06 for a shift as an air traffic controller / works as a speech
    # therapist); the frames ("shift as a", "work as a") name the state themselves
    assert _verdict("Ana", "Ana works as a barista.", "Clocked out early from my shift as a receptionist today.", 0.06) == "supersede"
    assert _verdict("Ana", "Ana works as a barista.", "Clocked out early from my shift as a barista today.", 0.06) == "none"


def test_rule_reads_an_echoed_value_denied_and_a_change_that_starts_from_the_old_value() -> None:
    assert _verdict("Ola", "I live in Gdansk.", "Gdansk? Not anymore.", 0.5) == "supersede"
    assert _verdict("Ola", "I live in Gdansk.", "Here in Gdansk, board games? Not anymore.", 0.5) == "none"
    assert _verdict("Ola", "I swim 3 times a week.", "I'm slowly working my way from 3 to 5, bit by bit.", 0.1) == "transition"
    assert _verdict("Ola", "My favourite band is Blur.", "Went from Blur to Pulp over the summer.", 0.2) == "supersede"
    assert moves_from_old_value("I swim 3 times a week.", "Swapped 3 sessions for 2 longer ones.")
    assert not moves_from_old_value("I swim 3 times a week.", "We drove from Hull to York.")


def test_rule_restates_behind_a_time_lead_in_and_reads_scopes_that_name_the_old_value() -> None:
    assert _verdict("Ola", "Ola's favourite band is Blur.", "Since March, my favourite band is Pulp.", 0.4) == "supersede"
    assert _verdict("Ola", "My commute takes 30 minutes.", "My commute takes 50 minutes, by the way.", 0.5) == "supersede"
    assert _verdict("Ola", "I live in Gdansk, in the old town.", "I live in Sopot, near the pier.", 0.3) == "supersede"
    # a scope with "still ... but" is a scope, not an end
    assert _verdict("Ola", "My main hobby is sailing.", "I still go sailing, but only when I'm on holiday.", 0.5) == "scoped_exception"
    assert _verdict("Ola", "I live in Gdansk.", "I live in Gdansk, but not over the summer, when I rent in Hel.", 0.35) == "scoped_exception"
