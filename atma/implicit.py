"""Implicit updates: a statement that presupposes a new value of one of its speaker's states
without saying that anything changed.

"Another long shift as a locksmith today" after "I work as a pharmacist"; "Same routine as
always, 2 books a month" after "I read 6 books a month"; "The vet sent a card after we lost
Tapioca" after "I have a whippet named Tapioca". No change wording, yet the old value no longer
holds. The rule Judge (:func:`atma.judge.fallback_verdict`) asks :func:`implied_change` for
these; each reading needs the old statement's value *and* a frame in the new sentence that
presupposes a different value of the same single-valued state (a job, a home, a partner, a
habitual amount), or that the old value ended (a pet lost, a hobby's gear given away, a liked
thing now disliked or the reverse). Other people's states, questions, plans, wishes and the
past ("when I worked as a waiter") presuppose nothing about the speaker now.

Pure functions over text; no I/O.
"""

from __future__ import annotations

import re

__all__ = ["first_person", "implied_change"]

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\s+[-–—]\s+")
_NUM_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty "
              "fifty sixty hundred").split()
_AMOUNT = re.compile(r"\b(\d+(?:[.,]\d+)?|" + "|".join(_NUM_WORDS) + r")(?:[\s-]+)([a-z]+)", re.IGNORECASE)
_FIRST = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|we|we're|we've|our|us)\b", re.IGNORECASE)
_OTHERS = re.compile(r"^\W*(?:he|she|they|his|her|their|(?:my|our) (?:\w+ )?(?:friend|sister|brother|mum|mom|dad|"
                     r"mother|father|aunt|uncle|son|daughter|kids?|neighbou?r|cousin|colleague|boss|roommate|"
                     r"flatmate|parents|grandma|grandpa|partner|wife|husband))\b", re.IGNORECASE)
# Not a claim about the speaker's state now: a plan, a wish, a condition, the past, a question.
_NOT_NOW = re.compile(
    r"\b(?:if|would|might|maybe|perhaps|wish|hope|hoping|dream|dreaming|someday|one day|want to|wanted to|"
    r"going to|gonna|plan to|planning to|thinking (?:about|of)|used to|back when|when i was|when we were|"
    r"years ago|as a (?:kid|child|teen|teenager|student)|in college|at uni|in school|imagine|pretend|"
    r"former|previous|ex-)\b", re.IGNORECASE)
# A habitual frame: the amount that follows is the speaker's usual one.
_HABITUAL = re.compile(
    r"\b(?:my usual|as usual|per usual|the usual|my regular|my normal|my standard|my typical|my customary|"
    r"same (?:old )?routine|as always|like always|as ever|like clockwork|(?:right )?on schedule|"
    r"as (?:i )?(?:always|usually) do|(?:like|as) every (?:day|week|month|night))\b", re.IGNORECASE)
# Work context for "as a <role>": the speaker works as that now.
_WORK_FRAME = re.compile(
    r"\b(?:(?:at|from|after|before|for) work|(?:my|another|long|late|night|early|double|first|new) "
    r"(?:\w+ )?(?:shift|job|week|day|month|contract|rota|pay ?slip|pay ?check|paycheck|salary|wage)|shift|"
    r"pay ?slip|paycheck|pay ?check|on duty|on call|clocked (?:in|out))\b[^.;!?]{0,30}?\b(?:as|being) (?:a|an) "
    r"([a-z][a-z-]*(?: [a-z][a-z-]*){0,2})", re.IGNORECASE)
_OLD_ROLE = re.compile(r"\b(?:i work|i'm working|i am working|i'm employed|i am employed|my job is|i have a job) "
                       r"as (?:a|an) ([a-z][a-z-]*(?: [a-z][a-z-]*){0,2})", re.IGNORECASE)
_NOT_ROLE = frozenset("""kid child teen teenager whole team family result joke gift treat bonus reminder favour
favor thank thanks first beginner newbie guest volunteer group bit lot matter way rule change""".split())
_ROLE_STOP = re.compile(r"\b(?:today|tonight|this|that|these|at|for|in|on|and|but|with|is|was|so|again|yesterday|"
                        r"my|the|i|we|never|always|which|who|because|after|before|until)\b.*$", re.IGNORECASE)
_OLD_HOME = re.compile(r"\b(?i:(?:i live|i'm living|i am living|i'm based|i am based|we live|my home is|i reside) "
                       r"in) ((?:the )?[A-Z][\w'-]+(?: [A-Z][\w'-]+)*)")
_HOME_FRAME = re.compile(
    r"(?i:(?<!back )(?<!going )(?<!go )(?<!flew )(?<!drove )(?<!trip )\b(?:walking home|cycling home|driving home|"
    r"home|(?:my|our) (?:flat|apartment|house|place|street|neighbou?rhood|building|balcony|garden|landlord|"
    r"local)|living|here)\b[^.;!?]{0,40}?\bin) ([A-Z][\w'-]+)")
_VISIT = re.compile(r"\b(?:visit|visiting|trip|holiday|vacation|conference|staying|stay|for the (?:week|weekend|day)|"
                    r"hotel|airbnb|tourist|sightseeing)\b", re.IGNORECASE)
_CALENDAR = frozenset("""january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday spring summer autumn winter christmas easter""".split())
_PARTNER_WORDS = r"(?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|spouse|other half)"
_OLD_PARTNER = re.compile(rf"\b(?i:married to|dating|engaged to|seeing|with my {_PARTNER_WORDS}|"
                          rf"my {_PARTNER_WORDS}(?:,| is| named| called)?) ([A-Z][a-z]+)")
_SINGLE = re.compile(r"\b(?:i'm|i am|i'm still|i am still) single\b(?!-)", re.IGNORECASE)
_NEW_PARTNER = (
    re.compile(rf"\b(?i:my (?:new |lovely |wonderful )?{_PARTNER_WORDS},?) ([A-Z][a-z]+)"),
    re.compile(r"\b(?i:(?:i'm|i am|we're|we are) (?:now |happily )?(?:married to|engaged to|dating|seeing)) ([A-Z][a-z]+)"),
    re.compile(r"\b([A-Z][a-z]+) and I\b[^.;!?]{0,60}?\b(?:together|anniversary|date night|first date|"
               r"engaged|married|wedding|honeymoon|moved in|our first (?:month|year|week))"),
    re.compile(r"\b(?:at|with) ([A-Z][a-z]+)(?:'s)?\b[^.!?]{0,40}?\b(?i:we(?:'re| are) (?:\w+ )?(?:happy|in love|together))"),
)
_OLD_PET = re.compile(r"\b(?:named|called) ([A-Z][a-z]+)|\b(?i:my (?:\w+ )?(?:dog|cat|puppy|kitten|rabbit|hamster|"
                      r"parrot|budgie|budgerigar|tortoise|whippet|axolotl|horse|pony|lizard|snake|ferret)) ([A-Z][a-z]+)")
_PET_LOST = (r"\b(?:lost|losing|buried|bury|burying|in memory of|memorial for|grave of|ashes of|rip|goodbye to) "
             r"(?:(?:our|my|poor|sweet|dear|little|old|beloved|lovely) )*{name}\b",
             r"\b{name}\b[^.;!?]{{0,25}}?\b(?:passed away|passed on|died|was put down|was put to sleep|"
             r"crossed the rainbow bridge|is gone|left us|didn't make it)")
_GEAR_GONE = re.compile(
    r"\b(?:gear|kit|equipment|stuff|tools|supplies|things|clubs|boots|skates|rackets?|set)\b[^.;!?]{0,20}?"
    r"\b(?:went to (?:the )?(?:charity shop|thrift store|thrift shop|goodwill|tip|dump|car boot)|"
    r"(?:is|are) (?:now )?(?:in the loft|in the attic|in the basement|in storage|in the garage|gathering dust|"
    r"collecting dust|boxed up|for sale|on ebay|in a box)|"
    r"(?:got|have been|has been|was|were) (?:sold|given away|donated|binned))", re.IGNORECASE)
_LIKES = re.compile(r"\b(?:i (?:really |absolutely |just )?(?:love|like|enjoy|adore)|my favou?rite (?:\w+ ){0,2}is|"
                    r"i'm (?:a (?:big |huge )?fan of|into|crazy about|mad about))\b", re.IGNORECASE)
_DISLIKES = re.compile(r"\b(?:i (?:really |absolutely |just )?(?:dislike|hate|detest|loathe|can't stand|cannot stand)|"
                       r"i'm not (?:a fan of|into)|i don't (?:like|enjoy))\b", re.IGNORECASE)
_TURNED_SOUR = re.compile(
    r"\b(?:felt sick|feel sick|made me (?:feel )?sick|lose my appetite|lost my appetite|(?:i'll|i will|i'd) pass|"
    r"turn it off|switch(?:ed)? it off|turned it off|can't stand|couldn't stand|can't bear|couldn't bear|"
    r"i hate|never again|gross|disgusting|put me off|puts me off|not for me any ?more|can't face|makes me gag|"
    r"can't even look at)\b", re.IGNORECASE)
_TURNED_SWEET = re.compile(
    r"\b(?:(?:wonderful|great|amazing|fantastic|brilliant|lovely) time|had a blast|highlight of my|"
    r"planning the next|can't wait to go back|loved it|loved every|love it now|i'm hooked|got hooked|"
    r"can't get enough|obsessed with|won me over|came round to|converted)\b", re.IGNORECASE)
_STOPWORDS = frozenset("""a an the and or but of to in on at for with my our your i we me is am are was were be been
it its this that these those so very really just about from as by into than then too also all any some one
love like enjoy adore dislike hate detest loathe favourite favorite music food hobby main stand fan big huge
works work working job lives live living named called have has had can could how what when where who why
not don't more most much many other""".split())
_THIRD = {"has": "have", "is": "am", "does": "do", "goes": "go", "studies": "study", "'s": "am"}


def first_person(text: str, speaker: str) -> str:
    """``text`` about ``speaker`` said in the first person, as a host that extracts facts stores it
    ("Orla has a whippet named Tapioca." -> "I have a whippet named Tapioca.").

    >>> first_person("Orla works as a pharmacist.", "Orla")
    'I work as a pharmacist.'
    >>> first_person("Keziah's favourite music is zydeco.", "Keziah")
    'My favourite music is zydeco.'
    """
    if not speaker:
        return text
    name = re.escape(speaker)
    text = re.sub(rf"^{name}'s\b", "My", text.strip())
    m = re.match(rf"^{name}\s+((?:really|still|usually)\s+)?(\w+)", text)
    if m:
        verb = m.group(2)
        low = verb.lower()
        verb = _THIRD.get(low, low[:-1] if low.endswith("s") and not low.endswith("ss") else low)
        text = "I " + (m.group(1) or "") + verb + text[m.end():]
    return text


def _words(text: str) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower().replace("’", "'")):
        if len(w) > 2 and "'" not in w and w not in _STOPWORDS:
            out.add(w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def _stem(unit: str) -> str:
    u = unit.lower()
    return u[:-1] if len(u) > 3 and u.endswith("s") else u


_GAP_BEFORE = re.compile(r"[\s,:;–—-]*(?:(?:again|about|around|roughly|like|of|a|an)[\s,]+)?", re.IGNORECASE)
_GAP_AFTER = re.compile(r"(?:\s+[a-z]+){0,3}[\s,;–—-]*", re.IGNORECASE)


def _amounts(text: str, near: list[tuple[int, int]] | None = None) -> list[tuple[str, str]]:
    """(number, unit) pairs; with ``near``, only those within a few words of one of those spans."""
    out = []
    for m in _AMOUNT.finditer(text):
        if m.group(2).lower() in ("a", "an", "the", "of", "and", "or", "to", "in", "on", "per"):
            continue
        if near is not None and not any(
                (0 <= m.start() - e and _GAP_BEFORE.fullmatch(text[e: m.start()]))
                or (0 <= s - m.end() and _GAP_AFTER.fullmatch(text[m.end(): s])) for s, e in near):
            continue
        out.append((m.group(1).lower(), _stem(m.group(2))))
    return out


def _habit_number(old: str, x: str) -> bool:
    """"Same routine as always, 2 books a month" after "I read 6 books a month"; the amount sits
    right by the habitual wording ("my usual bookshop had 20 books" is no habit)."""
    marks = [m.span() for m in _HABITUAL.finditer(x)]
    if not marks:
        return False
    olds = _amounts(old)
    if not olds:
        return False
    new = _amounts(x, marks)
    units = {u for _, u in olds}
    mine = [(n, u) for n, u in new if u in units]
    if len(mine) != 1:
        return False
    n, u = mine[0]
    if n in {m for m, _ in olds}:
        return False  # the same amount: no change
    # both speak of one thing: a word of the old statement beside the unit, or the unit alone
    # when the old statement counts only that ("7 hours of sleep" / "I sleep 5 hours a night")
    return len(olds) == 1


def _role(old: str, x: str) -> bool:
    """"Another long shift as a locksmith today" after "I work as a pharmacist"."""
    m_old = _OLD_ROLE.search(old)
    m_new = _WORK_FRAME.search(x)
    if not (m_old and m_new):
        return False
    role = _ROLE_STOP.sub("", m_new.group(1)).strip()
    old_role = _ROLE_STOP.sub("", m_old.group(1)).strip()
    if not role or set(role.lower().split()) & _NOT_ROLE:
        return False
    return not (set(role.lower().split()) & set(old_role.lower().split()))


def _home(old: str, x: str) -> bool:
    """"Walking home along the waterfront in Duluth tonight" after "I live in Krakow"."""
    m_old = _OLD_HOME.search(old)
    if not m_old:
        return False
    old_place = set(m_old.group(1).lower().split())
    if _VISIT.search(x):
        return False
    for m in _HOME_FRAME.finditer(x):
        place = m.group(1).lower()
        if place not in _CALENDAR and place not in old_place and place != "the":
            return True
    return False


def _partner(old: str, x: str, speaker: str) -> bool:
    """"My girlfriend Gustavo surprised me" after "I'm dating Delphine"; "Oh and I'm single"
    after "I'm dating Corentin"."""
    m_old = _OLD_PARTNER.search(old)
    single = bool(_SINGLE.search(old))
    if not (m_old or single):
        return False
    if m_old and _SINGLE.search(x):
        return True
    skip = {speaker.lower(), "i"} | ({m_old.group(1).lower()} if m_old else set())
    for pat in _NEW_PARTNER:
        for m in pat.finditer(x):
            if m.group(1).lower() not in skip:
                return True
    return False


def _pet_lost(old: str, x: str) -> bool:
    """"The vet sent a card after we lost Tapioca" after "I have a whippet named Tapioca"."""
    for m in _OLD_PET.finditer(old):
        name = re.escape(m.group(1) or m.group(2))
        if any(re.search(p.format(name=name), x, re.IGNORECASE) for p in _PET_LOST):
            return True
    return False


def _gear_gone(old: str, x: str) -> bool:
    """"All my pottery gear went to the charity shop" after "My main hobby is pottery"."""
    m = _GEAR_GONE.search(x)
    return bool(m) and bool(_words(old) & _words(x[: m.end()]))


def _taste_turned(old: str, x: str) -> bool:
    """"One look at lamb curry and I lose my appetite" after "I love lamb curry"; "Had a wonderful
    time at escape rooms" after "I dislike escape rooms"."""
    like, dislike = _LIKES.search(old), _DISLIKES.search(old)
    if bool(like) == bool(dislike):
        return False
    turn = _TURNED_SOUR if like else _TURNED_SWEET
    if not turn.search(x):
        return False
    if like and _LIKES.search(x) and not _TURNED_SOUR.search(x):
        return False
    # the liked or disliked thing itself: the words right after the preference ("lamb curry")
    m = like or dislike
    thing = re.split(r"[.,;!?]|\b(?:and|but|because|when|which|so)\b", old[m.end():])[0].split()[:4]
    return bool(_words(" ".join(thing)) & _words(x))


def implied_change(old_text: str, new_text: str, speaker: str = "") -> str:
    """What the speaker's new statement presupposes against their old one: ``"number"``,
    ``"role"``, ``"home"``, ``"partner"``, ``"pet lost"``, ``"gear gone"``, ``"taste"``, or
    ``""`` (nothing). ``old_text`` is the speaker's own statement (first person or naming them);
    ``new_text`` their new words (questions already dropped).

    >>> implied_change("I work as a pharmacist.", "Another long shift as a locksmith today, my feet hurt.")
    'role'
    >>> implied_change("Gideon reads 8 books a month.", "Same routine as always, 5 books a month.", "Gideon")
    'number'
    >>> implied_change("I work as a pharmacist.", "My sister's first shift as a nurse went well.")
    ''
    >>> implied_change("I live in Leeds.", "Back home in York for Christmas with my parents!")
    ''
    """
    old = first_person(old_text, speaker)
    if not _FIRST.search(old):
        return ""
    for x in _SENTENCES.split(new_text):
        x = x.strip()
        if not x or x.endswith("?") or _NOT_NOW.search(x):
            continue
        # the partner or the pet may be the sentence's subject ("My husband Raj made pancakes");
        # the other readings need the speaker's own sentence
        own = not _OTHERS.search(x) and (bool(_FIRST.search(x)) or not re.search(
            r"\b(?:he|she|they|his|her|their)\b", x, re.IGNORECASE))
        for kind, hit in (("number", lambda: own and _habit_number(old, x)), ("role", lambda: own and _role(old, x)),
                          ("home", lambda: own and _home(old, x)), ("partner", lambda: _partner(old, x, speaker)),
                          ("pet lost", lambda: _pet_lost(old, x)), ("gear gone", lambda: own and _gear_gone(old, x)),
                          ("taste", lambda: own and _taste_turned(old, x))):
            if hit():
                return kind
    return ""
