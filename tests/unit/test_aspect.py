"""Changes under way and scoped exceptions in wider wording (atma/aspect.py) and the rule's
readings built on them.

Every pair here was written for this test (own people, habits and phrasings), not taken from the
audit generator's templates. The first 53 were written before the readings were built and used
to build them; the last 40 were written after, as a check, and then looked at too (three
readings were added for them: a notice period, "still moving ...", an office as company). The
topic score beside each pair is the packaged MiniLM cosine of the two texts, as the rule Judge
gets it in the loop. Pairs the rule still misses are kept as strict xfails, so the limits stay
visible: a home change said through the boxes ("Half my boxes are already at the new place"), a
change at a low topic score with nothing shared, an exception with no shared word or family
("champagne at weddings" / "I don't drink alcohol"), and a situation said with "when" or "but"
alone ("When I have a cold, it's ginger tea every time"): LoCoMo's talk is full of those, and
reading them scoped 67 of its same-speaker pairs that state nothing of the kind.
"""

from __future__ import annotations

import doctest

import pytest

import atma.aspect
from atma.aspect import scope_cue, under_way
from atma.judge import fallback_verdict
from atma.protocols import GateScore
from atma.records import Record

MISS = pytest.mark.xfail(strict=True, reason="wording the rule does not read yet")

PAIRS = [
    ('Ines', 'I eat meat most days.', "I've been cutting back on meat for a few weeks now, aiming to be fully vegetarian by spring.", 'transition', 0.58),
    pytest.param('Jon', 'I live in Denver.', 'Half my boxes are already at the new place in Austin, the rest follow next week.', 'transition', 0.27, marks=MISS),  # read as none
    ('Kit', 'I play the violin in a quartet.', "I'm starting to switch from violin to viola, still getting used to the alto clef.", 'transition', 0.53),
    ('Lou', 'I drink four coffees a day.', 'Down to two coffees a day so far, working towards none.', 'transition', 0.73),
    ('Mo', 'I use Windows on my home computer.', "I'm in the middle of migrating my home computer from Windows to Linux.", 'transition', 0.61),
    ('Nia', 'We speak English at home.', "We're slowly switching to Spanish at home for the kids.", 'transition', 0.56),
    ('Oz', 'My go-to drink is lager.', "Lately I've been drifting from lager towards stouts, more and more each week.", 'transition', 0.64),
    ('Pia', 'I commute by car.', "I've started biking to work two days a week, with the goal of ditching the car for my commute entirely.", 'transition', 0.65),
    ('Quin', 'I teach full-time at the high school.', "I'm moving to part-time teaching over the next term, cutting one day at a time.", 'transition', 0.66),
    ('Rae', 'Our team tracks tickets in Jira.', "We're in the process of moving our tickets from Jira to Linear.", 'transition', 0.7),
    ('Sol', 'I smoke about a pack a day.', "I'm on nicotine patches now and down to five cigarettes a day, getting there.", 'transition', 0.64),
    pytest.param('Tam', 'I live with my parents.', 'Been moving my stuff into my own flat bit by bit this month.', 'transition', 0.15, marks=MISS),  # read as none
    ('Uma', 'I study law at Leeds.', "I'm partway through transferring from law to economics, the paperwork goes through in June.", 'transition', 0.43),
    ('Vic', 'I bank with Barclays.', "I've begun moving my accounts from Barclays over to Monzo, about halfway done.", 'transition', 0.62),
    pytest.param('Wes', "I'm vegan.", "I've started reintroducing fish, one meal a week for now, and plan to add more.", 'transition', 0.28, marks=MISS),  # read as none
    ('Xan', "I'm training for a marathon.", "I'm winding down my marathon training and shifting my focus to triathlon over the next few months.", 'transition', 0.76),
    ('Yul', 'I work nights at the hospital.', "I'm in the middle of a changeover from nights to day shifts, two more weeks to go.", 'transition', 0.56),
    ('Zed', 'I write my novels by hand.', "I'm learning to draft on a laptop instead of by hand, it's slow going but I'm getting used to it.", 'transition', 0.44),
    ('Ada', 'I run 20 km a week.', "I'm building my running back up after the injury, currently at 8 km a week and adding a bit each week.", 'transition', 0.58),
    pytest.param('Bo', 'My kids go to Hillside Primary.', 'The kids are switching schools from Hillside to Oakfield, the older one moves first, the younger one after Easter.', 'transition', 0.57, marks=MISS),  # read as supersede
    ('Cy', "I'm a sales rep at Acme.", "I'm handing over my sales accounts at Acme this month before I start in marketing.", 'transition', 0.79),
    ('Di', 'I cook every evening.', "I'm gradually handing the cooking over to my partner, I only cook twice a week now.", 'transition', 0.69),
    ('Ed', "I'm learning French.", "I've been phasing French out of my study time in favour of Japanese.", 'transition', 0.58),
    ('Flo', 'I sleep about 6 hours a night.', "I'm shifting my bedtime earlier, at about 7 hours now and aiming for 8.", 'transition', 0.47),
    ('Gil', 'My hair is long.', "I've been growing my hair out short... I mean cutting it shorter in stages, it's at shoulder length now.", 'transition', 0.65),
    ('Hana', "I'm vegetarian.", "The one exception is my grandma's fish stew at Christmas.", 'scoped_exception', 0.28),
    ('Ivo', 'I go to bed around 11.', 'On Fridays I stay up till 1 or so.', 'scoped_exception', 0.53),
    pytest.param('Jas', 'I work from home.', 'Tuesdays and Thursdays I go into the office.', 'scoped_exception', 0.35, marks=MISS),  # read as none
    pytest.param('Kai', "I don't drink alcohol.", "I'll have a glass of champagne at weddings, and that's it.", 'scoped_exception', 0.36, marks=MISS),  # read as none
    ('Lin', 'I cycle to work.', 'When the roads are icy I take the tram instead of cycling.', 'scoped_exception', 0.4),
    ('Max', 'I run in the mornings.', 'In the heat of July I move my runs to the evening.', 'scoped_exception', 0.61),
    ('Ned', "I'm gluten-free.", "I make an exception for my mum's birthday cake.", 'scoped_exception', 0.15),
    ('Ola', 'I wake up at 6.', 'Weekends are for sleeping in until 9.', 'scoped_exception', 0.47),
    ('Pat', 'I take the bus to work.', "If I'm running late I grab a taxi instead.", 'scoped_exception', 0.47),
    ('Rio', 'I speak English at work.', "With my Madrid colleagues it's Spanish, though.", 'scoped_exception', 0.36),
    pytest.param('Sam', 'I drink my coffee black.', "After dinner I'll take it with a splash of cream.", 'scoped_exception', 0.29, marks=MISS),  # read as none
    pytest.param('Tia', 'I swim three times a week.', 'During exam season it drops to once a week.', 'scoped_exception', 0.27, marks=MISS),  # read as none
    ('Udo', 'I never eat sugar.', 'Birthdays are my cheat days, cake included.', 'scoped_exception', 0.15),
    ('Val', "I'm a morning person.", "Saturdays excepted - that's my lie-in day.", 'scoped_exception', 0.26),
    pytest.param('Wyn', 'I use my phone for everything.', 'For long emails I still need the laptop.', 'scoped_exception', 0.34, marks=MISS),  # read as none
    pytest.param('Xia', 'My favourite tea is green tea.', "When I have a cold, it's ginger tea every time.", 'scoped_exception', 0.62, marks=MISS),  # read as none
    ('Yan', 'I walk the dog at 7.', "On school days it's more like 6:30.", 'scoped_exception', 0.39),
    pytest.param('Zoe', "I drive to my parents' place.", 'For the winter visits we take the train though.', 'scoped_exception', 0.3, marks=MISS),  # read as none
    ('Ines', 'I eat meat most days.', 'My sister is slowly going vegetarian.', 'none', 0.47),
    ('Jon', 'I live in Denver.', 'Thinking about maybe moving to Austin one day.', 'none', 0.25),
    ('Kit', 'I play the violin in a quartet.', 'Our quartet is slowly learning a new Haydn piece.', 'none', 0.41),
    ('Lou', 'I drink four coffees a day.', 'Had my four coffees today, as always.', 'none', 0.78),
    ('Mo', 'I use Windows on my home computer.', 'My brother is halfway through moving his laptop to Linux.', 'none', 0.33),
    ('Hana', "I'm vegetarian.", 'My brother makes an exception for bacon, funny guy.', 'none', 0.42),
    ('Jas', 'I work from home.', 'Working from home again today, love it.', 'none', 0.59),
    ('Max', 'I run in the mornings.', 'Did my morning run by the river, beautiful sunrise.', 'none', 0.43),
    ('Sol', 'I smoke about a pack a day.', 'Should I try to quit smoking? Everyone says so.', 'none', 0.54),
    ('Quin', 'I teach full-time at the high school.', 'Grading essays all weekend, the usual.', 'none', 0.22),
    pytest.param('Aiko', 'I take the train to the office.', "I'm gradually switching over to cycling in, three days out of five so far.", 'transition', 0.21, marks=MISS),  # read as none
    ('Bram', 'I eat dinner at 9.', "We're shifting dinner earlier bit by bit, it's at 8 now and we want 7.", 'transition', 0.52),
    ('Cleo', 'I work at the bakery on Elm Street.', "I'm working out my notice at the bakery, two more weeks to go before the new job.", 'transition', 0.6),
    pytest.param('Dov', 'My phone is an iPhone.', "I'm switching to an Android, still moving my photos across.", 'transition', 0.39, marks=MISS),  # read as none
    ('Esa', 'I lift weights five days a week.', "I'm easing off the weights, down to three days a week for now, with more yoga instead.", 'transition', 0.64),
    ('Fen', "I'm a freelance designer.", "I'm slowly moving from freelance work to a staff job, half my clients are already handed over.", 'transition', 0.6),
    ('Gwen', 'I drink whole milk.', "We're phasing out whole milk in favour of oat milk, one carton at a time.", 'transition', 0.5),
    pytest.param('Hugo', 'My band plays rock covers.', "The band's moving toward original songs, we've swapped out half the covers so far.", 'transition', 0.53, marks=MISS),  # read as supersede
    ('Ivy', 'I read mostly thrillers.', "Lately I'm drifting away from thrillers toward history books, more and more.", 'transition', 0.77),
    ('Jude', 'I weigh 95 kilos.', 'Down to 88 kilos so far, aiming for 80 by summer.', 'transition', 0.52),
    ('Kofi', "I'm teetotal.", 'The only time I drink is a toast at a wedding.', 'scoped_exception', 0.28),
    ('Lena', 'I walk to work.', 'On rainy days I take the bus instead.', 'scoped_exception', 0.38),
    pytest.param('Mika', 'I do my shopping at Aldi.', 'For wine I go to the little shop on the corner, though.', 'scoped_exception', 0.47, marks=MISS),  # read as none
    ('Nils', 'I start work at 8.', "On Mondays it's more like 7, for the team call.", 'scoped_exception', 0.39),
    ('Omar', "I don't eat red meat.", "My one exception is my dad's barbecue in August.", 'scoped_exception', 0.26),
    pytest.param('Pilar', 'I keep my phone on silent.', "When I'm on call it stays on loud.", 'scoped_exception', 0.65, marks=MISS),  # read as none
    ('Rory', 'I train at the gym downtown.', 'In the summer months I train in the park instead.', 'scoped_exception', 0.56),
    ('Sina', 'I sleep eight hours a night.', "During crunch weeks it's more like five hours a night.", 'scoped_exception', 0.42),
    ('Tove', 'I answer emails only in the mornings.', 'Fridays are the exception, I clear my inbox in the afternoon.', 'scoped_exception', 0.5),
    ('Ugo', 'I write in English at work.', 'With the Milan office I switch to Italian.', 'scoped_exception', 0.33),
    ('Aiko', 'I take the train to the office.', "On Fridays we have cake at the office, it's the best.", 'none', 0.35),
    ('Bram', 'I eat dinner at 9.', 'Dinner tonight was lasagne, so good.', 'none', 0.3),
    ('Cleo', 'I work at the bakery on Elm Street.', "When it's busy the queue goes out the door!", 'none', 0.14),
    ('Dov', 'My phone is an iPhone.', 'My brother is slowly switching to an Android.', 'none', 0.33),
    ('Esa', 'I lift weights five days a week.', 'Do you lift on weekends too?', 'none', 0.67),
    ('Fen', "I'm a freelance designer.", 'I might move to a staff job someday, who knows.', 'none', 0.5),
    ('Gwen', 'I drink whole milk.', 'My kids drink oat milk on weekdays, funny kids.', 'none', 0.49),
    ('Hugo', 'My band plays rock covers.', 'We played the pub on Saturday, packed house.', 'none', 0.19),
    ('Ivy', 'I read mostly thrillers.', "At the beach I read whatever's lying around, it was fun last week.", 'none', 0.42),
    ('Kofi', "I'm teetotal.", "My friends drink at weddings, I'm the designated driver.", 'none', 0.27),
    ('Lena', 'I walk to work.', 'You should take the bus when it rains!', 'none', 0.34),
    ('Mika', 'I do my shopping at Aldi.', "Aldi's opening a new store in the spring.", 'none', 0.7),
    ('Nils', 'I start work at 8.', 'I love mornings in the summer, the light is great.', 'none', 0.19),
    ('Omar', "I don't eat red meat.", 'On weekends I go hiking with my cousins.', 'none', 0.11),
    ('Pilar', 'I keep my phone on silent.', 'My phone is so old, the battery barely lasts.', 'none', 0.39),
    ('Rory', 'I train at the gym downtown.', 'The gym downtown is packed on Mondays, though.', 'none', 0.64),
    ('Sina', 'I sleep eight hours a night.', 'I had a weird dream about exams last night.', 'none', 0.27),
    ('Tove', 'I answer emails only in the mornings.', 'In the afternoons I usually go for a walk, though.', 'none', 0.43),
    ('Ugo', 'I write in English at work.', "I'm slowly learning Italian, three lessons so far.", 'none', 0.22),
    ('Jude', 'I weigh 95 kilos.', 'Went for a long run in the rain, felt great.', 'none', 0.09),
]


def _action(speaker: str, old: str, new: str, a: float) -> str:
    o = Record(id="o", namespace="t", text=old, speaker=speaker)
    n = Record(id="n", namespace="t", text=new, speaker=speaker)
    return fallback_verdict(o, n, GateScore(a=a, b=None, d=None, escalate=True), why="test").action


@pytest.mark.parametrize("speaker,old,new,expected,a", PAIRS)
def test_rule_reads_changes_under_way_and_scopes(speaker: str, old: str, new: str, expected: str, a: float) -> None:
    assert _action(speaker, old, new, a) == expected


def test_aspect_doctests() -> None:
    assert doctest.testmod(atma.aspect).failed == 0


@pytest.mark.parametrize("sentence", [
    "I'm cutting down on the weights, three days a week so far.",
    "We're shifting dinner earlier bit by bit, it's at 8 now and we want 7.",
    "I'm starting to switch from violin to viola.",
    "I'm working out my notice at the bakery, two more weeks to go.",
])
def test_under_way_finds_a_change_not_finished(sentence: str) -> None:
    assert under_way(sentence)


@pytest.mark.parametrize("sentence", [
    "I switched to decaf and so far it's great.",   # done: "so far" tells how it goes
    "We're moving to Austin next week.",            # a plan with a date, nothing under way yet
    "I've started a new painting, slowly.",         # no change word
    "So far the move has been smooth.",
])
def test_under_way_ignores_done_changes_and_other_progress(sentence: str) -> None:
    assert not under_way(sentence)


@pytest.mark.parametrize("sentence,cue", [
    ("Birthdays are my cheat days, cake included.", "exception"),
    ("Fridays are the exception, I clear my inbox in the afternoon.", "exception"),
    ("During crunch weeks it's more like five hours a night.", "situation"),
    ("When I'm on call it stays on loud.", ""),  # a when-clause without a contrast word: talk is full of them
    ("When the roads are icy I take the tram instead.", "situation"),
    ("I went to the market on Fridays.", ""),
    ("The weather was lovely in July.", ""),
])
def test_scope_cue(sentence: str, cue: str) -> None:
    assert scope_cue(sentence) == cue


def test_someone_elses_change_under_way_changes_nothing() -> None:
    # "is" between the other person and the change word: was read as the speaker's own transition
    assert _action("Ines", "I eat meat most days.", "My sister is slowly going vegetarian.", 0.47) == "none"
