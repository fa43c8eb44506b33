import json
from datetime import datetime

import pytest

from atma.judge import JUDGE_SCHEMA, Verdict, fallback_verdict, judge_messages, parse_verdict, plan_commit
from atma.protocols import GateScore
from atma.records import Action, Record, Status


def rec(i, text, speaker="Dana", **kw):
    return Record(id=i, namespace="u", text=text, speaker=speaker, slot=kw.pop("slot", i), **kw)


GOOD = {"reason": "moved city", "conflict_status": "conflict", "conflict_type": "temporal_update",
        "action": "supersede", "links": ["supersedes"], "clarification_needed": False}


def test_parse_ok_and_fenced():
    assert parse_verdict(json.dumps({**GOOD, "same_attribute": True, "old_still_true": False})).status == "ok"
    assert parse_verdict(json.dumps(GOOD)).verdict.action == "supersede"
    assert parse_verdict("```json\n" + json.dumps(GOOD) + "\n```").status == "ok"


@pytest.mark.parametrize("text,status", [
    ("", "empty"),
    ("not json", "invalid_json"),
    ("[1,2]", "schema_error"),
    (json.dumps({**GOOD, "extra": 1}), "schema_error"),
    (json.dumps({**GOOD, "action": "merge"}), "schema_error"),
    (json.dumps({**GOOD, "links": ["coexists_with"]}), "schema_error"),  # links contradict the action
    (json.dumps({**GOOD, "conflict_status": "no_conflict"}), "schema_error"),  # supersede needs a conflict
    (json.dumps({k: v for k, v in GOOD.items() if k != "action"}), "schema_error"),
    (json.dumps({**GOOD, "same_attribute": False}), "schema_error"),  # supersede across attributes
    (json.dumps({**GOOD, "old_still_true": True}), "schema_error"),  # supersede while the old stays true
])
def test_parse_rejects(text, status):
    p = parse_verdict(text)
    assert p.verdict is None and p.status == status and p.error


def test_schema_matches_model_fields():
    # same_value and confidence are set by the verdict model only, never asked of an LLM
    assert set(JUDGE_SCHEMA["properties"]) == set(Verdict.model_fields) - {"same_value", "confidence"}


def test_prompt_is_pure_and_carries_both_records():
    old, new = rec("r1", "I live in Leeds."), rec("r2", "I moved to Bristol.")
    m1 = judge_messages(old, new, GateScore(a=0.7, b=0.2, d=0.5, escalate=True))
    m2 = judge_messages(old, new, GateScore(a=0.7, b=0.2, d=0.5, escalate=True))
    assert m1 == m2
    body = json.loads(m1[1]["content"])
    assert "Leeds" in body["old_memory"] and "Bristol" in body["new_memory"]
    assert body["sentry"] == {"topic_agreement": 0.7, "logic_compatibility": 0.2}


def test_fallback_supersedes_only_same_person_close_topic_with_change_words():
    old = rec("r1", "I live in Leeds.")
    close = GateScore(a=0.8, b=None, d=None, escalate=True)
    assert fallback_verdict(old, rec("r2", "I moved to Bristol now."), close, why="t").action == "supersede"
    assert fallback_verdict(old, rec("r2", "Leeds has nice parks."), close, why="t").action == "none"
    assert fallback_verdict(old, rec("r2", "I moved to Bristol.", speaker="Sam"), close, why="t").action == "none"
    far = GateScore(a=0.2, b=None, d=None, escalate=True)
    assert fallback_verdict(old, rec("r2", "I moved to Bristol."), far, why="t").action == "none"
    assert "t" in fallback_verdict(old, rec("r2", "x"), far, why="t").reason


def v(action):
    links = {"supersede": ["supersedes"], "transition": ["evolves_from"], "coexist": ["coexists_with"],
             "scoped_exception": ["scoped_exception"], "none": []}[action]
    return Verdict(reason="r", conflict_status="conflict", conflict_type="none", action=action, links=links)


def test_plan_joins_first_slot_and_inherits_coexistence():
    a = rec("r1", "dog", slot="s")
    b = rec("r2", "cat", slot="s")
    new = rec("r3", "the dog died", slot="")
    c = plan_commit(new, [(a, v("supersede"))], {"s": [a, b]})
    assert c.record.slot == "s"
    assert [(ch.action, ch.old_id) for ch in c.changes] == [(Action.SUPERSEDE, "r1"), (Action.COEXIST, "r2")]


def test_plan_skips_none_duplicates_and_stale():
    a = rec("r1", "x", slot="s")
    stale = rec("r2", "y", slot="s", status=Status.SUPERSEDED)
    new = rec("r3", "z", slot="")
    c = plan_commit(new, [(a, v("none")), (stale, v("supersede")), (a, v("coexist")), (a, v("supersede"))], {"s": [a, stale]})
    assert [(ch.action, ch.old_id) for ch in c.changes] == [(Action.COEXIST, "r1")]
    assert plan_commit(new, [], {}).record.slot == ""


def test_doctests():
    import doctest

    import atma.judge

    assert doctest.testmod(atma.judge).failed == 0


def test_admission_and_pair_prefilter():
    from atma.judge import admission, pair_prefilter

    assert admission("Wow!") == "too short to state a fact"
    assert admission("Did you finally move to Bristol?") == "a question states no fact"
    assert admission("I finally moved to Bristol last week.") is None
    assert pair_prefilter(rec("r1", "x", speaker="Dana"), rec("r2", "y", speaker="Sam")) == "different speakers"
    assert pair_prefilter(rec("r1", "x", speaker=""), rec("r2", "y", speaker="Sam")) is None


# The anchored rule on pairs written for these tests (own wording; no benchmark strings).
_RULE_CHANGES = [
    ("I keep two hamsters called Biscuit and Mochi.", "No more hamsters for me - Biscuit and Mochi went to my niece."),
    ("My rent is $950 a month for the studio.", "Rent went up, I'm paying $1,100 a month now."),
    ("I'm learning Italian on the bus every morning.", "I switched from Italian to Japanese, starting from scratch."),
    ("Saturdays I swim laps at the leisure centre.", "I stopped swimming laps, my shoulder can't take it."),
    ("I work the night shift at the depot.", "I don't work nights at the depot anymore, days only now."),
]
_RULE_NO_CHANGE = [
    ("Thanks, Priya! Your support means the world to me.", "Thanks, Priya! I won't quit, you keep me going!"),
    ("Loved the photos from your trip, Omar!", "Have you made any more trips lately, Omar?"),
    ("I went to a pottery class last week, so relaxing.", "I feel the same way about art, it helps us connect."),
    ("My sister lives in Porto.", "My brother moved to Lyon last spring."),  # another person's news, no anchor
    ("I love my morning run by the canal.", "You ran a marathon? That's amazing, I'm so proud of you!"),
    # the old text holds no state of its speaker: a question, a greeting, a remark about the other person
    ("Wow! What got you into running?", "Trail running was my thing for ages, but it's surfing these days."),
    ("Hey Sam! Good to talk to you again. Anything new since last time?",
     "Hey Sam, I've moved on from the old job, I work at the bakery now."),
    ("Glad the photo made you feel that way. Cherish those little moments!",
     "I used to hate photos of myself, but now I love taking them."),
]


def _pair(old_text, new_text, a=0.7, old_speaker="Dana", new_speaker="Dana"):
    from atma.protocols import GateScore
    from atma.records import Record

    old = Record(id="r1", namespace="u", text=old_text, speaker=old_speaker)
    new = Record(id="r2", namespace="u", text=new_text, speaker=new_speaker)
    return fallback_verdict(old, new, GateScore(a=a, b=None, d=None, escalate=True), why="test")


def test_anchored_rule_retires_a_state_the_new_statement_names():
    for old, new in _RULE_CHANGES:
        v = _pair(old, new)
        assert v.action == "supersede" and v.confidence is not None, (old, new)


def test_anchored_rule_ignores_chit_chat_negated_changes_and_questions():
    for old, new in _RULE_NO_CHANGE:
        assert _pair(old, new).action == "none", (old, new)
    old, new = _RULE_CHANGES[0]
    assert _pair(old, new, new_speaker="Sam").action == "none"  # another speaker's words
    assert _pair(old, new, a=0.1).action == "none"  # another topic altogether


def test_one_write_commits_its_strongest_change_only():
    from atma.judge import Verdict, keep_strongest_changes
    from atma.records import Record

    recs = [Record(id=f"r{i}", namespace="u", text=f"t{i}") for i in range(3)]
    v = [Verdict(action="supersede", conflict_status="conflict", conflict_type="temporal_update", links=["supersedes"],
                 confidence=c) for c in (0.6, 0.9, 0.7)]
    kept = keep_strongest_changes(list(zip(recs, v)), 1)
    assert [x.action for _, x in kept] == ["none", "supersede", "none"]
    assert [x.action for _, x in keep_strongest_changes(list(zip(recs, v)), None)] == ["supersede"] * 3


@pytest.mark.parametrize("new,olds,kept", [
    # found on own scenarios (eval.named_scenarios): the record about the new value outranked the ended one
    ("Daniel and I split up in spring; I'm with Sam now.",
     ["My partner is Daniel, we met at a wedding.", "Introduced Sam to my parents."], 0),
    ("We rehomed Biscuit with my parents' farm, it's just our kitten Pickle now.",
     ["Our dog Biscuit is a beagle, he is a menace with socks.", "We named the kitten Pickle."], 0),
    # no part that says what holds now: confidence alone decides, as before
    ("I moved to York last month.", ["I rent a flat in Leeds.", "Leeds rent is steep."], 1),
    # no shared name, or a name outside the "now" part too: confidence decides (a words-based
    # version of this ranking cost LTP dev four updates: "these days, not 4", "now and then")
    ("Reading pace update: I'm at 6 books a month these days, not 4.",
     ["I read about 4 books a month.", "Books before bed are my thing."], 1),
    ("I still like travel writing now and then, but lately Hilary Mantel is my favourite.",
     ["Give me travel writing and a rainy day.", "Reading Hilary Mantel on the train."], 1),
])
def test_the_change_anchored_in_what_ended_outranks_one_about_the_new_value(new, olds, kept):
    from atma.judge import Verdict, keep_strongest_changes
    from atma.records import Record

    recs = [Record(id=f"r{i}", namespace="u", text=t) for i, t in enumerate(olds)]
    v = [Verdict(action="supersede", conflict_status="conflict", conflict_type="temporal_update", links=["supersedes"],
                 confidence=c) for c in (0.6, 0.9)]  # the second pair is the more confident
    out = keep_strongest_changes(list(zip(recs, v)), 1, new)
    assert [i for i, (_, x) in enumerate(out) if x.action == "supersede"] == [kept]
    assert keep_strongest_changes(list(zip(recs, v)), 1)[1][1].action == "supersede"  # without the text: confidence


# Written for the rule's counted-things, change-sentence and contrast anchors (own wording, not LTP's).
_COUNTED_CHANGES = [
    ("I work as a paralegal at a small firm downtown.", "I'm not a paralegal anymore - I started law school in September."),
    ("On weekends I usually go bouldering with my cousin.", "My weekend thing is pottery now, not bouldering."),
    ("I walk about 8,000 steps a day on average.", "These days I'm doing closer to 12,000 steps a day."),
    ("I've made coffee at Nola's for two years, mostly early shifts.", "Huge week. I quit! Nola's was draining me."),
]
_COUNTED_NO_CHANGE = [
    # one unit, two different counted things
    ("I swim about 3 km a week at the lido.", "These days I cycle about 60 km a week, mostly to work."),
    ("I sleep around 8 hours most nights.", "Lately my alarm goes off at 6:15 and I'm up right away."),
    # the change is said about something else than the shared word
    ("I love my pottery class on Tuesdays, the teacher is great.",
     "Pottery class was great again this week. Unrelated, but I quit my gym membership last month."),
]


def test_rule_numbers_anchor_one_counted_thing_where_the_change_is_said():
    for old, new in _COUNTED_CHANGES:
        assert _pair(old, new).action == "supersede", (old, new)
    for old, new in _COUNTED_NO_CHANGE:
        assert _pair(old, new).action == "none", (old, new)


def test_cheap_judge_also_sees_close_pairs_the_gate_does_not_escalate():
    from atma import ATMAOverlay, OverlayConfig
    from atma.judging import RuleJudge
    from atma.sentry import CosineGate
    from atma.testing import HashEmbedder, InMemoryHost

    changes = {}
    for close in (0.0, None):
        emb = HashEmbedder()
        gate = CosineGate(emb, threshold=1.01)  # escalates nothing
        ov = ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", gate=gate, judge=RuleJudge(),
                         config=OverlayConfig(close_pair_a=close))
        ov.add("I drink about 6 cups of coffee a day.", time="2024-01-10T10:00", speaker="Dana")
        res = ov.add("Turns out I'm down to 2 cups of coffee a day.", time="2024-06-02T10:00", speaker="Dana")
        assert not res.trace.candidates[0].escalate
        changes[close] = res.trace.changes
    assert changes[0.0] == ({"action": "supersede", "old_id": "r1"},)
    assert changes[None] == ()


# Own update wording, written for the rule's vocabulary (not LTP's templates): varied ways of saying
# a state ended, and same-topic news that ends nothing (other people's changes, intentions, events).
_OWN_CHANGES = [
    ("I teach third grade at Maple Elementary, it's exhausting but fun.",
     "I handed in my notice at Maple Elementary - I'm a school librarian now."),
    ('My partner Theo and I have been together three years.',
     'Theo and I broke up last month, it was mutual.'),
    ("I'm vegetarian, have been since college.",
     "I started eating fish again, so I guess I'm pescatarian these days."),
    ("I drive a 2009 Honda Civic, she's held up well.",
     'I finally sold the Civic and bought an e-bike for getting around.'),
    ("We live in a two-bed flat in Glasgow's west end.",
     "We've moved out of the Glasgow flat; we're renting a cottage in Fife now."),
    ("I'm learning Portuguese on an app every morning.",
     'I gave up on Portuguese - switched to learning Korean instead.'),
    ('I volunteer at the food bank on Saturdays.',
     "I stopped volunteering at the food bank, my Saturdays are taken by my daughter's football."),
    ('I drink three cans of cola a day, terrible I know.',
     "I've cut cola completely - it's sparkling water for me now."),
    ("I'm a night-shift nurse at St Mary's.",
     "I switched to day shifts at St Mary's, finally sleeping like a human."),
    ('I play five-a-side football every Tuesday.',
     "My knee's done, so no more five-a-side for me."),
    ("I'm reading about 2 books a month these days.",
     "I've been reading 6 books a month since I joined the library club."),
    ('My go-to lunch is a tuna sandwich.',
     "I'm over tuna sandwiches - my go-to lunch is a burrito bowl now."),
    ('I rent a room from my aunt in Leeds.',
     'I no longer live with my aunt - I got my own place in Leeds.'),
    ('I run a small Etsy shop selling candles.',
     "I closed the Etsy shop; candles weren't paying the bills."),
    ('My phone is an old iPhone 8.',
     'I replaced the iPhone 8 with a Pixel last week.'),
    ('I sleep about 6 hours a night.',
     "These days I'm getting a solid 8 hours of sleep a night."),
    ('I bike to work most days.',
     "I've ditched the bike, I take the train to work now."),
]
_OWN_NO_CHANGE = [
    ('I teach third grade at Maple Elementary.',
     'The kids at Maple made me a card today, so sweet.'),
    ("I'm vegetarian, have been since college.",
     "Do you have any good vegetarian recipes? I'm out of ideas."),
    ('I drive a 2009 Honda Civic.',
     'The Civic needed new tyres this week, cost a fortune.'),
    ('We live in a two-bed flat in Glasgow.',
     'It rained all day in Glasgow, I stayed in and baked.'),
    ('I do about 4 hours of piano practice a week.',
     'I played the Chopin nocturne for my mum and she cried.'),
    ('I run about 20 km a week.',
     'I walked 12,000 steps today exploring the old town.'),
    ('My cat Miso is 14.',
     'Miso knocked a plant off the shelf again this morning.'),
    ("I'm a night-shift nurse at St Mary's.",
     "A patient brought us chocolates at St Mary's tonight."),
    ('I read 2 books a month.',
     'I used to think audiobooks were cheating, but my brother loves them.'),
    ('I volunteer at the food bank on Saturdays.',
     'Saturday at the food bank was busy, we packed 300 boxes.'),
    ('My favourite band is Wolf Alice.',
     "Wolf Alice announced a new tour, I'm so excited!"),
    ("I work as a barista at Nola's.",
     "It changed my perspective on tipping, working at Nola's."),
    ("I've been learning Portuguese.",
     'My friend switched to learning Italian, she loves it.'),
    ('I rent a room from my aunt in Leeds.',
     'My aunt moved her sewing table into the living room, it looks great.'),
    ('I drink three cans of cola a day.',
     "Now that it's summer I keep the cola in the fridge."),
]


def test_rule_reads_varied_change_wording_and_ignores_others_changes_and_intentions():
    missed = [(o, n) for o, n in _OWN_CHANGES if _pair(o, n).action != "supersede"]
    fired = [(o, n) for o, n in _OWN_NO_CHANGE if _pair(o, n).action != "none"]
    assert not missed and not fired, (missed, fired)
    assert _pair("I drink three cans of cola a day.", "I'm trying to cut out cola completely.").action == "none"
    assert _pair("I play squash with Dev every Thursday.",
                 "Dev isn't my squash partner anymore because he moved away. I play with Ana now.").action == "supersede"


def test_cheap_judge_also_sees_pairs_that_share_a_name():
    from atma import ATMAOverlay, OverlayConfig
    from atma.judging import RuleJudge
    from atma.sentry import CosineGate
    from atma.testing import HashEmbedder, InMemoryHost

    emb = HashEmbedder()
    ov = ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", gate=CosineGate(emb, threshold=1.01),
                     judge=RuleJudge(), config=OverlayConfig(close_pair_a=1.01))  # neither gate nor a lets it in
    ov.add("Living in Nashville has its perks, there's always live music.", time="2024-01-10T10:00", speaker="Tim")
    res = ov.add("So I don't live in Nashville anymore - I relocated to Denver.", time="2024-06-02T10:00", speaker="Tim")
    assert res.trace.candidates[0].a < 1.01 and not res.trace.candidates[0].escalate
    assert [c.old_id for c in res.trace.judge] == ["r1"]  # judged (the rule then weighs topic and wording)
    other = ov.add("The bagels here are great, who knew.", time="2024-06-03T10:00", speaker="Tim")
    assert other.trace.judge == ()  # no shared name, no close gate score: not judged


class _FlatGate:
    """Every pair at one topic score, none escalated: only what the overlay itself picks is judged."""

    name = "flat"
    cache_key = "flat"

    def __init__(self, emb, a):
        self.emb, self.a = emb, a

    def features(self, texts):
        return self.emb.encode(list(texts))

    def route(self, new, olds):
        from atma.protocols import GateScore
        return [GateScore(a=self.a, b=None, d=None, escalate=False) for _ in range(len(olds))]


@pytest.mark.parametrize("named_k,changed", [(4, True), (0, False)])
def test_a_statement_that_names_what_ended_searches_for_it(named_k, changed):
    # "No more tap dance for me, I signed up for bachata classes": the write's search follows the
    # new value's words, and five turns about signing up for classes push the old statement out
    # of the three candidates; the second search, for the ended name, brings it back and it is judged.
    from atma import ATMAOverlay, OverlayConfig
    from atma.judging import RuleJudge
    from atma.testing import HashEmbedder, InMemoryHost

    emb = HashEmbedder()
    ov = ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", gate=_FlatGate(emb, 0.5), judge=RuleJudge(),
                     config=OverlayConfig(candidate_k=3, close_pair_a=0.9, named_search_k=named_k))
    ov.add("My Friday nights are tap dance nights now, who even am I?", time="2023-03-16T14:41", speaker="Jon")
    for i, t in enumerate(["Signed up for a pottery class for me and my sister.",
                           "I'm hooked on these cooking classes, signed up again.",
                           "The classes for me at the studio are hooked on Mondays.",
                           "I signed up for a 10k run, I'm hooked on running.",
                           "Signed up for Spanish classes for me, I'm hooked."]):
        ov.add(t, time=f"2023-04-0{i + 1}T10:00", speaker="Jon")
    res = ov.add("Update on my end: No more tap dance for me, I signed up for bachata classes and I'm hooked.",
                 time="2023-07-09T13:30", speaker="Jon")
    assert ("r1" in {c.id for c in res.trace.candidates}) is changed
    assert res.trace.changes == (({"action": "supersede", "old_id": "r1"},) if changed else ())
    assert [c.old_id for c in res.trace.judge] == (["r1"] if changed else [])  # the classes turns are not judged


def test_named_old_values_reads_what_ended():
    from atma.judge import named_old_values
    assert named_old_values("Update on my end: No more tap dance for me, I signed up for bachata.") == ["tap dance"]
    assert named_old_values("I quit my job at the bakery.") == ["job at the bakery"]
    assert named_old_values("I no longer live in Bergen.") == ["live in bergen"]
    assert named_old_values("It's bachata now, not salsa.") == ["salsa"]
    assert named_old_values("Drinking oat milk instead of cow's milk these days.") == ["cow's milk"]
    for text in ("I left early yesterday.", "I stopped by the shop.", "Dropped him a line.", "I love my new flat.",
                 "No more questions?"):
        assert named_old_values(text) == [], text


def test_a_greeted_name_is_no_shared_name():
    # "Hey John," opens both turns: the name addressed is not what either statement is about
    old = "Hey John, been a while. I donated my old car to a shelter I volunteer at yesterday."
    new = "Hey John, great news - I'm now friends with one of my fellow volunteers!"
    assert _pair(old, new, a=0.66).action == "none"
    # a name in the statements themselves still anchors
    assert _pair("Been a while. I volunteer at the Eastside shelter on Sundays.",
                 "Great news - I'm now coordinating volunteers at Eastside!", a=0.66).action == "supersede"


def test_now_with_the_same_attribute_restated_is_a_change():
    # weak wording ("now") with no number or name: a close restatement of one attribute family
    old, new = "I live in a small flat in Leeds with my cat.", "Now I live in a small flat in Bristol with my cat."
    assert _pair(old, new, a=0.9).action == "supersede"
    assert _pair(old, new, a=0.7).action == "none"  # not close enough to be the same statement


# Own pairs for the rule's other verdicts (written for this, not the audit generator's templates):
# a change under way (transition), the old value kept within a scope, one more value beside the
# old one, the same statement said again with a new value, and corrections.
_OWN_KINDS = {
    "transition": [
        ("I teach Year 4 at Hillside Primary.", "I'm halfway through retraining as a midwife, still teaching two days a week."),
        ("We rent a flat above the bakery on Mill Street.", "We're in the process of buying a house in Ashby, the flat goes back in May."),
        ("I smoke about 10 cigarettes a day, I know.", "Gradually cutting down - from 10 a day to 4 at the moment."),
        ("My main language at home is Polish.", "We're slowly switching to English at home so the kids catch up at school."),
        ("I drink 3 coffees a day.", "I'm weaning myself off coffee, bit by bit; 3 a day is too many."),
        ("I run my own catering business.", "I'm phasing out the catering business and easing into teaching cookery classes."),
    ],
    "scoped_exception": [
        ("I cycle to work every day.", "I cycle to work, except when it snows - then it's the bus."),
        ("I drink 2 coffees a day.", "On weekdays it's 2 coffees; on weekends I have 4."),
        ("I'm vegetarian.", "Still vegetarian, apart from fish when I visit my parents on the coast."),
        ("My office is in Canary Wharf.", "I'm in the Canary Wharf office only on Tuesdays and Thursdays; otherwise I work from home."),
        ("I get up at 6 every morning.", "Up at 6 still, just not at weekends."),
        ("Bingo sleeps in my room.", "Bingo only sleeps in my room in winter, when it's cold."),
    ],
    "coexist": [
        ("I play the cello in an orchestra.", "Besides the cello, I've picked up the mandolin for fun."),
        ("My favourite author is Ursula Le Guin.", "N. K. Jemisin is up there too, alongside Le Guin."),
        ("We have a tabby cat called Fig.", "Fig has company now: we adopted a second cat called Olive."),
        ("I volunteer at the animal shelter.", "On top of the shelter, I've also started volunteering at the library."),
        ("I speak Spanish fluently.", "I also speak Portuguese now, as well as Spanish."),
    ],
    "supersede": [  # the same statement with a new value, or a correction, no change word needed
        ("I live in Lisbon.", "I live in Valencia these days."),
        ("My rent is 900 pounds a month.", "My rent is 1050 pounds a month."),
        ("I sleep about 6 hours a night.", "Realistically I sleep about 8 hours a night."),
        ("I work as a paralegal.", "Sorry, I got that wrong - I work as a legal secretary."),
        ("My favourite band is Wilco.", "My favourite band is Big Thief now."),
        ("My commute is 40 minutes.", "Let me correct that: my commute is 25 minutes."),
        ("Dana works as a barista.", "I work as a florist."),
        # found on own acknowledgement scenarios (dev): a two-digit number after "down to", and a
        # change that names the old value with its subject left out
        ("Getting to work takes me 25 minutes.", "With the new route my commute is down to 35 minutes, not 25 minutes."),
        ("Saturdays are my gym days.", "No more Saturdays at the gym - it's Tuesdays now."),
    ],
    "none": [  # same topic, no change of the old value
        ("I live in Lisbon.", "I love walking around Lisbon in the evening."),
        ("I work as a paralegal.", "Work was brutal today, three filings due."),
        ("I went to Paris in May.", "I went to Rome in June."),
        ("I'm a nurse.", "I'm so tired after the night shift."),
        ("I drink 2 coffees a day.", "My sister drinks 5 coffees a day, madness."),
        ("I have a dog called Rex.", "I have a cat called Luna as well."),
        ("I live in Lisbon.", "I might move to Valencia one day."),
        ("My commute is 40 minutes.", "The commute was 40 minutes again today, ugh."),
        # found replaying dev profiles 1 and 4: a change with no subject that names no old value
        ("I collect Harry Potter games and figurines.", "So much has changed since last time! Got new games for the shelf."),
        # found replaying dev profiles 0 and 1: "in the middle of" a place, a noun "transitioning"
        ("I dance with the Riverside studio crew.", "Here's the Riverside crew after the show, me in the middle of the front row!"),
        ("Counselling taught me to accept myself and ask for support.",
         "Transitioning wasn't easy, but the support I got from friends was everything."),
    ],
}


def test_rule_reads_transitions_scopes_added_values_and_restated_values():
    wrong = [(want, o, n, _pair(o, n).action) for want, pairs in _OWN_KINDS.items() for o, n in pairs
             if _pair(o, n).action != want and not (want == "coexist" and _pair(o, n).action == "coexist")]
    assert not wrong, wrong


def test_a_thing_moved_is_no_move_of_the_speaker():
    # found on own scenarios (eval.named_scenarios) after the rule was frozen: "Moved my direct
    # debits over" retired "I'm renting a room in a shared house in Leeds"
    home = "I'm renting a room in a shared house in Leeds."
    for new in ("Moved my direct debits over.", "I moved all my photos to the cloud.",
                "Moving the sofa to the other wall made the room feel bigger."):
        assert _pair(home, new, a=0.6).action == "none", new
    # a household moved, the old value's own thing moved, or the speaker moved: still changes
    assert _pair(home, "We moved the whole family to York last month.", a=0.6).action == "supersede"
    assert _pair("Yoga is on Mondays for me.", "Moved my yoga class to Thursdays.", a=0.6).action == "supersede"
    assert _pair("I rent a flat in Leeds.", "We finally moved to York last month!", a=0.6).action == "supersede"
