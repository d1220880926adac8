"""A second domain for the evaluation-set generator (``build_evalset.build(vocabulary_name="library")``):
a lending library's catalogue in two collections, ``humanities`` and ``sciences``. It shares no
entity name, relation name, value or question wording with the bundled operations set, so a
judged set drawn from it was never seen by whoever tuned the defaults on the bundled one. Like
the bundled domain it has single-valued slots (a shelf, a publisher, a loan period, a head
librarian, ...), and two multi-valued relations: a book's authors (``WRITTEN_BY``) and its
topics (``COVERS_TOPIC``) hold two correct values each, both judged relevant, so a ranking that
treats them as competitors hides a right answer."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from graph_trust.data.eval.build_evalset import Vocabulary

AS_OF = datetime(2026, 11, 1, 0, 0, tzinfo=UTC)  # the instant the generated sets describe (build_evalset.AS_OF)
PUBLISHERS = ["Juniper Press", "Halcyon Books", "Meridian House", "Foxglove Editions", "Stonebridge Publishing",
              "Larkspur & Sons"]
LANGUAGES = ["Portuguese", "Finnish", "Turkish", "Korean", "Swahili", "Polish", "Catalan", "Tagalog"]
HOURS = ["Monday to Friday from 08:30 to 19:00", "every day from 10:00 to 17:00",
         "Tuesday to Saturday from 09:00 to 18:00", "weekday mornings and Saturday afternoons"]
STREETS = ["Lantern Lane", "Quarry Road", "Willow Crescent", "Ferry Street", "Bell Yard", "Chapel Row"]
EDITIONS = ["first edition", "second edition", "third edition", "fourth edition", "revised edition",
            "anniversary edition"]

GROUPS = {
    "humanities": {
        "book": ["Salt and Empire", "The Glass Orchard", "Letters from Tangier", "A Grammar of Silence",
                 "Rivers of Ink", "The Weaver's Almanac", "Harbour Songs", "Measures of Memory",
                 "The Quiet Republic", "Lanterns at Dusk", "Atlas of Lost Towns", "The Copper Psalter"],
        "branch": ["Northgate Reading Room", "Elm Street Branch", "Riverside Annex", "Old Mill Library"],
        "exhibition": ["Illuminated Manuscripts Exhibit", "Wartime Posters Exhibit", "Folk Tales Exhibit"],
        "people": ["Amara Osei", "Henrik Dahl", "Lucia Ferraro", "Yusra Karim", "Tobias Wren", "Mirela Popescu",
                   "Callum Reid", "Saoirse Byrne"],
        "librarians": ["Beatrix Hale", "Omar Farouk", "Ingrid Solberg", "Thea Morgan"],
        "topics": ["medieval trade", "colonial history", "lyric poetry", "historical linguistics", "folklore",
                   "vernacular architecture"],
    },
    "sciences": {
        "book": ["Tides and Orbits", "The Patient Cell", "Fields of Force", "Counting the Stars",
                 "The Lichen Survey", "Entropy for Gardeners", "Maps of the Genome", "The Prime Garden",
                 "Weather Engines", "The Quantum Kitchen", "Coral Arithmetic", "Notes on Soil"],
        "branch": ["Observatory Hill Branch", "Harbourview Library", "Westfield Stacks", "Canal Quarter Branch"],
        "exhibition": ["Fossil Drawings Exhibit", "Early Telescopes Exhibit", "Botanical Plates Exhibit"],
        "people": ["Ravi Menon", "Elif Demir", "Jonas Weber", "Chiara Conti", "Ade Bello", "Maren Holt",
                   "Keiko Sato", "Pablo Ruiz"],
        "librarians": ["Victor Lemaire", "Ana Costa", "Hugo Brandt", "Zara Ahmed"],
        "topics": ["astronomy", "cell biology", "electromagnetism", "ecology", "genetics", "number theory"],
    },
}

# As build_evalset.ATTRS: kind, relation, questions, fact wordings, a related fact (grade 1) and an
# off-topic fact full of the question's words; "values": 2 for a multi-valued relation.
ATTRS: dict[str, dict] = {
    "author": {
        "kind": "book", "pred": "WRITTEN_BY", "values": 2,
        "ask": ["who wrote {s}", "who are the authors of {s}", "{s} authors"],
        "say": ["{s} was written by {v}.", "{v} is one of the authors of {s}.", "{v} co-wrote {s}."],
        "related": ("ILLUSTRATED_BY", "The illustrations in {s} are by {p}."),
        "intrude": ("AUTHOR_SIGNING", "The people who wrote {s} will sign copies; the authors of {s} read on Sunday."),
    },
    "topic": {
        "kind": "book", "pred": "COVERS_TOPIC", "values": 2,
        "ask": ["what topics does {s} cover", "what is {s} about", "{s} subject headings"],
        "say": ["{s} covers {v}.", "{s} is catalogued under the subject {v}.",
                "Readers looking for {v} are pointed to {s}."],
        "related": ("READING_AGE", "{s} is recommended for readers aged {n} and over."),
        "intrude": ("TOPIC_DISPLAY", "{s} and other books about what {s} covers sit on the new arrivals table."),
    },
    "shelf": {
        "kind": "book", "pred": "SHELVED_AT",
        "ask": ["where is {s} shelved", "which shelf holds {s}", "{s} shelf mark"],
        "say": ["{s} is shelved at {v}.", "Look for {s} on {v}.", "The shelf mark of {s} is {v}."],
        "related": ("LARGE_PRINT", "A large-print copy of {s} is kept in the reference corner."),
        "intrude": ("RESHELVING", "Returned copies of {s} wait on the sorting trolley before anyone shelves them."),
    },
    "publisher": {
        "kind": "book", "pred": "PUBLISHED_BY",
        "ask": ["who published {s}", "which publisher brought out {s}", "{s} publisher"],
        "say": ["{s} was published by {v}.", "{v} brought out {s}.", "{s} appeared under the {v} imprint."],
        "related": ("FIRST_PRINTED", "{s} was first printed on {d}."),
        "intrude": ("REPRINT_RIGHTS", "Requests to reprint {s} go to whoever published it, via the permissions desk."),
    },
    "loan": {
        "kind": "book", "pred": "LOAN_PERIOD",
        "ask": ["how long can I borrow {s}", "what is the loan period for {s}", "{s} lending time"],
        "say": ["{s} can be borrowed for {v}.", "Loans of {s} last {v}.", "The lending period of {s} is {v}."],
        "related": ("RENEWALS", "{s} may be renewed {n} times if nobody has reserved it."),
        "intrude": ("LATE_FEES", "A late fee is charged for each day {s} is kept past its loan period."),
    },
    "copies": {
        "kind": "book", "pred": "COPIES_HELD",
        "ask": ["how many copies of {s} does the library own", "{s} copy count",
                "how many {s} copies are in the collection"],
        "say": ["The library holds {v} of {s}.", "{v} of {s} are in the collection.", "We own {v} of {s}."],
        "related": ("WAITING_LIST", "{n} readers are waiting for {s}."),
        "intrude": ("BINDERY", "Damaged copies of {s} are sent to the bindery for repair."),
    },
    "edition": {
        "kind": "book", "pred": "LENDING_EDITION",
        "ask": ["which edition of {s} is on the shelves", "what edition of {s} do we lend", "{s} edition"],
        "say": ["The lending copy of {s} is the {v}.", "Readers borrow the {v} of {s}.", "{s} is stocked in its {v}."],
        "related": ("ERRATA", "An errata slip for {s} lists {n} corrections."),
        "intrude": ("EDITION_RULE", "Older editions of {s} move to the closed stacks when a new edition arrives."),
    },
    "language": {
        "kind": "book", "pred": "TRANSLATED_FROM",
        "ask": ["what language was {s} translated from", "original language of {s}", "{s} source language"],
        "say": ["{s} was translated from {v}.", "The original of {s} is in {v}.", "{s} first appeared in {v}."],
        "related": ("TRANSLATOR", "{p} translated {s} into English."),
        "intrude": ("TRANSLATION_GRANT", "The translation of {s} was paid for by a grant for literature in translation."),
    },
    "hours": {
        "kind": "branch", "pred": "OPENING_HOURS",
        "ask": ["when is {s} open", "what are the opening hours of {s}", "{s} opening times"],
        "say": ["{s} is open {v}.", "The doors of {s} open {v}.", "Visitors are welcome at {s} {v}."],
        "related": ("WINTER_CLOSURE", "{s} closes for {n} days over the winter holidays."),
        "intrude": ("HOURS_SURVEY", "A survey asks readers whether {s} should be open longer hours."),
    },
    "librarian": {
        "kind": "branch", "pred": "HEAD_LIBRARIAN",
        "ask": ["who is the head librarian at {s}", "who runs {s}", "{s} head librarian"],
        "say": ["{v} is the head librarian at {s}.", "{s} is run by {v}.", "Ask {v}, who manages {s}."],
        "related": ("DEPUTY", "{p} is the deputy at {s}."),
        "intrude": ("LIBRARIAN_COURSE", "Every head librarian, the one at {s} included, attends the cataloguing course."),
    },
    "rooms": {
        "kind": "branch", "pred": "STUDY_ROOMS",
        "ask": ["how many study rooms does {s} have", "{s} study room count",
                "how many group rooms can be booked at {s}"],
        "say": ["{s} has {v}.", "Readers can book {v} at {s}.", "There are {v} in {s}."],
        "related": ("ROOM_BOOKING", "Study rooms at {s} are booked for at most {n} hours."),
        "intrude": ("ROOM_RULES", "Food is not allowed in the study rooms of {s}."),
    },
    "address": {
        "kind": "branch", "pred": "STREET_ADDRESS",
        "ask": ["what is the address of {s}", "where is {s}", "{s} street address"],
        "say": ["{s} is at {v}.", "The address of {s} is {v}.", "You will find {s} at {v}."],
        "related": ("BICYCLE_RACKS", "{s} has {n} bicycle racks by the entrance."),
        "intrude": ("POSTAL_RULE", "Letters to {s} must show the full address and postcode."),
    },
    "curator": {
        "kind": "exhibition", "pred": "CURATED_BY",
        "ask": ["who curated the {s}", "curator of the {s}", "who put together the {s}"],
        "say": ["The {s} was curated by {v}.", "{v} is the curator of the {s}.", "{v} assembled the {s}."],
        "related": ("EXHIBIT_ITEMS", "The {s} shows {n} items from the special collections."),
        "intrude": ("CURATOR_TALK", "A talk by whoever curated the {s} is held on the first Friday."),
    },
    "closing": {
        "kind": "exhibition", "pred": "CLOSES_ON",
        "ask": ["when does the {s} close", "last day of the {s}", "{s} closing date"],
        "say": ["The {s} closes on {v}.", "The last day to see the {s} is {v}.", "The {s} runs until {v}."],
        "related": ("GALLERY", "The {s} hangs in gallery {n}."),
        "intrude": ("TOUR_TIMES", "Guided tours of the {s} close an hour before the building does."),
    },
}


def _date(rng: random.Random, lo: int, hi: int) -> str:
    d = AS_OF + timedelta(days=rng.randint(lo, hi))
    return f"{d.day} {d:%B %Y}"


def value(attr: str, g: dict, rng: random.Random, subject: str) -> str:
    """A plausible value of ``attr`` for ``subject``."""
    draw = {
        "author": lambda: rng.choice(g["people"]),
        "topic": lambda: rng.choice(g["topics"]),
        "shelf": lambda: f"shelf {rng.choice('ABCDEFGH')}-{rng.randint(1, 40)}",
        "publisher": lambda: rng.choice(PUBLISHERS),
        "loan": lambda: f"{rng.choice([7, 14, 21, 28, 42])} days",
        "copies": lambda: f"{rng.randint(1, 9)} copies",
        "edition": lambda: rng.choice(EDITIONS),
        "language": lambda: rng.choice(LANGUAGES),
        "hours": lambda: rng.choice(HOURS),
        "librarian": lambda: rng.choice(g["librarians"]),
        "rooms": lambda: f"{rng.randint(2, 14)} study rooms",
        "address": lambda: f"{rng.randint(2, 120)} {rng.choice(STREETS)}",
        "curator": lambda: rng.choice(g["people"] + g["librarians"]),
        "closing": lambda: _date(rng, 10, 200),
    }
    return draw[attr]()


def fill(template: str, rng: random.Random, g: dict, s: str, v: str = "") -> str:
    """``template`` with the subject, the value and drawn details (a count, a person, a date)."""
    text = template.format(s=s, v=v, n=rng.choice([2, 3, 4, 6, 8, 11, 12, 16]), p=rng.choice(g["people"]),
                           d=_date(rng, -3000, -400))
    return text[0].upper() + text[1:] if text[0].islower() and not text.startswith(s) else text


VOCABULARY = Vocabulary("library", "graph-trust labeled evaluation set: a library catalogue in two collections",
                        GROUPS, ATTRS, value, fill, "{name} ({label}) in the {group} collection.")
