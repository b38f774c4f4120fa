"""Matching free-form answers against accepted titles, and reading the model's replies."""

import pytest

from icml25.disco.titles import match_many, match_title, normalize_title, parse_answer


@pytest.mark.parametrize(
    "answer, accepted",
    [
        ("Pride & Prejudice", ["Pride and Prejudice"]),
        ("THE KING'S MAN", ["The King's Man"]),
        ("Aladdin (2019)", ["Aladdin"]),
        ("E.T. The Extra Terrestrial", ["E.T. the Extra-Terrestrial"]),
        ("Joker: Folie a Deux", ["Joker: Folie à Deux"]),
        ("Long Legs", ["Longlegs"]),
        ("Bhemian Rhapsody", ["Bohemian Rhapsody"]),
        ("  Star Wars - A New Hope ", ["Star Wars: A New Hope"]),
        ("Deadpool 3", ["Deadpool & Wolverine", "Deadpool 3"]),
    ],
)
def test_spellings_of_the_same_title_match(answer, accepted):
    assert match_title(answer, accepted)


@pytest.mark.parametrize(
    "answer, accepted",
    [
        ("Twister", ["Twisters"]),  # the 1996 film, not the 2024 one
        ("The Exorcist", ["The Exorcism"]),
        ("Despicable Me 3", ["Despicable Me 4"]),
        ("Kung Fu Panda", ["Kung Fu Panda 4"]),
        ("Inside Out", ["Inside Out 2"]),
        ("Beetlejuice", ["Beetlejuice Beetlejuice"]),
        ("Godzilla vs. Kong", ["Godzilla x Kong: The New Empire", "Godzilla x Kong"]),
        ("Pirates of the Caribbean", ["Pirates of the Caribbean: At World's End"]),
        ("Kingsman", ["The King's Man"]),
        ("", ["Frozen"]),
        ("Frozen II", ["Frozen"]),
    ],
)
def test_other_films_and_franchise_names_do_not_match(answer, accepted):
    assert not match_title(answer, accepted)


def test_normal_form():
    assert normalize_title("The Lord of the Rings: The Two Towers") == "lord of rings two towers"
    assert normalize_title("Schindler’s List") == "schindlers list"


def test_match_many_agrees_with_match_title():
    answers = ["Frozen", "frozen", "Frozen II", "Tangled", "Frozen"]
    assert match_many(answers, ["Frozen"]) == [match_title(a, ["Frozen"]) for a in answers]


def test_bad_accepted_lists_are_refused():
    with pytest.raises(ValueError, match="accepted"):
        match_title("Frozen", "Frozen")
    with pytest.raises(ValueError, match="accepted"):
        match_title("Frozen", [])
    with pytest.raises(ValueError, match="accepted"):
        match_title("Frozen", ["The"])
    with pytest.raises(TypeError, match="text"):
        normalize_title(None)


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"movie_name": "Titanic"}', ("Titanic", True)),
        ('```json\n{"movie_name": "Titanic"}\n```', ("Titanic", True)),
        ('{"title": "Titanic"}', ("Titanic", True)),
        ('I think it is "Titanic".', ("Titanic", False)),
        ("The movie is Titanic.", ("Titanic", False)),
        ("Titanic\nIt shows a ship.", ("Titanic", False)),
        ('{"movie_name": ""}', ("", False)),
        ('{"movie_name": 3}', ("", False)),
        ('{"movie_name": "Tita', ("", False)),  # truncated JSON: no title
        ("", ("", False)),
        (None, ("", False)),
    ],
)
def test_replies_are_read_and_malformed_ones_flagged(reply, expected):
    assert parse_answer(reply) == expected
