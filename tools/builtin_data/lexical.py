"""Word-level built-in tasks: sentiment_lexicon, word_language, capitalize,
lowercase, present_past and singular_plural.

The words come from maintained packages (wordfreq for what is common, the VADER
lexicon for sentiment, lemminflect for English lemmas and inflections); every
filter is written out below, and the hand-written exclusion lists are the only
judgement calls. Every list is ordered by wordfreq frequency (ties by the word
itself), so the same packages give the same examples in the same order.
"""
from __future__ import annotations

import gzip
import importlib.metadata
import json
import re
from functools import lru_cache
from pathlib import Path

TEST_FRACTION = 0.75

VERSIONS = {"wordfreq": "3.1.1", "vaderSentiment": "3.3.2", "lemminflect": "0.2.3"}
LICENCES = {
    "wordfreq": "Apache-2.0 (code); word-frequency data CC BY-SA 4.0",
    "vaderSentiment": "MIT",
    "lemminflect": "MIT",
}


def _package(name: str):
    """Import `name` after checking that the installed version is the pinned one."""
    try:
        have = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        raise SystemExit(f"{name} is not installed; see tools/builtin_data/build.py for how to install "
                         "tools/builtin_data/requirements.txt") from None
    if have != VERSIONS[name]:
        raise SystemExit(f"{name} {have} is installed, but tools/builtin_data/requirements.txt pins "
                         f"{VERSIONS[name]}; install the pinned version so the data do not change")
    return __import__(name)


def _source(name: str, use: str) -> dict:
    return {"package": name, "version": VERSIONS[name], "licence": LICENCES[name], "use": use}


def _labelled(groups: dict[str, list[str]]) -> list[dict[str, str]]:
    """Interleave the groups (label -> inputs; all the same length) so every prefix is near balanced."""
    n = min(len(v) for v in groups.values())
    return [{"input": inputs[i], "output": label} for i in range(n) for label, inputs in groups.items()]


def _pairs(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"input": a, "output": b} for a, b in pairs]


@lru_cache(maxsize=None)
def _zipf(word: str, lang: str = "en") -> float:
    return _package("wordfreq").zipf_frequency(word, lang)


def _hand_then_frequent(chosen: dict, hand, n: int, task: str, what: str) -> list[str]:
    """Every hand-listed word, then the most frequent package-chosen words up to n in all, in
    frequency order; SystemExit if fewer than n."""
    extra = n - len(hand)
    keep = [w for w in _by_frequency(set(chosen) | set(hand)) if w in hand or (w in chosen and (extra := extra - 1) >= 0)]
    if len(keep) < n:
        raise SystemExit(f"{task}: only {len(keep)} {what}")
    return keep


def _by_frequency(words, lang: str = "en") -> list[str]:
    return sorted(words, key=lambda w: (-_zipf(w, lang), w))


@lru_cache(maxsize=1)
def _lexicon() -> tuple[frozenset, frozenset]:
    """The word forms of lemminflect's lemma lookup table: (lower-case forms, capitalised forms).

    A capitalised form there is a proper noun or adjective (Paris, English, Monday, God,
    House); a word whose capitalised form is listed is treated as one that is often
    written with a capital."""
    lemminflect = _package("lemminflect")
    path = Path(lemminflect.__file__).parent / "resources" / "lemma_lu.csv.gz"
    lower, caps = set(), set()
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            form = line.split(",", 1)[0]
            (caps if form[:1].isupper() else lower).add(form)
    return frozenset(lower), frozenset(caps)


def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    return _package("lemminflect").getAllLemmas(word)


def _inflect(word: str, tag: str) -> tuple[str, ...]:
    return tuple(_package("lemminflect").getInflection(word, tag))


def _common_word(word: str) -> bool:
    """A lower-case entry of lemminflect's lexicon that has no capitalised (proper) entry."""
    lower, caps = _lexicon()
    return word in lower and word.capitalize() not in caps


# Profanity, slurs and sexual terms: never an input of any task here.
_OFFENSIVE = frozenset("""
    ass asses asshole assholes bastard bastards bitch bitches bitchy bullshit butt butts crap
    crappy cunt damn damned hell dick dickhead fag faggot fuck fucked fucker fuckers fucking horny
    motherfucker nigga nigger piss pissed porn penis pervert rape raped rapes raping rapist
    rapists retard retarded screw screwed scumbag sex sexy shit shits shitted shitting shitty
    slut suck sucked sucks whore whores wtf
""".split())


# ---------------------------------------------------------------------------
# sentiment_lexicon: clearly polar, common single words from VADER
# ---------------------------------------------------------------------------

SENTIMENT_PER_LABEL = 230
SENTIMENT_MIN_MEAN = 1.8
SENTIMENT_MAX_SD = 1.0     # raters agreed
SENTIMENT_MIN_ZIPF = 3.0

# Left out beyond _OFFENSIVE (reason -> words).
_SENTIMENT_EXCLUSIONS = {
    "not plain English words: chat abbreviations, interjections, names, slang": """
        braves champ champs congrats cutie fab fav freeman friendlies haha hallelujah hooray kia
        kudos lmao lol ly nfc nh po tia amor tx ty xd xp ffs fu ugh wow grin smiley sweetie
        weirdo ticked spamming haters hater twat slutty
    """,
    "the sentiment hangs on the sense (pretty good, kind of, party, hand)": """
        like likes liked liking kind kinder pretty prettier party parties hand free freely
        credit grant united yes super clearly definitely surely truly honestly hopefully
        interestingly luckily thankfully please thank thanks mature bold keen dynamic grand
        resolve resolving favor favour favored favoured favorites favours favorable favourable
        favoring witch marvel lies temper mock fired antagonist
    """,
    "weakly polar on their own: more a topic than a sentiment": """
        care heart popular safe safety opportunity agreement award festival festivities fiesta
        supporting supporters intelligence profit saved sharing approved champion championships
        entertainment dedicated protected efficient liberty survived attracted intellectual
        celebrated promoted attraction innovative innovate strengthening blockbuster beneficiary
        complimentary harmonic optimize optimist proactive wellness winnings peacekeeping truths
        excitation weapons penalty suspended arrests protesting riots smuggling casualty jailed
        imprisoned detain forbidden infringement disqualified eviction felonies perjury
    """,
    "inflections and derivations of the words above": """
        awards hearts cares celebrating attractions attracting liberties safely safer popularly
        glorified optimized wealthiest prettiest excel excelled awarding losers
    """,
    "religious": """
        devil devils sin sins sinful divine bless blessed blessing blessings praying worshipped
        glorify heavenly paradise miracle
    """,
    "insults and crude words": """
        bloody freak lame moron idiot idiotic dumb loser maniac vulture stench stinking
    """,
    "killing, suicide, terrorism, racism, disease; physical affection": """
        suicide suicidal murder murdered murderer murderers murdering murderous killing killings
        killer killers kill kills killed terrorist terrorists terrorism racist racists racism
        fascist slavery abortion cancer assassination abduction fatalities fatality fatally bomb
        drowned choke stab kissing kisses kiss hugs hugging hugged lover romance romantic
        romantically
    """,
}
_SENTIMENT_EXCLUDED = frozenset(w for words in _SENTIMENT_EXCLUSIONS.values() for w in words.split())

# Endings that make a word an inflection or close derivation of a kept word (love ->
# loved, loves, lovely, loving): such a word is left out so the list is not a set of
# near-duplicates.
_DERIVATIONAL = ("s", "es", "d", "ed", "ing", "er", "ers", "est", "ly", "ily", "y", "ness",
                 "ful", "fully", "ment", "ments", "ity", "able", "ably")


def _near_duplicate(word: str, kept: list[str], kept_lemmas: set[str]) -> bool:
    """`word` shares a lemma with a kept word, or is a kept word plus one of _DERIVATIONAL
    (after dropping a final e, turning a final y into i, or doubling a final consonant)."""
    lemmas = {lemma for forms in _lemmas(word).values() for lemma in forms} | {word}
    if lemmas & kept_lemmas:
        return True
    for k in kept:
        stems = {k, k + k[-1]}
        if k.endswith("e"):
            stems.add(k[:-1])
        if k.endswith("y"):
            stems.add(k[:-1] + "i")
        if any(len(s) >= 3 and word.startswith(s) and word[len(s):] in _DERIVATIONAL for s in stems):
            return True
    return False


def _sentiment_groups() -> dict[str, list[str]]:
    """label -> the words that pass the filters, most frequent first."""
    vader = _package("vaderSentiment")
    path = Path(vader.__file__).parent / "vader_lexicon.txt"
    label_of: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        word, mean, sd, ratings = line.split("\t")
        mean, sd, ratings = float(mean), float(sd), json.loads(ratings)
        if not re.fullmatch(r"[a-z]{3,}", word) or word in _OFFENSIVE or word in _SENTIMENT_EXCLUDED:
            continue
        if abs(mean) < SENTIMENT_MIN_MEAN or sd > SENTIMENT_MAX_SD:
            continue
        if any(r * mean < 0 for r in ratings):        # no rater gave the other sign
            continue
        if _zipf(word) < SENTIMENT_MIN_ZIPF:
            continue
        label_of[word] = "pos" if mean > 0 else "neg"
    groups: dict[str, list[str]] = {"pos": [], "neg": []}
    for label in groups:
        words = [w for w, lab in label_of.items() if lab == label]
        # an inflected form whose lemma is itself a candidate gives way to it (friends -> friend)
        words = [w for w in words
                 if not any(lemma != w and label_of.get(lemma) == label
                            for forms in _lemmas(w).values() for lemma in forms)]
        kept: list[str] = []
        kept_lemmas: set[str] = set()
        for word in _by_frequency(words):
            if _near_duplicate(word, kept, kept_lemmas):
                continue
            kept.append(word)
            kept_lemmas |= {lemma for forms in _lemmas(word).values() for lemma in forms} | {word}
        groups[label] = kept
    return groups


def _sentiment_lexicon() -> dict:
    groups = _sentiment_groups()
    n = min(SENTIMENT_PER_LABEL, *(len(v) for v in groups.values()))
    if n < SENTIMENT_PER_LABEL:
        raise SystemExit(f"sentiment_lexicon: only {n} words per label pass the filters")
    return {
        "kind": "classification",
        "description": "Classify a common English word as positive or negative in sentiment.",
        "label_words": {"pos": "positive", "neg": "negative"},
        "test_fraction": TEST_FRACTION,
        "sources": [
            _source("vaderSentiment", "vaderSentiment/vader_lexicon.txt: lower-case alphabetic single words "
                    f"with |mean valence| >= {SENTIMENT_MIN_MEAN}, rating sd <= {SENTIMENT_MAX_SD} and no rater "
                    "of the opposite sign; label = sign of the mean"),
            _source("wordfreq", f"zipf_frequency(w, 'en') >= {SENTIMENT_MIN_ZIPF}; the most frequent "
                    f"{SENTIMENT_PER_LABEL} words per label, most frequent first"),
            _source("lemminflect", "getAllLemmas: a word sharing a lemma with a more frequent kept word "
                    "is left out (with a written list of endings for close derivations)"),
            {"hand-written": "exclusion lists: profanity, slurs and sexual terms; chat abbreviations, "
                             "interjections and names; words whose polarity depends on the sense; "
                             "words about killing, suicide, terrorism and racism"},
        ],
        "examples": _labelled({lab: ws[:n] for lab, ws in groups.items()}),
    }


# ---------------------------------------------------------------------------
# word_language: English or French
# ---------------------------------------------------------------------------

LANGUAGE_PER_LABEL = 240
LANGUAGE_TOP_N = 3000      # candidates: wordfreq.top_n_list(lang, 3000)
LANGUAGE_MIN_GAP = 1.5     # zipf in its own language minus zipf in the other one
_FRENCH_LETTERS = "a-zàâæçéèêëîïôœùûüÿ"

# Names, places, interjections, slang and vulgar words that pass the frequency filters.
_LANGUAGE_EXCLUDED = frozenset("""
    québec unis françois etat dieu merde putain gueule ouais hein bordel connard
    please self
""".split())


def _word_language() -> dict:
    wordfreq = _package("wordfreq")
    lower, caps = _lexicon()
    english = [w for w in wordfreq.top_n_list("en", LANGUAGE_TOP_N)
               if re.fullmatch(r"[a-z]{4,}", w) and _common_word(w)
               and w not in _OFFENSIVE and w not in _LANGUAGE_EXCLUDED
               and _zipf(w, "en") - _zipf(w, "fr") >= LANGUAGE_MIN_GAP]
    french = [w for w in wordfreq.top_n_list("fr", LANGUAGE_TOP_N)
              if re.fullmatch(rf"[{_FRENCH_LETTERS}]{{4,}}", w)
              and w not in lower and w.capitalize() not in caps
              and w not in _LANGUAGE_EXCLUDED
              and _zipf(w, "fr") - _zipf(w, "en") >= LANGUAGE_MIN_GAP]
    english, french = _by_frequency(english, "en"), _by_frequency(french, "fr")
    if min(len(english), len(french)) < LANGUAGE_PER_LABEL:
        raise SystemExit(f"word_language: {len(english)} English and {len(french)} French words pass")
    return {
        "kind": "classification",
        "description": "Say whether a common word is English or French.",
        "label_words": {"english": "English", "french": "French"},
        "test_fraction": TEST_FRACTION,
        "sources": [
            _source("wordfreq", f"top_n_list('en' / 'fr', {LANGUAGE_TOP_N}): alphabetic words of 4+ letters "
                    f"(French accents allowed) at least {LANGUAGE_MIN_GAP} zipf more frequent in their own "
                    f"language than in the other; the {LANGUAGE_PER_LABEL} most frequent per language"),
            _source("lemminflect", "resources/lemma_lu.csv.gz: an English word must be a lower-case entry "
                    "with no capitalised (proper-noun) entry; a French word must be neither"),
            {"hand-written": "exclusion list of names, places, interjections and vulgar words"},
        ],
        "examples": _labelled({"english": english[:LANGUAGE_PER_LABEL], "french": french[:LANGUAGE_PER_LABEL]}),
    }


# ---------------------------------------------------------------------------
# capitalize / lowercase: common lower-case English words, alternately assigned
# ---------------------------------------------------------------------------

CASE_PER_TASK = 300
CASE_TOP_N = 5000
_CASE_POS = ("NOUN", "VERB", "ADJ", "ADV")

# Words usually written with a capital, or a capital-letter brand, that lemminflect
# does not list with a capital.
_CASE_EXCLUDED = frozenset("""
    internet christian christmas easter bible islam muslim jesus lord president
    google facebook twitter youtube anti okay
""".split())


@lru_cache(maxsize=1)
def _case_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    wordfreq = _package("wordfreq")
    words = []
    for w in wordfreq.top_n_list("en", CASE_TOP_N):
        if not re.fullmatch(r"[a-z]{4,}", w) or not _common_word(w):
            continue
        if w in _OFFENSIVE or w in _CASE_EXCLUDED:
            continue
        lemmas = _lemmas(w)
        if not any(pos in lemmas for pos in _CASE_POS):
            continue
        if any(lemma != w for forms in lemmas.values() for lemma in forms):   # a base form, not went/things
            continue
        words.append(w)
    words = _by_frequency(words)
    if len(words) < 2 * CASE_PER_TASK:
        raise SystemExit(f"capitalize/lowercase: only {len(words)} words pass")
    return tuple(words[0:2 * CASE_PER_TASK:2]), tuple(words[1:2 * CASE_PER_TASK:2])


def _case_sources(which: str) -> list[dict]:
    return [
        _source("wordfreq", f"top_n_list('en', {CASE_TOP_N}): alphabetic words of 4+ letters, in frequency "
                f"order; alternately to capitalize and lowercase (disjoint), {CASE_PER_TASK} each ({which})"),
        _source("lemminflect", "resources/lemma_lu.csv.gz and getAllLemmas: a lower-case entry with no "
                "capitalised (proper-noun) entry, a noun, verb, adjective or adverb, and no inflection of another "
                "lemma (not went, things, used)"),
        {"hand-written": "exclusion lists of profanity and of words usually capitalised that lemminflect "
                         "lists in lower case only (religious words, brands)"},
    ]


def _capitalize() -> dict:
    words = _case_words()[0]
    return {
        "kind": "generation",
        "description": "Write a lower-case word with its first letter capitalised.",
        "label_words": None,
        "test_fraction": TEST_FRACTION,
        "sources": _case_sources("even ranks"),
        "examples": _pairs([(w, w.capitalize()) for w in words]),
    }


def _lowercase() -> dict:
    words = _case_words()[1]
    return {
        "kind": "generation",
        "description": "Write a capitalised word in lower case.",
        "label_words": None,
        "test_fraction": TEST_FRACTION,
        "sources": _case_sources("odd ranks"),
        "examples": _pairs([(w.capitalize(), w) for w in words]),
    }


# ---------------------------------------------------------------------------
# present_past: English verb -> simple past
# ---------------------------------------------------------------------------

PAST_N = 300
PAST_TOP_N = 8000
PAST_MIN_ZIPF = 3.0        # the past form itself is common
PAST_MAX_GAP = 1.0         # a verb that is also a noun/adjective: its -ing and past forms within
                           # 1.0 zipf of the base form, so the word is mostly used as a verb

# The project's hand-written pairs (irregular and regular), kept with these answers.
_HAND_PAST = [
    ("go", "went"), ("eat", "ate"), ("see", "saw"), ("take", "took"), ("make", "made"),
    ("come", "came"), ("give", "gave"), ("know", "knew"), ("think", "thought"), ("buy", "bought"),
    ("bring", "brought"), ("teach", "taught"), ("catch", "caught"), ("fight", "fought"),
    ("run", "ran"), ("swim", "swam"), ("sing", "sang"), ("drink", "drank"), ("begin", "began"),
    ("ring", "rang"), ("write", "wrote"), ("drive", "drove"), ("ride", "rode"), ("speak", "spoke"),
    ("break", "broke"), ("choose", "chose"), ("freeze", "froze"), ("wake", "woke"),
    ("steal", "stole"), ("forget", "forgot"), ("get", "got"), ("sit", "sat"), ("stand", "stood"),
    ("understand", "understood"), ("fly", "flew"), ("grow", "grew"), ("throw", "threw"),
    ("draw", "drew"), ("blow", "blew"), ("fall", "fell"), ("feel", "felt"), ("keep", "kept"),
    ("sleep", "slept"), ("leave", "left"), ("meet", "met"), ("lose", "lost"), ("send", "sent"),
    ("spend", "spent"), ("build", "built"), ("tell", "told"), ("sell", "sold"), ("hold", "held"),
    ("find", "found"), ("say", "said"), ("pay", "paid"), ("hear", "heard"), ("win", "won"),
    ("bite", "bit"), ("feed", "fed"), ("shake", "shook"), ("wear", "wore"), ("dig", "dug"),
    ("cut", "cut"), ("put", "put"), ("walk", "walked"), ("play", "played"), ("jump", "jumped"),
    ("talk", "talked"), ("cook", "cooked"), ("open", "opened"), ("dance", "danced"),
    ("smile", "smiled"), ("carry", "carried"), ("study", "studied"), ("try", "tried"),
    ("stop", "stopped"), ("plan", "planned"), ("live", "lived"), ("want", "wanted"),
    ("help", "helped"), ("ask", "asked"), ("call", "called"), ("look", "looked"),
    ("wash", "washed"), ("paint", "painted"), ("climb", "climbed"),
]

# Verbs that pass the filters but are mostly something else (nouns, interjections,
# brands), are slang or vulgar, or whose past form is mostly an adjective.
_PAST_EXCLUDED = frozenset("""
    please thank google tweet email log pan mar bar sub pee sue act owe
    interest date rate result record feature fund host file license engineer programme
    package lease dock audit lobby finance heat coat quote mount craft filter volunteer
    advocate exhibit import upload span reign elect trade concern limit advance tire
    regard bear cast tan bang freak alarm distress chill stack dip pitch rank rip
    secure express surprise purchase end face list land rule ship address shape command appeal
    grant schedule draft frame sentence detail tip tie bomb judge balance request block dry mess
    damage display fit wire root
""".split())


def _present_past() -> dict:
    wordfreq = _package("wordfreq")
    hand = dict(_HAND_PAST)
    chosen: dict[str, str] = {}
    for w in wordfreq.top_n_list("en", PAST_TOP_N):
        if not re.fullmatch(r"[a-z]{2,}", w) or w in hand or w in _OFFENSIVE or w in _PAST_EXCLUDED:
            continue
        lemmas = _lemmas(w)
        if lemmas.get("VERB") != (w,) or "AUX" in lemmas:   # its own lemma, and only its own
            continue
        past = _inflect(w, "VBD")
        if len(past) != 1 or _zipf(past[0]) < PAST_MIN_ZIPF:   # one past form, and a common one
            continue
        if set(lemmas) - {"VERB"}:
            ing = _inflect(w, "VBG")[0]
            if _zipf(w) - _zipf(ing) > PAST_MAX_GAP or _zipf(w) - _zipf(past[0]) > PAST_MAX_GAP:
                continue
        chosen[w] = past[0]
    keep = _hand_then_frequent(chosen, hand, PAST_N, "present_past", "verbs")
    return {
        "kind": "generation",
        "description": "Give the simple past tense of an English verb.",
        "label_words": None,
        "test_fraction": TEST_FRACTION,
        "sources": [
            _source("lemminflect", "getAllLemmas(w)['VERB'] == (w,) (no auxiliaries), getInflection(w, 'VBD') "
                    "with one form; for a word that is also a noun or adjective, its -ing form "
                    f"(getInflection 'VBG') and past form within {PAST_MAX_GAP} zipf of it"),
            _source("wordfreq", f"top_n_list('en', {PAST_TOP_N}); past form zipf >= {PAST_MIN_ZIPF}; "
                    f"the {PAST_N} most frequent verbs, the hand-written ones included"),
            {"hand-written": f"the project's earlier {len(hand)} verb/past pairs, kept with their answers; "
                             "an exclusion list of verbs mostly used as other parts of speech"},
        ],
        "examples": _pairs([(w, hand.get(w) or chosen[w]) for w in keep]),
    }


# ---------------------------------------------------------------------------
# singular_plural: English noun -> plural
# ---------------------------------------------------------------------------

PLURAL_N = 300
PLURAL_TOP_N = 8000
PLURAL_MIN_ZIPF = 3.0      # the plural itself is common
PLURAL_MAX_GAP = 1.0       # plural within 1.0 zipf of the singular: a countable noun
PLURAL_VERB_GAP = 1.5      # a noun that is also a verb: its past form at least 1.5 zipf rarer

_HAND_PLURAL = [
    ("man", "men"), ("woman", "women"), ("child", "children"), ("tooth", "teeth"),
    ("foot", "feet"), ("mouse", "mice"), ("goose", "geese"), ("person", "people"), ("ox", "oxen"),
    ("sheep", "sheep"), ("deer", "deer"), ("knife", "knives"), ("wife", "wives"),
    ("leaf", "leaves"), ("life", "lives"), ("wolf", "wolves"), ("half", "halves"),
    ("shelf", "shelves"), ("loaf", "loaves"), ("thief", "thieves"), ("calf", "calves"),
    ("city", "cities"), ("baby", "babies"), ("party", "parties"), ("country", "countries"),
    ("story", "stories"), ("lady", "ladies"), ("box", "boxes"), ("bus", "buses"),
    ("church", "churches"), ("glass", "glasses"), ("dish", "dishes"), ("watch", "watches"),
    ("fox", "foxes"), ("kiss", "kisses"), ("tomato", "tomatoes"), ("potato", "potatoes"),
    ("hero", "heroes"), ("echo", "echoes"), ("crisis", "crises"), ("analysis", "analyses"),
    ("thesis", "theses"), ("phenomenon", "phenomena"), ("criterion", "criteria"), ("cat", "cats"),
    ("dog", "dogs"), ("book", "books"), ("car", "cars"), ("tree", "trees"), ("house", "houses"),
    ("apple", "apples"), ("bird", "birds"), ("chair", "chairs"), ("table", "tables"),
    ("girl", "girls"), ("boy", "boys"), ("key", "keys"), ("day", "days"), ("toy", "toys"),
    ("pen", "pens"), ("door", "doors"), ("cup", "cups"), ("hat", "hats"), ("river", "rivers"),
    ("star", "stars"), ("flower", "flowers"), ("horse", "horses"), ("window", "windows"),
    ("roof", "roofs"), ("chief", "chiefs"), ("piano", "pianos"), ("photo", "photos"), ("zoo", "zoos"),
]

# Mass and abstract nouns whose "plural" is a different sense (waters, arts, securities),
# numerals and quantity words, words mostly used otherwise (other, matter), slang and
# abbreviations, and plurals that are mostly another word (math -> maths).
_PLURAL_EXCLUDED = frozenset("""
    time way thing lot water food oil art security justice science sugar meat sense matter course
    other million billion thousand hundred dozen cent sixty ton
    god lord pro sub dude bro cam math mom kid guy babe
    spring mine sale arm glass term quarter core fan bit bill
    basis space speed technology culture wine metal medicine strength variety responsibility
    performance treatment text estate religion environment authority beer behavior
""".split())


def _singular_plural() -> dict:
    wordfreq = _package("wordfreq")
    hand = dict(_HAND_PLURAL)
    chosen: dict[str, str] = {}
    for w in wordfreq.top_n_list("en", PLURAL_TOP_N):
        if not re.fullmatch(r"[a-z]{3,}", w) or w in hand or w in _OFFENSIVE or w in _PLURAL_EXCLUDED:
            continue
        if not _common_word(w):
            continue
        lemmas = _lemmas(w)
        if lemmas.get("NOUN") != (w,) or {"ADJ", "ADV", "AUX"} & set(lemmas):
            continue
        if any(lemma != w for forms in lemmas.values() for lemma in forms):   # not building, thought
            continue
        plural = _inflect(w, "NNS")
        if not plural or plural[0] == w:
            continue
        p = plural[0]
        if _zipf(p) < PLURAL_MIN_ZIPF or _zipf(w) - _zipf(p) > PLURAL_MAX_GAP:
            continue
        if "VERB" in lemmas and _zipf(w) - _zipf(_inflect(w, "VBD")[0]) < PLURAL_VERB_GAP:
            continue
        chosen[w] = p
    keep = _hand_then_frequent(chosen, hand, PLURAL_N, "singular_plural", "nouns")
    return {
        "kind": "generation",
        "description": "Give the plural of an English noun.",
        "label_words": None,
        "test_fraction": TEST_FRACTION,
        "sources": [
            _source("lemminflect", "getAllLemmas(w) == its own noun lemma only (no adjective or adverb "
                    "reading, not an inflection of another word), lower-case only in resources/lemma_lu.csv.gz; "
                    "plural = first form of getInflection(w, 'NNS'); a noun that is also a verb needs its "
                    f"past form (getInflection 'VBD') at least {PLURAL_VERB_GAP} zipf rarer than itself"),
            _source("wordfreq", f"top_n_list('en', {PLURAL_TOP_N}); plural zipf >= {PLURAL_MIN_ZIPF} and within "
                    f"{PLURAL_MAX_GAP} of the singular (countable nouns); the {PLURAL_N} most frequent "
                    "nouns, the hand-written ones included"),
            {"hand-written": f"the project's earlier {len(hand)} singular/plural pairs, kept with their "
                             "answers; an exclusion list of mass nouns, numerals, slang and abbreviations"},
        ],
        "examples": _pairs([(w, hand.get(w) or chosen[w]) for w in keep]),
    }


TASKS = {
    "sentiment_lexicon": _sentiment_lexicon,
    "word_language": _word_language,
    "capitalize": _capitalize,
    "lowercase": _lowercase,
    "present_past": _present_past,
    "singular_plural": _singular_plural,
}
