"""A request word's part of speech, read from the words around it (issue 13, round 11).

English marks a noun by what comes before it: a determiner or a possessive ("an important message", "my unread
mail", "which channels"), a number ("the last 5 texts") or a preposition ("from my manager", "about billing"); the
adjectives between that word and the noun are part of the same noun phrase, and none of its words is a verb. It marks
a verb by its place: the first word of an imperative ("message the team", "mail the report", "text Bob") or the word
after an infinitive's "to" ("I want to email the team").

The ranker (:mod:`search`) brings a word read as a noun only its noun relatives from the lexicon ("message": mail,
email, sms; not the verb "send", :data:`lexicon.VERB_GROUPS`); a verb, or a word neither rule reaches, brings all of
them as before.
"""

from __future__ import annotations

from collections.abc import Sequence

NOUN = "noun"
VERB = "verb"

# Words that open a noun phrase: articles, demonstratives, possessives, quantifiers and the interrogative determiners
# ("which channels", "what checks"; before a stop word, "what is", they open nothing). "that" is left out: it opens a
# clause as often as a noun phrase. The interrogatives: validation MRR 0.395 -> 0.397, nothing else moved on any set.
DETERMINERS = frozenset({"a", "an", "the", "this", "these", "those", "my", "our", "your", "their", "his", "her",
                         "its", "some", "every", "each", "all", "another", "no", "any", "several", "many", "few",
                         "which", "what", "whose"})
# Prepositions whose object is a noun phrase ("to" is not one of them: it also marks an infinitive).
PREPOSITIONS = frozenset({"of", "from", "in", "on", "with", "about", "for", "by", "into", "onto", "at", "via", "under",
                          "over", "between", "without", "within", "across", "through", "after", "before", "since",
                          "until", "among", "per"})
_NUMBER_WORDS = frozenset({"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twenty", "hundred"})


def _opens_phrase(word: str) -> bool:
    return word in DETERMINERS or word in PREPOSITIONS or word in _NUMBER_WORDS or word.isdigit()


def word_roles(tokens: Sequence[str], stop: frozenset[str]) -> list[str]:
    """Each lower-case token's part of speech: :data:`NOUN`, :data:`VERB` or ``""`` (not read).

    The content words (not in ``stop``) right after a determiner, a number or a preposition, up to the next stop
    word, are a noun phrase: each is read as a noun. The first token, when it is a content word, is an imperative's
    verb, and so is a content word right after "to".
    """
    roles = [""] * len(tokens)
    in_phrase = False
    for k, w in enumerate(tokens):
        if _opens_phrase(w):
            in_phrase = True
        elif w in stop:
            in_phrase = False
            if w == "to" and k + 1 < len(tokens) and tokens[k + 1] not in stop and not _opens_phrase(tokens[k + 1]):
                roles[k + 1] = VERB
        elif in_phrase:
            roles[k] = NOUN
        elif k == 0:
            roles[k] = VERB
    return roles
