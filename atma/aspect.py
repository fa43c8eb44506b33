"""Aspect readings: a change still under way, and a value that holds only within a scope.

The rule Judge (:func:`atma.judge.fallback_verdict`) reads a *transition* when the new statement
says a change has begun but is not finished, and a *scoped exception* when it names a narrower
situation in which another value holds while the old one stays the default. Its first tables
knew a handful of fixed phrases ("halfway through", "in the middle of", "except on", "only
at weekends"); people say these things in many more ways:

- under way: "Down to two coffees a day so far, working towards none"; "I've begun moving my
  accounts over to Monzo, about halfway done"; "I'm winding down my marathon training and
  shifting my focus to triathlon over the next few months". A change word in the progressive
  (:data:`CHANGE`) *and* a marker that it is not finished (:data:`PROGRESS`) in one sentence, with
  no completed change in it ("I switched to tea and so far I love it" is done, not under way);
- scoped: "The one exception is my grandma's fish stew at Christmas"; "Birthdays are my cheat
  days"; "When the roads are icy I take the tram instead" — an exception word
  (:data:`EXCEPTION`), or a situation (:data:`SITUATION`) together with a contrast to the usual
  (:data:`CONTRAST`).

These find the wording only. Whose statement it is (not "my sister is slowly going vegan"), the
intention and negation guards, and whether the sentence is about the old statement's attribute
at all stay with the Judge. Pure functions over text; no I/O.
"""

from __future__ import annotations

import re

__all__ = ["CHANGE", "PROGRESS", "GRADUAL", "DIMINISHED", "EXCEPTION", "SITUATION", "CONTRAST", "ALTERNATIVE", "under_way", "scope_cue"]

#: A change in the progressive, or a phrase that names a change as a course ("down to", "instead").
CHANGE = re.compile(
    r"\b(?:switching|swapping|moving|migrating|transferring|shifting|transitioning|converting|changing|"
    r"replacing|cutting|reducing|weaning|phasing|handing (?:\w+ ){0,4}?(?:over|off)|winding (?:\w+ ){0,3}?down|"
    r"porting|rewriting|rolling (?:out|over)|introducing|(?:mixing|bringing) (?:\w+ ){0,3}?in(?:to)?|nudging|"
    r"scaling (?:back|down)|coming off|expanding|"
    r"easing (?:\w+ )?(?:off|out|into|onto)|moves? (?:me|us) (?:onto|over|to)|taking over from|"
    r"still (?:\w+ ){0,5}?(?:until|till|for now)|"
    r"drifting|trading|ditching|reintroducing|retraining|relocating|downsizing|upgrading|tapering|"
    r"changeover|switchover|transition|instead(?: of)?|down to|up to|currently at|at about \w+|"
    r"(?:up|down)? ?towards? (?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)|at (?:about |around )?\d+|"
    r"(?:started|starting|begun|began|beginning) to (?:switch|swap|move|shift|migrate|transfer|cut (?:back|down)|"
    r"reduce|wean|phase|replace|drift|ease|taper)|"
    r"going (?:fully|completely|full[- ]time|part[- ]time)|(?:working|serving) (?:out )?(?:my |the )?notice|"
    r"notice period)\b",
    re.IGNORECASE)
#: The change is not finished: a stage reached, a goal ahead, a pace, a start.
PROGRESS = re.compile(
    r"\b(?:so far|getting there|(?:nearly|almost) there|heading (?:towards?|for)|50/50|fifty-fifty|one at a time|"
    r"(?:a couple|a few|\w+) more (?:\w+ ){0,2}(?:first|left)|(?:from|starting|as of) next (?:week|month|term|year)|"
    r"not (?:quite )?(?:there|done|finished) yet|partly|partially|"
    r"half ?(?:way )?(?:done|there|finished|installed|packed|unpacked|moved|built|converted|migrated|through)|"
    r"mid-?way|(?P<unit>(?!side\b)[a-z]+) by (?P=unit)|\d+ ?%(?: \w+){0,2} (?:done|there|through|complete|finished|"
    r"of the way|moved|migrated|switched|over)|(?:a|one|two) (?:third|quarter|fifth)s? of|half and half|"
    r"more often than not|(?:week|day|month|step|phase|stage|module) \d+ of \d+|\w+ more (?:\w+ ){0,2}to go|"
    r"by (?:\w+ )?\w+ \w+ (?:a|each|every|per) (?:day|week|month)|until (?:it's|they're|everything's|everything is) all|"
    r"until the end of|(?:through|throughout) the (?:summer|spring|autumn|fall|winter|month|term|year|season)|"
    r"now[,;] (?:\w+ ){1,3}(?:from|by|after|starting) (?:next|the end|mid)|"
    r"(?:about |roughly |nearly |almost )?halfway|part ?way|in stages|in phases|bit by bit|little by little|"
    r"step by step|gradually|slowly|slow going|more and more|less and less|"
    r"(?:a bit|a little|(?:a|one|another) \w+)(?: more| less)? (?:each|every|at a time|a (?:day|week|month)|per)|"
    r"each (?:day|week|month)|\w+ more (?:weeks?|days?|months?|steps?|rooms?|boxes)(?: \w+){0,3} to go|"
    r"over the (?:next|coming) (?:\w+ )?(?:days?|weeks?|fortnight|months?|term|year|semester|season)|"
    r"aiming (?:to|for)|(?:the|my|with the) goal|working (?:towards?|toward|my way)|(?:still )?getting used to|"
    r"learning to|still \w+ing|building (?:\w+ )?(?:back )?up|(?:i'm |i am |we're |we are )(?:starting|beginning) to|"
    r"the rest (?:follows?|will|is|are|goes|go|comes?)|"
    r"more (?:n|and|&) more|in the (?:middle|midst|process) of|before (?:i|we) (?:start|begin|move|switch|leave|join|take)|"
    r"by (?:spring|summer|autumn|fall|winter|christmas|next \w+|the end of (?:the )?\w+))\b",
    re.IGNORECASE)
#: A change under way by its wording alone: a gradual verb in the progressive ("weaning myself off",
#: "phasing out", "scaling back"), a point inside a change ("midway through retraining", "mid-move",
#: "while I move to Linux"), or a new value only partly in place ("more often than not", "half and half").
GRADUAL = re.compile(
    r"\b(?:weaning|phasing (?:\w+ ){0,3}?(?:out|in)|easing (?:myself |ourselves )?(?:off|out of|into|onto)|"
    r"scaling (?:back|down)|(?:mid-?way|halfway|half way|part ?way) through (?:\w+ing|(?:the|my|our) (?:move|switch|"
    r"transition|migration|changeover|handover|transfer|retraining))|"
    r"mid-(?:relocation|move|switch|transition|migration|transfer|changeover|handover)|"
    r"while (?:i|we)(?:'m|'re| am| are)? (?:move|switch|transition|migrate|phase|relocate|moving|switching|"
    r"transitioning|migrating|phasing|relocating)|more often than not|half and half|most days now|"
    r"(?:i'm|i am|we're|we are) (?:\w+ )?transitioning|half ?way into|"
    r"half (?:of )?(?:the|my|our) (?:\w+ ){0,2}(?:is|are) (?:done|moved|over|converted|switched)|"
    r"(?:move|switch|transfer|migration|handover|changeover|transition|rollout|switchover) (?:(?:to|from) (?:\w+ ){1,4}?)?"
    r"(?:is|are|'s) (?:\w+ )?"
    r"(?:happening|under ?way|ongoing|in progress))\b", re.IGNORECASE)
#: The old value kept only a little: "only the market stalls still get cash", "a paperback only
#: now and then". Beside a sign that a change is going on (:data:`PROGRESS`) and the old value's
#: own word, the old value is fading (read by :func:`atma.judge.fallback_verdict`).
DIMINISHED = re.compile(r"\b(?:only|less and less|now and then|the odd|occasionally|rarely|hardly|barely|"
                        r"once in a while)\b", re.IGNORECASE)
#: A change already made ("switched", "quit", "moved"): then "so far" tells how it is going, not
#: that it is still under way.
_DONE = re.compile(r"\b(?:switched|swapped|moved|changed|quit|replaced|traded|ditched|relocated|transferred|"
                   r"finished (?:moving|switching)|made the (?:switch|move|change))\b", re.IGNORECASE)
_HALF_DONE = re.compile(r"\b(?:half|halfway|partly|part ?way|nearly|almost|not (?:yet|quite))\s+(?:\w+\s+)?$",
                        re.IGNORECASE)

#: Wording that names an exception to a habit or a rule of one's own.
EXCEPTION = re.compile(
    r"\b(?:exceptions?|excepted|cheat (?:days?|meals?|weeks?)|the only (?:time|day|days|place|places|occasion|"
    r"occasions|thing) (?:i|we|when|that)|save for|bar none|one-off|treat days?|"
    r"(?:i|we) (?:make|allow|let) (?:myself |ourselves )?(?:\w+ ){0,2}(?:an exception|a treat))\b", re.IGNORECASE)
#: A narrower situation: days, occasions, seasons, conditions, company, a purpose.
SITUATION = re.compile(
    r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|weekends|weeknights|weekdays|"
    r"(?:at|for|on|during) (?:\w+ )?(?:weddings|parties|birthdays|christmas|new year's|special occasions|"
    r"family (?:dinners|gatherings|events|visits)|work (?:events|dinners|functions|trips)|restaurants|"
    r"conferences|festivals|holidays|celebrations|dinner parties)|birthdays|"
    r"in (?:the (?:heat|cold|depths|middle|dead) of )?(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december)|"
    r"(?:when|whenever|if|on days when|any time|anytime)\s+(?:i|i'm|it|it's|the|we|we're|my|there's|there is)\b|"
    r"with (?:my |our )?(?:\w+ ){0,2}(?:colleagues|friends|family|parents|kids|team|clients|in-laws|"
    r"grandparents|guests|coworkers|co-workers|office|branch|clients|customers|students|crew|side)|"
    r"(?:after|before|with|at|over) (?:dinner|lunch|breakfast|bedtime|work|bed|night|midnight)|"
    r"(?:before|after|on) (?:an? |the |my )?(?:\w+ )?(?:flights?|trips?|races?|matches|match|games?|exams?|meetings?|"
    r"workouts?|shifts?|interviews?)|^\W*for (?:\w+ )?\w+ing\b|"
    r"in the (?:mornings|evenings|afternoons)|"
    r"for (?:the )?(?:\w+ ){0,2}(?:emails|trips|visits|calls|runs|meetings|events|occasions|rides|journeys|"
    r"commutes|flights|dinners)|"
    r"during (?:\w+ ){0,2}(?:season|week|weeks|exams|term|holidays|winter|summer|ramadan|lent)|"
    r"on (?:school|work|rainy|sunny|cold|hot|busy|match|race|training|rest|game) (?:days|nights|mornings)|"
    r"(?:for|in) (?:the )?(?:winter|summer|spring|autumn|fall)(?: months)?)\b",
    re.IGNORECASE)
#: The value in that situation differs from the usual one.
CONTRAST = re.compile(
    r"\b(?:instead|though|rather|more like|drops?|goes? (?:up|down)|switch(?:es)?|swap(?:s)?|"
    r"change(?:s)? to|moves? (?:\w+ ){0,2}to|(?:and )?that's it|are for|is for|(?:i|we) (?:make|allow|treat|let))\b",
    re.IGNORECASE)
#: A "when/if" clause is everywhere in talk ("when I look after myself, I'm able to ..."): put first
#: it names a situation only with a contrast word.
_CLAUSE_SITUATION = re.compile(r"^(?:when|whenever|if|on days when|any ?time)\b", re.IGNORECASE)


#: What may stand before a situation that opens its sentence ("On Fridays I stay up till 1"): put
#: first, the situation is set against the usual.
_FRONTED = re.compile(r"^\W*(?:(?:and|but|so|oh|also|well)\W+)?(?:on |at |in |every |most |only )?$", re.IGNORECASE)


#: A contrast that names another value in place of the usual ("instead", "more like").
ALTERNATIVE = re.compile(r"\b(?:instead|more like|rather than|in place of|switch(?:es)? to|change(?:s)? to)\b",
                         re.IGNORECASE)


def under_way(sentence: str) -> list[re.Match[str]]:
    """The change words of ``sentence`` when it says a change is under way: a change word
    (:data:`CHANGE`) and a sign that it is not finished (:data:`PROGRESS`), and no change already
    made (:data:`_DONE`, unless "half done", "not yet moved"); or a gradual change word that says
    so by itself (:data:`GRADUAL`: "weaning myself off", "midway through retraining"). The caller checks whose change it
    is and that it is not only meant (the matches' left context).

    >>> bool(under_way("Down to two coffees a day so far, working towards none."))
    True
    >>> bool(under_way("I've begun moving my accounts from Barclays over to Monzo, about halfway done."))
    True
    >>> bool(under_way("I switched to decaf and so far it's great."))
    False
    >>> bool(under_way("We're moving to Austin next week."))
    False
    """
    if any(not _HALF_DONE.search(sentence[: m.start()]) for m in _DONE.finditer(sentence)):
        return []
    if not PROGRESS.search(sentence):
        return list(GRADUAL.finditer(sentence))
    return list(CHANGE.finditer(sentence)) + list(GRADUAL.finditer(sentence))


def scope_cue(sentence: str) -> str:
    """``"exception"`` when ``sentence`` names an exception to a habit, ``"situation"`` when it
    names a narrower situation and a value that differs there (a contrast word, or the situation
    put first: "On Fridays I stay up till 1"), else ``""``.

    >>> scope_cue("The one exception is my grandma's fish stew at Christmas.")
    'exception'
    >>> scope_cue("When the roads are icy I take the tram instead.")
    'situation'
    >>> scope_cue("On Fridays I stay up till 1 or so.")
    'situation'
    >>> scope_cue("I went to the market on Fridays.")
    ''
    """
    if EXCEPTION.search(sentence):
        return "exception"
    m = SITUATION.search(sentence)
    if m and (CONTRAST.search(sentence) or (_FRONTED.match(sentence[: m.start()])
                                            and not _CLAUSE_SITUATION.match(m.group(0)))):
        return "situation"
    return ""

